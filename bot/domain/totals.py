"""A user's totals and streak: the arithmetic, written once.

The SQL store reads both with aggregates over its indexes and works a click's new values out
with `after_answer` (no second read on the click path); the in-memory store counts with
`totals_of` and `streak_of`. The contract suite holds every store to the same figures.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from bot.domain.records import Player, Totals


def counted(totals: Totals, correct: bool, points: int) -> Totals:
    """`totals` with one more answer: wrong answers count as answered, never as points."""
    return Totals(totals.answered + 1, totals.correct + int(correct), totals.points + points)


def totals_of(answers: Iterable[tuple[bool, int]]) -> Totals:
    """The totals of (correct, points) answers."""
    totals = Totals()
    for correct, points in answers:
        totals = counted(totals, correct, points)
    return totals


@dataclass(frozen=True)
class DailyPost:
    """A scheduled post of a server, as one user's streak sees it."""

    open: bool
    answered: bool
    """By this user, right or wrong: a wrong answer keeps the streak."""


def streak_of(newest_first: Iterable[DailyPost]) -> int:
    """The user's answered scheduled posts, newest first, up to the first one they missed.

    The newest post, while open and unanswered, is not missed yet (today's question may
    still be answered); an older open one is. Days with no post break nothing."""
    streak = 0
    for i, post in enumerate(newest_first):
        if post.answered:
            streak += 1
        elif not (i == 0 and post.open):
            break
    return streak


def after_answer(
    before: Player,
    *,
    season: int,
    scheduled: bool,
    newest_scheduled: bool,
    correct: bool,
    points: int,
) -> Player | None:
    """`before` once a new answer to a post of `season` counts; None when only a read can
    tell (an older scheduled post, still open beside a newer one, was answered: the streak's
    last miss may move).

    A post from before a reset counts in its own season, not in the one `before` shows; an
    answer to the newest scheduled post adds one to the streak (it could not be a miss)."""
    if scheduled and not newest_scheduled:
        return None
    totals = before.totals
    if season == before.server.season:
        totals = counted(totals, correct, points)
    return replace(before, totals=totals, streak=before.streak + int(scheduled))
