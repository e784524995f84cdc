"""What the SQL store's aggregates share: the transactions and the one-statement shapes.

Each aggregate (`servers`, `posts`, `runs`, `standings`, `schedules`) is a mixin of
`bot.storage.sql.SqlStore`, which sets `_tx` and `_sql` (the database's `Dialect`) once for
all of them. A method
builds its statements and runs them as one function of a sync connection (see
`bot.storage.transactions`): one transaction, one hop.

The decisions that must hold under concurrent callers (first click stands, first meeting
scores, one closer wins, one active run, one slot claim) are each made by a statement only
one caller can win: an INSERT ... ON CONFLICT DO NOTHING against a unique key, or an
UPDATE ... WHERE still-open; never a plain read followed by a write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Executable, Table
from sqlalchemy.engine import Connection

from bot.storage.dialect import Dialect
from bot.storage.player import AnyRow
from bot.storage.transactions import Transactions


class SqlAggregate:
    """The helpers every aggregate's methods run their statements with."""

    _tx: Transactions
    _sql: Dialect
    """What differs between SQLite and PostgreSQL, chosen once for the store."""

    async def _one(
        self, stmt: Executable, *, write: bool = False, deadline: float | None = None
    ) -> AnyRow | None:
        """The first row of one statement."""

        def run(conn: Connection) -> AnyRow | None:
            return conn.execute(stmt).first()

        return await (self._tx.write(run, deadline=deadline) if write else self._tx.read(run))

    async def _all(self, stmt: Executable) -> Sequence[AnyRow]:
        def run(conn: Connection) -> Sequence[AnyRow]:
            return conn.execute(stmt).all()

        return await self._tx.read(run)

    async def _scalar(self, stmt: Executable) -> Any:
        def run(conn: Connection) -> Any:
            return conn.scalar(stmt)

        return await self._tx.read(run)

    async def _exec(self, stmt: Executable) -> None:
        """One write statement, its result unread."""

        def run(conn: Connection) -> None:
            conn.execute(stmt)

        await self._tx.write(run)

    async def _upsert(self, table: Table, key: dict[str, Any], values: dict[str, Any]) -> None:
        """Sets `values` on the row of `key`, inserting it if there is none."""
        stmt = self._sql.insert(table).values(**key, **values)
        await self._exec(stmt.on_conflict_do_update(index_elements=list(key), set_=values))
