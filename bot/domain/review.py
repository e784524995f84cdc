"""Review of misses, spaced over days (Leitner boxes), and mastery.

Nothing here is stored as state: a person's cards are worked out from what they did, in
time order. A wrong answer in a post or a run puts the question in review, due at once; each
right answer in review moves it up a box and it comes back after that box's interval (1, 3,
7, 16, then 35 days); a miss in review sends it back to the first box (due the next day).
Right once more after the last box, it has graduated and is due no more. Days are calendar
days in the server's time zone, so "tomorrow" is tomorrow whether or not the clocks changed
overnight.

Deriving the cards keeps the click path as it was (a miss is the stored answer itself, so a
crash can never lose one from review) and makes `quizbot forget` and season resets need
nothing new. Mastery: a question is mastered when the person's answers to it were right with
no miss, or, after a miss, once it has been answered right in review since.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from enum import Enum
from zoneinfo import ZoneInfo

from bot.decks.model import Deck, Question
from bot.domain.post import ShownChoice, choice_order, letter_of, shown_choices

INTERVALS = (1, 3, 7, 16, 35)
"""Days until a card comes back after 1, 2, ... right answers in a row in review."""
AGAIN_AFTER = INTERVALS[0]
"""Days until a card missed in review comes back: the first box."""


class Source(Enum):
    PLAY = "play"
    """An answer in a post or a run: a miss puts the question in review."""
    REVIEW = "review"


@dataclass(frozen=True)
class Study:
    """One answer of a person to a question, as review and mastery read it."""

    user_id: str
    deck_id: str
    question_id: str
    correct: bool
    at: datetime
    source: Source


@dataclass(frozen=True)
class Card:
    """One question in a person's review, or one they have answered at all."""

    deck_id: str
    question_id: str
    missed: bool
    """Ever answered wrong outside review: in review since."""
    box: int
    """Right answers in review in a row since the last miss (0 after a miss)."""
    due: date | None
    """The local date from which it is due; None if not in review or graduated."""
    reviews: int
    """Answers given in review, ever: the next one's number (two clicks on one shown review
    question store one answer)."""
    right: bool
    """Answered right outside review at least once."""

    @classmethod
    def new(cls, deck_id: str, question_id: str) -> Card:
        """The card of a question the person has not answered yet."""
        return cls(deck_id, question_id, False, 0, None, 0, False)

    def is_due(self, today: date) -> bool:
        return self.due is not None and self.due <= today

    @property
    def mastered(self) -> bool:
        if self.missed:
            return self.box >= 1
        return self.right

    @property
    def key(self) -> str:
        return card_key(self.deck_id, self.question_id)


def card_key(deck_id: str, question_id: str) -> str:
    """A short, stable name for (deck, question) that fits in a Discord custom_id
    (100 characters) whatever the ids' lengths."""
    digest = hashlib.blake2s(f"{deck_id}\0{question_id}".encode(), digest_size=6)
    return digest.hexdigest()


def local_day(at: datetime, zone: str) -> date:
    return at.astimezone(ZoneInfo(zone)).date()


def cards_of(studies: Iterable[Study], zone: str) -> dict[tuple[str, str], Card]:
    """One person's cards from their answers (in any order), keyed by (deck, question)."""
    cards: dict[tuple[str, str], Card] = {}
    for s in sorted(studies, key=lambda s: s.at):
        key = (s.deck_id, s.question_id)
        card = cards.get(key) or Card.new(s.deck_id, s.question_id)
        cards[key] = after_study(card, s, local_day(s.at, zone))
    return cards


def after_study(card: Card, s: Study, day: date) -> Card:
    """The card after one more answer, given on local date `day`."""
    if s.source is Source.PLAY:
        if s.correct:
            return replace(card, right=True)
        return replace(card, missed=True, box=0, due=day)
    reviews = card.reviews + 1
    if not card.missed:  # a review answer with no miss before it: nothing to schedule
        return replace(card, reviews=reviews)
    if not s.correct:
        return replace(card, box=0, due=day + timedelta(days=AGAIN_AFTER), reviews=reviews)
    box = card.box + 1
    due = day + timedelta(days=INTERVALS[box - 1]) if box <= len(INTERVALS) else None
    return replace(card, box=box, due=due, reviews=reviews)


def due_cards(cards: Iterable[Card], today: date) -> list[Card]:
    """Cards due today, the longest overdue first (then in deck order of their ids)."""
    due = [c for c in cards if c.is_due(today)]
    return sorted(due, key=lambda c: (c.due or today, c.deck_id, c.question_id))


def next_due(cards: Iterable[Card], today: date) -> date | None:
    """The first day after today on which some card falls due."""
    later = [c.due for c in cards if c.due is not None and c.due > today]
    return min(later) if later else None


def review_order(user_id: str, card: Card, question: Question, number: int) -> tuple[int, ...]:
    """The choice order of review answer `number` to a card: fixed for the number, so the
    buttons shown and the click read back agree, and new for each review (no answer can be
    learnt by its position)."""
    seed = f"review:{user_id}:{card.deck_id}:{card.question_id}:{number}"
    return choice_order(question, random.Random(seed))


@dataclass(frozen=True)
class ReviewStep:
    """A due question, shown privately."""

    deck: Deck
    question: Question
    card: Card
    order: tuple[int, ...]
    due: int
    """Questions due now, this one included."""
    locale: str
    tag: str | None = None
    """The topic this review keeps to (from the weakest-topic button), if any."""

    @property
    def number(self) -> int:
        return self.card.reviews

    @property
    def choices(self) -> list[ShownChoice]:
        return shown_choices(self.question, self.order)


@dataclass(frozen=True)
class ReviewDone:
    """Nothing (more) due: when the next question falls due, if one will."""

    next_due: date | None
    today: date
    locale: str
    tag: str | None = None


@dataclass(frozen=True)
class ReviewFeedback:
    """The reply to one review answer, and what comes next."""

    deck: Deck
    question: Question
    order: tuple[int, ...]
    choice: int | None
    """The choice clicked; None for a repeat click (its first answer stands)."""
    duplicate: bool
    card: Card
    """The card after this answer."""
    today: date
    locale: str
    other_locale: str | None
    next: ReviewStep | ReviewDone

    @property
    def correct(self) -> bool:
        return self.choice == self.question.answer

    @property
    def letter(self) -> str | None:
        return None if self.choice is None else letter_of(self.order, self.choice)

    @property
    def right_letter(self) -> str:
        return letter_of(self.order, self.question.answer)

    @property
    def days(self) -> int | None:
        """Days until the question comes back; None once graduated."""
        return None if self.card.due is None else (self.card.due - self.today).days
