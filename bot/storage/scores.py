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
from functools import lru_cache
from typing import Any

from sqlalchemy import Table, bindparam, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from bot.domain.scoring import boards
from bot.storage import compiled
from bot.storage.compiled import bind
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
    that transaction's score counts (on SQLite at the transaction's end: `PendingPoints`)."""
    if conn.dialect.name == "sqlite":
        accumulate(conn, PendingPoints).add(scored, zone)
        return
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
    totals: Sequence[Any] = conn.execute(_add_points_stmt(conn), params).all()
    for period, deck, total in totals:
        board = (scored.server_id, scored.season, period, deck)
        counts.move(board, total - scored.points, total)


class PendingPoints:
    """SQLite: a transaction's standings additions, written as its last statements, a
    hundred rows each, instead of one statement per scoring answer.

    On SQLite the writer thread gives up the GIL on every step of a statement and waits
    for it back behind the event loop; in a burst that wait was most of a click's write. A
    person has one click in flight at a time (`bot.service.admission`), so nothing in the
    transaction reads a row added here before it is written. Score counts move from the
    rows' points, read with one statement before the upsert (the transaction holds the
    write lock, so nothing moves them in between)."""

    ROWS = 100
    """Rows a statement: 700 parameters, inside every SQLite's limit."""
    FEEDS = True
    """Flushed before the score counts it moves (`transactions._flush`)."""

    def __init__(self) -> None:
        self._added: dict[tuple[str, int, str, str, str], list[Any]] = {}
        """(server, season, period, deck key, user) -> [points, reached_at]."""

    def add(self, scored: Scored, zone: str) -> None:
        for period, deck in boards(scored.at, zone, scored.deck_id):
            key = (
                scored.server_id,
                scored.season,
                period,
                ALL_DECKS if deck is None else deck,
                scored.user_id,
            )
            row = self._added.get(key)
            if row is None:
                self._added[key] = [scored.points, scored.at]
            else:
                row[0] += scored.points
                row[1] = max(row[1], scored.at)

    def flush(self, conn: Connection) -> None:
        keys = sorted(self._added)
        counts = accumulate(conn, ScoreCounts)
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for chunk in compiled.pieces(keys, self.ROWS):
                had = {
                    (server, int(season), period, deck, user): int(points)
                    for server, season, period, deck, user, points in compiled.json_rows(
                        cursor,
                        _sqlite_points_of(len(chunk)),
                        _KEYED_POINTS,
                        [value for key in chunk for value in key],
                    )
                }
                args = [bind(value) for key in chunk for value in (*key, *self._added[key])]
                compiled.run(cursor, _sqlite_add_points(len(chunk)), args)
                for key in chunk:
                    was = had.get(key, 0)
                    counts.move(key[:4], was, was + self._added[key][0])
        finally:
            cursor.close()
        self._added.clear()


_KEYS = tuple(c.name for c in standings.primary_key.columns)
_KEYED_POINTS = (*_KEYS, "points")


@lru_cache(maxsize=8)
def _sqlite_points_of(rows: int) -> str:
    """The points of `rows` standings rows (by key), each found by the primary key."""
    values = compiled.values(len(_KEYS), rows)
    wanted = ", ".join(f"w{i}" for i in range(len(_KEYS)))
    joined = " AND ".join(f"standings.{key} = wanted.w{i}" for i, key in enumerate(_KEYS))
    return (
        f"WITH wanted({wanted}) AS (VALUES {values}) "
        f"SELECT {', '.join(f'standings.{c}' for c in _KEYED_POINTS)} "
        f"FROM wanted JOIN standings ON {joined}"
    )


@lru_cache(maxsize=8)
def _sqlite_add_points(rows: int) -> str:
    """SQLite's upsert of `rows` standings rows."""
    values = compiled.values(len(_ROW), rows)
    return (
        f"INSERT INTO standings ({', '.join(_ROW)}) VALUES {values} "
        f"ON CONFLICT ({', '.join(_KEYS)}) DO UPDATE SET "
        "points = standings.points + excluded.points, "
        "reached_at = max(standings.reached_at, excluded.reached_at)"
    )


_COUNT_KEYS = tuple(c.name for c in score_counts.primary_key.columns)


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
        if rows and conn.dialect.name == "sqlite":
            compiled.add_counts(conn, "score_counts", _COUNT_KEYS, rows)
        elif rows:
            conn.execute(_move_counts_stmt(conn), rows)
