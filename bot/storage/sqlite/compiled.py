"""Statements compiled once and run on SQLite's own cursor, for a click's write.

In a burst, a click's few statements cost SQLite about 20 µs and SQLAlchemy's per-execution
bookkeeping (parameters, execution context, result proxy) several times that, in the writer
thread that shares the GIL with the event loop answering the clicks. These run the SQL that
SQLAlchemy compiled from the same statement objects, once, with the same values bound.
"""

from __future__ import annotations

import functools
import json
from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, TypeVar

from sqlalchemy import ClauseElement
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Connection

_DIALECT = sqlite.dialect()
T = TypeVar("T")


def bind(value: Any) -> Any:
    """A value as SQLAlchemy binds it on SQLite (see `tables.UtcDateTime`)."""
    kind = type(value)
    if kind is str or kind is int or value is None:  # most of a click's values: as they are
        return value
    if isinstance(value, datetime):
        return _bound_time(value)
    if isinstance(value, bool):
        return int(value)
    return value


@lru_cache(maxsize=1024)
def _bound_time(value: datetime) -> str:
    """A datetime as stored, worked out once per moment: a click's time is bound for each
    of the eight or so rows it writes (its answer, first meeting, standings, card), and a
    transaction's standings rows come sorted by board, not by click. Equal moments in
    different zones are equal keys, and are stored as the same UTC text."""
    if value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: the store takes aware datetimes only")
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def utc(value: str | None) -> datetime | None:
    """A stored UTC datetime read back, aware."""
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


def run(cursor: Any, sql: str, args: Sequence[Any]) -> Any:
    """Where every statement of a click's write on SQLite is run (the compiled ones and the
    many-row ones), on the driver's `cursor`: the cursor, with its rows."""
    cursor.execute(sql, args)
    return cursor


def json_rows(cursor: Any, sql: str, columns: Sequence[str], args: Sequence[Any]) -> list[Any]:
    """The rows (`columns` of each) of the query `sql`, read as one row holding a JSON
    array: the driver gives up the GIL on every step of a statement, and in a burst each
    step waited for it back behind the event loop; this is one step whatever the rows."""
    each = ", ".join(columns)
    found = run(cursor, f"SELECT json_group_array(json_array({each})) FROM ({sql})", args)
    (rows,) = found.fetchone()
    return list(json.loads(rows))


def pieces(rows: Sequence[T], most: int) -> Iterator[Sequence[T]]:
    """`rows` in pieces of `most`, then of powers of two (64, 32, ..., 1): a many-row
    statement is prepared for a handful of row counts, not for each of 1 to `most`. The
    SQLite driver keeps 128 prepared statements a connection, and one of 90 rows holds tens
    of KB in SQLite: with a statement for every count, a long run's connections filled
    their caches with them (some 20 MB)."""
    start, left = 0, len(rows)
    while left:
        size = most if left >= most else 1 << (left.bit_length() - 1)
        yield rows[start : start + size]
        start, left = start + size, left - size


def values(width: int, rows: int) -> str:
    """The placeholders of a many-row VALUES: `rows` rows of `width`."""
    one = "(" + ", ".join(["?"] * width) + ")"
    return ", ".join([one] * rows)


def run_rows(
    conn: Connection,
    sql_for: Callable[[int], str],
    columns: Sequence[str],
    rows: Sequence[Mapping[str, Any]],
) -> None:
    """SQLite: `rows` written by the statement `sql_for(n)` of n rows (their `columns`
    bound in order), ninety rows a statement: at most 900 parameters for up to ten columns,
    inside every SQLite's limit; one step a statement, where an executemany steps (and
    gives up the GIL) once a row."""
    if not rows:
        return
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        for some in pieces(rows, 90):
            run(cursor, sql_for(len(some)), [bind(row[c]) for row in some for c in columns])
    finally:
        cursor.close()


def add_counts(
    conn: Connection, table: str, keys: tuple[str, ...], rows: list[dict[str, Any]]
) -> None:
    """SQLite: `rows` (`keys` and `users`) added to `table`'s `users` counts."""
    run_rows(conn, functools.partial(_counts_sql, table, keys), (*keys, "users"), rows)


@lru_cache(maxsize=16)
def _counts_sql(table: str, keys: tuple[str, ...], rows: int) -> str:
    named = ", ".join(keys)
    return (
        f"INSERT INTO {table} ({named}, users) VALUES {values(len(keys) + 1, rows)} "
        f"ON CONFLICT ({named}) DO UPDATE SET users = {table}.users + excluded.users"
    )


class Compiled:
    """One statement for SQLite: its SQL, its parameters in order, and the rows it gives as
    named tuples (the columns by name, as SQLAlchemy rows read)."""

    def __init__(self, stmt: ClauseElement) -> None:
        compiled = stmt.compile(dialect=_DIALECT)
        self.sql = str(compiled)
        self.names: Sequence[str] = getattr(compiled, "positiontup", None) or ()
        self.fixed = {k: v for k, v in compiled.params.items() if v is not None}
        self._row: Any = None

    def execute(self, conn: Connection, params: Mapping[str, Any]) -> Any:
        """The cursor after running with `params` (names as in the statement)."""
        fixed = self.fixed
        args = [bind(params.get(n, fixed.get(n))) for n in self.names]
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        return run(cursor, self.sql, args)

    def first(self, conn: Connection, params: Mapping[str, Any]) -> Any:
        cursor = self.execute(conn, params)
        try:
            row = cursor.fetchone()
            if row is None:
                return None
            return self._rows(cursor)(*row)
        finally:
            cursor.close()

    def all(self, conn: Connection, params: Mapping[str, Any]) -> list[Any]:
        cursor = self.execute(conn, params)
        try:
            rows = cursor.fetchall()
            make = self._rows(cursor)
            return [make(*row) for row in rows]
        finally:
            cursor.close()

    def scalar(self, conn: Connection, params: Mapping[str, Any]) -> Any:
        cursor = self.execute(conn, params)
        try:
            row = cursor.fetchone()
            return None if row is None else row[0]
        finally:
            cursor.close()

    def _rows(self, cursor: Any) -> Any:
        if self._row is None:
            self._row = namedtuple("Row", [d[0] for d in cursor.description])  # type: ignore[misc]
        return self._row
