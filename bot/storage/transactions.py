"""Where the store's transactions run: each is a plain function of a sync `Connection`.

A store method hands one function to `write` or `read`, which runs it in one transaction and
in one hop:

- On PostgreSQL, `AsyncConnection.run_sync` runs it on the event loop, each statement
  awaiting asyncpg (SQLAlchemy's greenlet bridge): the same I/O as async code, with no thread.
- On SQLite, the whole function runs in a worker thread on the stdlib driver. aiosqlite costs
  four thread hops per statement (cursor, execute, fetch, close), and a hop is most of a
  statement's cost: a click's transaction was 20 such hops. Here it is one. Writes run on a
  single thread, so this process's writers queue in order instead of sleeping in SQLite's
  busy handler; another process holding the lock is still waited for up to busy_timeout.

A caller cancelled while its SQLite function runs gets CancelledError at once; the function
itself completes or rolls back in its thread, as a transaction does when a client goes away.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

T = TypeVar("T")
Work = Callable[[Connection], T]

WRITE = "quizbot_write"
"""Execution option marking a write transaction (BEGIN IMMEDIATE on SQLite)."""
READ = "quizbot_read"
"""Execution option marking a store read: no BEGIN on SQLite (autocommit)."""
READERS = 2
"""SQLite reader threads: WAL lets them read beside the writer; sqlite3 drops the GIL while
it steps, so two keep a 2-core machine busy without queueing reads behind writes."""


class Transactions:
    """Runs store functions in transactions on `engine`'s database (see the module doc).

    `sqlite_engine`, for SQLite, is the stdlib-driver engine for the same file, already
    tuned (WAL, busy_timeout, BEGIN IMMEDIATE for `WRITE`); `engine` stays for migrations.
    """

    def __init__(self, engine: AsyncEngine, sqlite_engine: Engine | None = None) -> None:
        self._engine = engine
        self._async_writer = engine.execution_options(**{WRITE: True})
        self._async_reader = engine.execution_options(**{READ: True})
        self._sqlite = sqlite_engine
        self._threads: tuple[ThreadPoolExecutor, ThreadPoolExecutor] | None = None
        if sqlite_engine is not None:
            self._sqlite_writer = sqlite_engine.execution_options(**{WRITE: True})
            self._sqlite_reader = sqlite_engine.execution_options(**{READ: True})
            self._threads = (
                ThreadPoolExecutor(1, thread_name_prefix="quizbot-db-write"),
                ThreadPoolExecutor(READERS, thread_name_prefix="quizbot-db-read"),
            )

    async def write(self, work: Work[T]) -> T:
        """`work` in a write transaction: committed if it returns, rolled back if it raises."""
        if self._threads is None:
            async with self._async_writer.begin() as conn:
                return await conn.run_sync(work)
        return await self._in_thread(self._threads[0], self._sqlite_write, work)

    async def read(self, work: Work[T], *, snapshot: bool = False) -> T:
        """`work` as a read. `snapshot`: its statements must see one state of the database
        (a transaction); a one-statement read does not need it."""
        if self._threads is None:
            engine = self._engine if snapshot else self._async_reader
            async with engine.connect() as conn:
                return await conn.run_sync(work)
        return await self._in_thread(
            self._threads[1], self._sqlite_snapshot if snapshot else self._sqlite_read, work
        )

    async def close(self) -> None:
        """Waits for running functions, then closes every connection."""
        if self._threads is not None:
            for pool in self._threads:
                await asyncio.to_thread(pool.shutdown, wait=True)
        if self._sqlite is not None:
            self._sqlite.dispose()
        await self._engine.dispose()

    @staticmethod
    async def _in_thread(pool: ThreadPoolExecutor, run: Callable[[Work[T]], T], work: Work[T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(pool, functools.partial(run, work))

    def _sqlite_write(self, work: Work[T]) -> T:
        with self._sqlite_writer.begin() as conn:
            return work(conn)

    def _sqlite_read(self, work: Work[T]) -> T:
        with self._sqlite_reader.connect() as conn:
            return work(conn)

    def _sqlite_snapshot(self, work: Work[T]) -> T:
        assert self._sqlite is not None
        with self._sqlite.begin() as conn:
            return work(conn)


def sqlite_twin(engine: AsyncEngine) -> Engine:
    """A stdlib-driver engine on the same SQLite file as the aiosqlite `engine`."""
    return create_engine(engine.url.set(drivername="sqlite+pysqlite"))
