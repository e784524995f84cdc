"""Points kept as answers are stored: a scoring answer's six standings rows, and the score
counts that rank a user without counting everyone above them.

Standings rows belong to one user; score counts (how many users of a leaderboard stand at
each total) are shared by every user, so a transaction adds up its moves (`ScoreCounts`)
and writes them once, in key order, as its last statement.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Insert, Table, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from bot.core.leaderboard import answer_keys
from bot.storage.tables import ALL_DECKS, score_counts, standings
from bot.storage.transactions import accumulate


def insert_for(conn: Connection, table: Table) -> Insert:
    """The dialect's INSERT, which knows ON CONFLICT."""
    if conn.dialect.name == "sqlite":
        return sqlite.insert(table)
    return postgresql.insert(table)


@dataclass(frozen=True)
class Scored:
    """A stored answer that scored: who, where, how much, and when."""

    server_id: str
    season: int
    deck_id: str
    user_id: str
    points: int
    at: datetime


_ADD_POINTS: dict[str, Any] = {}
_MOVE_COUNTS: dict[str, Any] = {}


def _add_points_stmt(conn: Connection) -> Any:
    """Built once per dialect: building a statement costs more than running it."""
    stmt = _ADD_POINTS.get(conn.dialect.name)
    if stmt is None:
        greatest = func.max if conn.dialect.name == "sqlite" else func.greatest
        upsert = insert_for(conn, standings)
        stmt = _ADD_POINTS[conn.dialect.name] = upsert.on_conflict_do_update(  # type: ignore[attr-defined]
            index_elements=list(standings.primary_key.columns),
            set_={
                "points": standings.c.points + upsert.excluded.points,  # type: ignore[attr-defined]
                "reached_at": greatest(standings.c.reached_at, upsert.excluded.reached_at),  # type: ignore[attr-defined]
            },
        ).returning(standings.c.period, standings.c.deck_key, standings.c.points)
    return stmt


def _move_counts_stmt(conn: Connection) -> Any:
    stmt = _MOVE_COUNTS.get(conn.dialect.name)
    if stmt is None:
        counted = insert_for(conn, score_counts)
        stmt = _MOVE_COUNTS[conn.dialect.name] = counted.on_conflict_do_update(  # type: ignore[attr-defined]
            index_elements=list(score_counts.primary_key.columns),
            set_={"users": score_counts.c.users + counted.excluded.users},  # type: ignore[attr-defined]
        )
    return stmt


def add_points(conn: Connection, scored: Scored, zone: str) -> None:
    """Adds a scoring answer to its six standings rows (week, month and all time, each for
    its deck and for all decks), in the transaction that stored it, and moves the user from
    their old total to the new one in that transaction's score counts."""
    rows = [
        {
            "server_id": scored.server_id,
            "season": scored.season,
            "period": period,
            "deck_key": deck,
            "user_id": scored.user_id,
            "points": scored.points,
            "reached_at": scored.at,
        }
        for period in answer_keys(scored.at, zone)
        for deck in (scored.deck_id, ALL_DECKS)
    ]
    counts = accumulate(conn, ScoreCounts)
    for period, deck, total in conn.execute(_add_points_stmt(conn), rows).all():
        board = (scored.server_id, scored.season, period, deck)
        counts.move(board, total - scored.points, total)


class ScoreCounts:
    """One transaction's score count moves, summed per (leaderboard, total)."""

    def __init__(self) -> None:
        self._users: defaultdict[tuple[Any, ...], int] = defaultdict(int)

    def move(self, board: tuple[str, int, str, str], old: int, new: int) -> None:
        """A user on `board` went from `old` points to `new` (a total of 0 is not counted)."""
        self._users[(*board, new)] += 1
        if old > 0:
            self._users[(*board, old)] -= 1

    def flush(self, conn: Connection) -> None:
        rows = [
            {
                "server_id": server_id,
                "season": season,
                "period": period,
                "deck_key": deck,
                "points": points,
                "users": users,
            }
            for (server_id, season, period, deck, points), users in sorted(self._users.items())
            if users
        ]
        self._users.clear()
        if rows:
            conn.execute(_move_counts_stmt(conn), rows)
