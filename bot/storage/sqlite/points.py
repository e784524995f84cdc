"""SQLite: standings rows and score counts, written at the transaction's end.

The writer thread gives up the GIL on every step of a statement and waits for it back
behind the event loop; in a burst that wait was most of a click's write. So a transaction's
standings additions are summed (`PendingPoints`) and written as its last statements, a
hundred rows each, instead of one statement per scoring answer.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy.engine import Connection

from bot.storage.scores import ROW, ScoreCounts, Scored
from bot.storage.sqlite import compiled
from bot.storage.sqlite.compiled import bind
from bot.storage.tables import score_counts, standings
from bot.storage.transactions import accumulate


class SqliteScoreCounts(ScoreCounts):
    def write(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        compiled.add_counts(conn, "score_counts", _COUNT_KEYS, rows)


class PendingPoints:
    """A transaction's standings additions, written as its last statements.

    A person has one click in flight at a time (`bot.service.admission`), so nothing in the
    transaction reads a row added here before it is written (what would, writes it first:
    `Sqlite.pending_written`). Score counts move from the rows' points, read with one
    statement before the upsert (the transaction holds the write lock, so nothing moves them
    in between)."""

    ROWS = 100
    """Rows a statement: 700 parameters, inside every SQLite's limit."""
    FEEDS = True
    """Flushed before the score counts it moves (`transactions._flush`)."""

    def __init__(self) -> None:
        self._added: dict[tuple[str, int, str, str, str], list[Any]] = {}
        """(server, season, period, deck key, user) -> [points, reached_at]."""

    def add(self, scored: Scored, zone: str) -> None:
        for server, season, period, deck, user, points, at in scored.rows(zone):
            key = (server, season, period, deck, user)
            row = self._added.get(key)
            if row is None:
                self._added[key] = [points, at]
            else:
                row[0] += points
                row[1] = max(row[1], at)

    def flush(self, conn: Connection) -> None:
        keys = sorted(self._added)
        counts = accumulate(conn, SqliteScoreCounts)
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for chunk in compiled.pieces(keys, self.ROWS):
                had = {
                    (server, int(season), period, deck, user): int(points)
                    for server, season, period, deck, user, points in compiled.json_rows(
                        cursor,
                        _points_of(len(chunk)),
                        _KEYED_POINTS,
                        [value for key in chunk for value in key],
                    )
                }
                args = [bind(value) for key in chunk for value in (*key, *self._added[key])]
                compiled.run(cursor, _add_points(len(chunk)), args)
                for key in chunk:
                    was = had.get(key, 0)
                    counts.move(key[:4], was, was + self._added[key][0])
        finally:
            cursor.close()
        self._added.clear()


_KEYS = tuple(c.name for c in standings.primary_key.columns)
_KEYED_POINTS = (*_KEYS, "points")
_COUNT_KEYS = tuple(c.name for c in score_counts.primary_key.columns)


@lru_cache(maxsize=8)
def _points_of(rows: int) -> str:
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
def _add_points(rows: int) -> str:
    """SQLite's upsert of `rows` standings rows."""
    values = compiled.values(len(ROW), rows)
    return (
        f"INSERT INTO standings ({', '.join(ROW)}) VALUES {values} "
        f"ON CONFLICT ({', '.join(_KEYS)}) DO UPDATE SET "
        "points = standings.points + excluded.points, "
        "reached_at = max(standings.reached_at, excluded.reached_at)"
    )
