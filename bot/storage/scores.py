"""Points kept as answers are stored: a scoring answer's six standings rows, and the score
counts that rank a user without counting everyone above them.

Standings rows belong to one user; score counts (how many users of a leaderboard stand at
each total) are shared by every user, so a transaction adds up its moves (`ScoreCounts`)
and writes them once, in key order, as its last statement.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Table, bindparam, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from bot.domain.scoring import boards
from bot.storage.compiled import Compiled
from bot.storage.tables import ALL_DECKS, score_counts, standings
from bot.storage.transactions import accumulate


def insert_for(conn: Connection, table: Table) -> sqlite.Insert | postgresql.Insert:
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


_ROW = ("server_id", "season", "period", "deck_key", "user_id", "points", "reached_at")
BOARDS = 6
"""A scoring answer's standings rows: week, month and all time, each for its deck and for all
decks."""


def _add_points_stmt(conn: Connection) -> Any:
    """One INSERT of the six rows as text, built once per dialect: SQLAlchemy renders a
    multi-row VALUES (or an executemany of RETURNING rows) afresh on every call, about 0.2 ms
    a right answer, where a text statement is compiled once."""
    stmt = _ADD_POINTS.get(conn.dialect.name)
    if stmt is None:
        greatest = "max" if conn.dialect.name == "sqlite" else "greatest"
        columns = ", ".join(_ROW)
        values = ", ".join(
            "(" + ", ".join(f":{name}_{i}" for name in _ROW) + ")" for i in range(BOARDS)
        )
        keys = ", ".join(c.name for c in standings.primary_key.columns)
        stmt = _ADD_POINTS[conn.dialect.name] = (
            text(
                f"INSERT INTO standings ({columns}) VALUES {values} "
                f"ON CONFLICT ({keys}) DO UPDATE SET "
                "points = standings.points + excluded.points, "
                f"reached_at = {greatest}(standings.reached_at, excluded.reached_at) "
                "RETURNING period, deck_key, points"
            )
            .bindparams(
                *(
                    bindparam(f"reached_at_{i}", type_=standings.c.reached_at.type)
                    for i in range(BOARDS)
                )
            )
            .columns(standings.c.period, standings.c.deck_key, standings.c.points)
        )
    return stmt


class _SqliteConnection:
    """Enough of a connection for `_add_points_stmt` to build SQLite's statement."""

    class dialect:
        name = "sqlite"


_SQLITE_ADD_POINTS = Compiled(_add_points_stmt(_SqliteConnection()))  # type: ignore[arg-type]


def _move_counts_stmt(conn: Connection) -> Any:
    stmt = _MOVE_COUNTS.get(conn.dialect.name)
    if stmt is None:
        counted = insert_for(conn, score_counts)
        stmt = _MOVE_COUNTS[conn.dialect.name] = counted.on_conflict_do_update(
            index_elements=list(score_counts.primary_key.columns),
            set_={"users": score_counts.c.users + counted.excluded.users},
        )
    return stmt


def add_points(conn: Connection, scored: Scored, zone: str) -> None:
    """Adds a scoring answer to its six standings rows (`bot.domain.scoring.boards`), in the
    transaction that stored it, and moves the user from their old total to the new one in
    that transaction's score counts."""
    params: dict[str, Any] = {}
    for i, (period, deck) in enumerate(boards(scored.at, zone, scored.deck_id)):
        params.update(
            {
                f"server_id_{i}": scored.server_id,
                f"season_{i}": scored.season,
                f"period_{i}": period,
                f"deck_key_{i}": ALL_DECKS if deck is None else deck,
                f"user_id_{i}": scored.user_id,
                f"points_{i}": scored.points,
                f"reached_at_{i}": scored.at,
            }
        )
    counts = accumulate(conn, ScoreCounts)
    totals: Sequence[Any]
    if conn.dialect.name == "sqlite":
        totals = _SQLITE_ADD_POINTS.all(conn, params)
    else:
        totals = conn.execute(_add_points_stmt(conn), params).all()
    for period, deck, total in totals:
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

    def leave(self, board: tuple[str, int, str, str], points: int) -> None:
        """A user standing at `points` on `board` is gone (forgotten)."""
        self._users[(*board, points)] -= 1

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
