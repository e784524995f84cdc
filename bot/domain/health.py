"""Question health for deck authors: which questions teach and which fail to.

Each person's first try at a question is what counts (later tries are practice, and a run
replayed can be right by memory). Per question: how many answered, the share right, how
often each wrong choice was picked, and a discrimination index: the share right among the
top 27% of players (by their accuracy over every question in the report) minus the share
among the bottom 27% (Kelley's groups). A question that strong players miss more often than
weak ones (negative) usually has a wrong key or a misleading choice.

The flags follow what quiz makers aim for (Water Cooler Trivia aims at about 70% right and
treats 0% or 100% as failed): too easy, too hard, a wrong choice nobody picks (it does not
distract, so the question is easier than it looks), negative discrimination.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import Enum
from typing import Any

from bot.decks.model import Deck
from bot.domain.problems import ProblemReport

TOO_EASY = 0.95
TOO_HARD = 0.20
GROUP = 0.27
"""Kelley's top and bottom groups: 27% of the players each."""
ENOUGH = 10
"""The one minimum sample of every flag: a question is flagged too easy or too hard after 10
first tries, for a wrong choice nobody picked after 10 wrong first tries, and for negative
discrimination after 10 first tries in each of the top and bottom groups. With fewer, a
share, an empty choice or a sign says little."""
NEGATIVE = -0.05
"""Discrimination below this is flagged: a hair under zero is noise on an easy question."""


class Flag(Enum):
    TOO_EASY = "too easy"
    TOO_HARD = "too hard"
    DEAD_CHOICE = "a wrong choice nobody picks"
    NEGATIVE = "negative discrimination"
    REPORTED = "reported by players"


@dataclass(frozen=True)
class Try:
    """One stored answer, as the report reads it."""

    user_id: str
    deck_id: str
    question_id: str
    choice: int
    correct: bool
    at: datetime


@dataclass(frozen=True)
class QuestionHealth:
    deck_id: str
    question_id: str
    answered: int
    """People who tried it (their first try counts)."""
    right: float
    """The share of first tries that were right, 0 to 1."""
    picks: dict[int, int]
    """First tries per choice (index as written in the deck)."""
    discrimination: float | None
    """Top group's share right minus the bottom group's; None when either group has no one
    who tried this question."""
    flags: tuple[Flag, ...] = field(default=())
    reports: int = 0
    """Problem reports players sent about it ("Report a problem")."""


@dataclass(frozen=True)
class HealthView:
    """A deck's question health in one server, with the problem reports about it, for an
    admin in chat."""

    deck: Deck
    rows: list[QuestionHealth]
    reports: Sequence[ProblemReport]
    locale: str


def first_tries(answers: Iterable[Try]) -> list[Try]:
    """Each person's earliest answer to each question."""
    first: dict[tuple[str, str, str], Try] = {}
    for a in sorted(answers, key=lambda a: a.at):
        first.setdefault((a.user_id, a.deck_id, a.question_id), a)
    return list(first.values())


@dataclass(frozen=True)
class QuestionTally:
    """A question's first tries, counted: all that its health row is worked out from, so a
    store can count them where the answers are (`Standings.question_tallies`) and send a
    few numbers per question instead of every answer."""

    deck_id: str
    question_id: str
    picks: dict[int, int]
    """First tries per choice (index as written in the deck); only choices picked."""
    right: int
    top: tuple[int, int]
    """(first tries, right ones) of players in the top group."""
    bottom: tuple[int, int]
    """The same of the bottom group."""


def group_size(players: int) -> int:
    """Players in each of the top and bottom groups (Kelley's 27%), of `players`."""
    return max(1, round(players * GROUP)) if players >= 2 else 0


def tallies(answers: Iterable[Try]) -> list[QuestionTally]:
    """Every answer counted into one tally per question answered (first tries only)."""
    tries = first_tries(answers)
    top, bottom = _groups(tries)
    counts: defaultdict[tuple[str, str], list[Any]] = defaultdict(
        lambda: [Counter[int](), 0, 0, 0, 0, 0]
    )
    for t in tries:
        row = counts[(t.deck_id, t.question_id)]
        row[0][t.choice] += 1
        row[1] += t.correct
        if t.user_id in top:
            row[2] += 1
            row[3] += t.correct
        if t.user_id in bottom:
            row[4] += 1
            row[5] += t.correct
    return [
        QuestionTally(deck, question, dict(picks), right, (tn, tr), (bn, br))
        for (deck, question), (picks, right, tn, tr, bn, br) in counts.items()
    ]


def health(
    answers: Iterable[Try],
    questions: dict[tuple[str, str], tuple[int, int]],
    reported: Iterable[tuple[str, str]] = (),
) -> list[QuestionHealth]:
    """Per question of `questions` ((deck, question) -> (how many choices, the right one's
    index)), in that order, from every answer; `reported`: the (deck, question) of each
    problem report."""
    return health_of(tallies(answers), questions, reported)


def health_of(
    counted: Iterable[QuestionTally],
    questions: dict[tuple[str, str], tuple[int, int]],
    reported: Iterable[tuple[str, str]] = (),
) -> list[QuestionHealth]:
    """`health` from the questions' tallies."""
    reports = Counter(reported)
    by_question = {(t.deck_id, t.question_id): t for t in counted}
    report = []
    for key, (count, answer) in questions.items():
        tally = by_question.get(key) or QuestionTally(key[0], key[1], {}, 0, (0, 0), (0, 0))
        row = _one(key, count, answer, tally)
        if reports[key]:
            row = replace(row, flags=(*row.flags, Flag.REPORTED), reports=reports[key])
        report.append(row)
    return report


def _groups(tries: Sequence[Try]) -> tuple[set[str], set[str]]:
    """The top and bottom 27% of players by accuracy over every first try (ties broken by
    user id, so the groups do not depend on the order answers were read)."""
    right: defaultdict[str, list[bool]] = defaultdict(list)
    for t in tries:
        right[t.user_id].append(t.correct)
    ranked = sorted(right, key=lambda u: (sum(right[u]) / len(right[u]), u))
    size = group_size(len(ranked))
    return set(ranked[len(ranked) - size :]) if size else set(), set(ranked[:size])


def _share(tried: int, right: int) -> float | None:
    return right / tried if tried else None


def _one(key: tuple[str, str], count: int, answer: int, tally: QuestionTally) -> QuestionHealth:
    picks = {index: 0 for index in range(count)}
    for choice, n in sorted(tally.picks.items()):
        picks[choice] = picks.get(choice, 0) + n
    answered = sum(tally.picks.values())
    right = _share(answered, tally.right) or 0.0
    high = _share(*tally.top)
    low = _share(*tally.bottom)
    discrimination = None if high is None or low is None else high - low
    flags: list[Flag] = []
    if answered >= ENOUGH and right >= TOO_EASY:
        flags.append(Flag.TOO_EASY)
    if answered >= ENOUGH and right <= TOO_HARD:
        flags.append(Flag.TOO_HARD)
    if answered - tally.right >= ENOUGH and any(picks[i] == 0 for i in range(count) if i != answer):
        flags.append(Flag.DEAD_CHOICE)
    in_top, in_bottom = tally.top[0], tally.bottom[0]
    if (
        discrimination is not None
        and discrimination < NEGATIVE
        and min(in_top, in_bottom) >= ENOUGH
    ):
        flags.append(Flag.NEGATIVE)
    return QuestionHealth(key[0], key[1], answered, right, picks, discrimination, tuple(flags))
