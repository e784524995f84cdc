"""A question posted to a channel, and its reveal when it closes."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.decks.model import Choice, Deck, Question
from bot.domain.game import GameStep
from bot.domain.records import PostRecord

LETTERS = "ABCDE"


def choice_order(question: Question, rng: random.Random) -> tuple[int, ...]:
    """Display order of a question's choices: shuffled unless the question says not to."""
    order = list(range(len(question.choices)))
    if question.shuffle:
        rng.shuffle(order)
    return tuple(order)


@dataclass(frozen=True)
class ShownChoice:
    letter: str
    index: int
    """Index into the question's choices as written in the deck."""
    choice: Choice


def shown_choices(question: Question, order: tuple[int, ...]) -> list[ShownChoice]:
    return [ShownChoice(LETTERS[i], idx, question.choices[idx]) for i, idx in enumerate(order)]


def letter_of(order: tuple[int, ...], index: int) -> str:
    return LETTERS[order.index(index)]


@dataclass(frozen=True)
class PostView:
    """Everything needed to draw a post, open or closed."""

    post: PostRecord
    deck: Deck
    question: Question
    answered: int
    game: GameStep | None = None
    """n of N and the deadline, when the post is a game's question and drawn by its loop."""

    @property
    def locale(self) -> str:
        return self.post.locale

    @property
    def choices(self) -> list[ShownChoice]:
        return shown_choices(self.question, self.post.order)

    @property
    def right_letter(self) -> str:
        return letter_of(self.post.order, self.question.answer)


@dataclass(frozen=True)
class TallyRow:
    shown: ShownChoice
    count: int
    share: float
    """Fraction of all answers, 0..1."""
    right: bool


@dataclass(frozen=True)
class Reveal:
    """A closed post: how the channel answered."""

    view: PostView
    rows: list[TallyRow]
    total: int
    closed_now: bool
    """False when the post had already been closed (the reveal is shown again, nothing changes)."""

    @property
    def right_share(self) -> float:
        return next((r.share for r in self.rows if r.right), 0.0)


def build_reveal(view: PostView, tally: dict[int, int], closed_now: bool) -> Reveal:
    total = sum(tally.values())
    rows = [
        TallyRow(
            shown=sc,
            count=tally.get(sc.index, 0),
            share=(tally.get(sc.index, 0) / total) if total else 0.0,
            right=sc.index == view.question.answer,
        )
        for sc in view.choices
    ]
    return Reveal(view=view, rows=rows, total=total, closed_now=closed_now)
