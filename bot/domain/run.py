"""A private run through a deck: one question at a time, resumable, scored on first meeting."""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass

from bot.decks.model import Deck, Question
from bot.domain.post import ShownChoice, choice_order, letter_of, shown_choices
from bot.domain.records import RunAnswerRecord, RunRecord


def run_order(run_id: int, question: Question) -> tuple[int, ...]:
    """A run's choice order, derived from the run so a resumed run shows the same buttons."""
    return choice_order(question, random.Random(f"run:{run_id}:{question.id}"))


@dataclass(frozen=True)
class RunStep:
    """The next question of a run."""

    run: RunRecord
    deck: Deck
    question: Question
    answered: int
    """How many of the deck's questions this run has answered so far."""
    locale: str
    resumed: bool = False

    @property
    def order(self) -> tuple[int, ...]:
        return run_order(self.run.id, self.question)

    @property
    def choices(self) -> list[ShownChoice]:
        return shown_choices(self.question, self.order)


@dataclass(frozen=True)
class Miss:
    question: Question
    choice: int
    order: tuple[int, ...]

    @property
    def letter(self) -> str:
        return letter_of(self.order, self.choice)

    @property
    def right_letter(self) -> str:
        return letter_of(self.order, self.question.answer)


@dataclass(frozen=True)
class RunSummary:
    deck: Deck
    score: int
    """Right answers in this run (practice included): shown as score/total."""
    total: int
    points: int
    """Leaderboard points this run earned (first meetings only)."""
    misses: list[Miss]
    locale: str


@dataclass(frozen=True)
class RunFeedback:
    """The reply to one answer in a run, and what comes next."""

    deck: Deck
    question: Question
    order: tuple[int, ...]
    answer: RunAnswerRecord
    duplicate: bool
    locale: str
    other_locale: str | None
    next: RunStep | None
    summary: RunSummary | None

    @property
    def correct(self) -> bool:
        return self.answer.correct

    @property
    def letter(self) -> str:
        return letter_of(self.order, self.answer.choice)

    @property
    def right_letter(self) -> str:
        return letter_of(self.order, self.question.answer)


def next_question(
    deck: Deck, answers: list[RunAnswerRecord], skip: Collection[str] = ()
) -> Question | None:
    """The first question of the deck not yet answered in the run, passing over `skip`
    (those open in a post of the server: fair play)."""
    done = {a.question_id for a in answers}
    return next((q for q in deck if q.id not in done and q.id not in skip), None)


def summarize(
    run: RunRecord, deck: Deck, answers: list[RunAnswerRecord], locale: str
) -> RunSummary:
    by_id = {a.question_id: a for a in answers}
    misses = [
        Miss(q, by_id[q.id].choice, run_order(run.id, q))
        for q in deck
        if q.id in by_id and not by_id[q.id].correct
    ]
    return RunSummary(
        deck=deck,
        score=sum(1 for a in answers if a.correct),
        total=len(deck),
        points=sum(a.points for a in answers),
        misses=misses,
        locale=locale,
    )
