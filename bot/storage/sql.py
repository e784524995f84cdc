"""`QuizStore` on SQLite and PostgreSQL, with SQLAlchemy 2 Core: one mixin per aggregate.

Servers (`servers`), posts and their answers (`posts`, the click in `post_answers`), runs
(`runs`), review answers and problem reports (`reviews`), standings (`standings`, kept by
`scores`, read by `player`), schedules and slots (`schedules`); what they share in
`aggregate`, the engines in `engine`, the transactions in `transactions` (and
`group_commit`, `checkpoints`), database trouble in `trouble`. What differs between SQLite
and PostgreSQL is each one's `Dialect` (`dialect`, `sqlite/`, `postgres/`), chosen here.
"""

from __future__ import annotations

import time

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.service.ports import QuizStore
from bot.storage.dialects import dialect_for
from bot.storage.engine import migrate, store_engine, translate_errors, tune_sqlite
from bot.storage.games import SqlGames
from bot.storage.posts import SqlPosts
from bot.storage.reviews import SqlReviews
from bot.storage.runs import SqlRuns
from bot.storage.schedules import SqlSchedules, SqlSlots
from bot.storage.servers import SqlServers
from bot.storage.standings import SqlStandings
from bot.storage.transactions import Transactions, sqlite_twin
from bot.storage.trouble import TroubleLog


async def open_store(url: str, *, schema: str | None = None) -> SqlStore:
    """A store on `url` with its schema migrated to head. `schema`: see `store_engine`.
    Raises `engine.CannotWrite` (one line) if this process cannot write to the database."""
    trouble = TroubleLog(quiet=True)  # a refusal at start is said in one line, by migrate
    engine = store_engine(url, schema=schema, autocommit=True, trouble=trouble)
    try:
        await migrate(engine)
    except BaseException:
        await engine.dispose()
        raise
    trouble.quiet = False
    return SqlStore(engine, trouble)


PROBE_SECONDS = 2.0
"""How long `writable` waits, at most, for another process's write lock."""
_PROBE = text("UPDATE meta SET value = value WHERE key = 'quizbot.writable'")
"""A write that changes nothing, which a read-only database refuses all the same."""


class SqlStore(
    SqlServers,
    SqlPosts,
    SqlRuns,
    SqlStandings,
    SqlReviews,
    SqlSchedules,
    SqlSlots,
    SqlGames,
    QuizStore,
):
    """The quiz's state in SQL. Build it with `open_store`; `close` when done."""

    def __init__(self, engine: AsyncEngine, trouble: TroubleLog | None = None) -> None:
        self._sql = dialect_for(engine.dialect.name)  # the one choice of database
        trouble = trouble or TroubleLog()
        twin = None
        if self._sql.name == "sqlite":  # its stdlib-driver twin (`transactions`)
            twin = sqlite_twin(engine)
            tune_sqlite(twin)
            translate_errors(twin, trouble)
        self._tx = Transactions(engine, twin, trouble)

    async def writable(self) -> None:
        """Returns when the database takes a write now (one that changes nothing);
        StoreUnavailable if it is unreachable, read-only, or locked by another process for
        PROBE_SECONDS (`/healthz`)."""

        def probe(conn: Connection) -> None:
            conn.execute(_PROBE)

        await self._tx.write(probe, deadline=time.monotonic() + PROBE_SECONDS)

    async def close(self) -> None:
        await self._tx.close()
