"""Points: what an answer scores, the leaderboards it counts in, and how users rank.

Stores keep what these decide: they call them with what they read (or, on PostgreSQL's
one-statement click, pass in what the service decided), so a rule changes here alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bot.domain.answer import points_for
from bot.domain.leaderboard import answer_keys
from bot.domain.records import Standing


def meeting_points(correct: bool, first_meeting: bool) -> int:
    """An answer, to a post or in a run, scores only at the user's first meeting with the
    question in this server and season (right or wrong; having closed its post counts too):
    later answers are practice, so repeating a question cannot climb the leaderboard."""
    return points_for(correct) if first_meeting else 0


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
