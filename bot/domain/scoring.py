"""Points: what an answer scores, the leaderboards it counts in, and how users rank.

Stores keep what these decide: they call them with what they read, so a rule changes here
alone. The one exception is PostgreSQL's one-statement click, which says `kept` in SQL for
speed; a property test (tests/storage/test_store_kept.py) holds it to `kept`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime

from bot.domain.answer import points_for
from bot.domain.leaderboard import answer_keys
from bot.domain.records import Standing
from bot.domain.review import Card, Study, after_study


def meeting_points(correct: bool, first_meeting: bool) -> int:
    """An answer, to a post or in a run, scores only at the user's first meeting with the
    question in this server and season (right or wrong; having closed its post counts too):
    later answers are practice, so repeating a question cannot climb the leaderboard."""
    return points_for(correct) if first_meeting else 0


@dataclass(frozen=True)
class Kept:
    """What storing one answer to a post or in a run does to its person."""

    points: int
    """What it scores."""
    card: Card
    """Their card for its question after it."""


def kept(study: Study, offered: int, first_meeting: bool, card: Card, day: date) -> Kept:
    """The rule every store applies to an answer it stores (to a post or in a run): it scores
    the `offered` points (`bot.domain.answer.points_for`, decided by the service) only at the
    person's first meeting with the question in this server and season, and it moves their
    `card` by `after_study` on their local `day` whatever it scores.

    The SQLite click write, runs on both databases and the memory store call it; the
    PostgreSQL click statement says it in SQL (`bot.storage.postgres.click`)."""
    return Kept(offered if first_meeting else 0, after_study(card, study, day))


def boards(at: datetime, zone: str, deck_id: str) -> list[tuple[str, str | None]]:
    """The (period key, deck) leaderboards a scoring answer given at `at` adds to: week,
    month and all time in the server's zone of that moment, each for its deck and for all
    decks (None)."""
    return [(period, deck) for period in answer_keys(at, zone) for deck in (deck_id, None)]


def ranked(points: Iterable[tuple[str, int, datetime]]) -> list[Standing]:
    """(user, points, reached_at) as a leaderboard: users with points only, by points desc,
    then whoever reached them first, then user id; ties share a rank (1, 1, 3)."""
    rows = sorted((p for p in points if p[1] > 0), key=lambda p: (-p[1], p[2], p[0]))
    standings: list[Standing] = []
    for i, (user_id, total, reached_at) in enumerate(rows):
        tied = bool(standings) and standings[-1].points == total
        rank = standings[-1].rank if tied else i + 1
        standings.append(Standing(user_id, total, reached_at, rank))
    return standings
