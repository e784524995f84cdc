"""Where the store's transactions run: each is a plain function of a sync `Connection`.

A store method hands one function to `write` or `read`, which runs it in one transaction and
in one hop:

- On PostgreSQL it runs on the event loop inside one greenlet, each statement awaiting
  asyncpg (SQLAlchemy's async bridge): the same I/O as async code, with no thread, and one
  greenlet switch per transaction instead of several per statement.
- On SQLite, the whole function runs in a worker thread on the stdlib driver. aiosqlite costs
  four thread hops per statement (cursor, execute, fetch, close), and a hop is most of a
  statement's cost: a click's transaction was 20 such hops. Here it is one. Writes run on a
  single thread, so this process's writers queue in order instead of sleeping in SQLite's
  busy handler; another process holding the lock is still waited for up to busy_timeout.
  Writes that queue up while one runs go together in the next transaction (a group commit,
  `Batch`): in a burst of clicks, one BEGIN, one COMMIT and one hop serve many.

A caller cancelled while its SQLite function runs gets CancelledError at once; the function
itself completes or rolls back in its thread, as a transaction does when a client goes away.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import greenlet_spawn

from bot.core.store import StoreUnavailable

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
        self._sqlite = sqlite_engine
        self._threads: tuple[ThreadPoolExecutor, ThreadPoolExecutor] | None = None
        self._batch: Batch | None = None
        self._writer: Engine
        self._snapshot: Engine
        self._reader: Engine
        if sqlite_engine is None:
            # PostgreSQL, through the async engine's sync facade inside one greenlet per
            # transaction (as AsyncSession does). A read of one statement runs in autocommit,
            # with no BEGIN and ROLLBACK round trips around it; writes and snapshots name
            # their isolation, since the engine may default to autocommit.
            sync = engine.sync_engine
            self._writer = sync.execution_options(isolation_level="READ COMMITTED", **{WRITE: True})
            self._snapshot = sync.execution_options(isolation_level="READ COMMITTED")
            self._reader = sync.execution_options(isolation_level="AUTOCOMMIT", **{READ: True})
        else:
            self._writer = sqlite_engine.execution_options(**{WRITE: True})
            self._snapshot = sqlite_engine
            self._reader = sqlite_engine.execution_options(**{READ: True})
            self._threads = (
                ThreadPoolExecutor(1, thread_name_prefix="quizbot-db-write"),
                ThreadPoolExecutor(READERS, thread_name_prefix="quizbot-db-read"),
            )
            self._batch = Batch(self._writer, self._threads[0])

    async def write(self, work: Work[T]) -> T:
        """`work` in a write transaction: committed if it returns, rolled back if it raises."""
        if self._batch is not None:
            return await self._batch.write(work)
        return await self._run(0, self._write, work)

    async def read(self, work: Work[T], *, snapshot: bool = False) -> T:
        """`work` as a read. `snapshot`: its statements must see one state of the database
        (a transaction); a one-statement read does not need it."""
        return await self._run(1, self._read_snapshot if snapshot else self._read, work)

    async def close(self) -> None:
        """Waits for running functions, then closes every connection."""
        if self._batch is not None:
            await self._batch.drain()
        if self._threads is not None:
            for pool in self._threads:
                await asyncio.to_thread(pool.shutdown, wait=True)
        if self._sqlite is not None:
            self._sqlite.dispose()
        await self._engine.dispose()

    async def _run(self, pool: int, run: Callable[[Work[T]], T], work: Work[T]) -> T:
        if self._threads is None:
            result: T = await greenlet_spawn(run, work)
            return result
        return await asyncio.get_running_loop().run_in_executor(
            self._threads[pool], functools.partial(run, work)
        )

    def _write(self, work: Work[T]) -> T:
        with self._writer.begin() as conn:
            return work(conn)

    def _read(self, work: Work[T]) -> T:
        with self._reader.connect() as conn:
            return work(conn)

    def _read_snapshot(self, work: Work[T]) -> T:
        with self._snapshot.begin() as conn:
            return work(conn)


class Batch:
    """SQLite's writes, run one transaction at a time on the writer thread, each transaction
    taking every write that queued while the one before ran (up to `MOST`): a group commit.
    A write that finds the writer idle runs at once in its own call (no task, no queue), so
    a quiet bot pays nothing for it.

    Store functions are re-runnable (they decide from what they read), so when one raises,
    the batch is rolled back and each of its functions runs again alone: one refused click
    fails only itself. A database that is unavailable (locked past busy_timeout) fails the
    whole batch at once rather than making each function wait again.

    Not for PostgreSQL, whose transactions run side by side: one holding many users' score
    counts would lock rows shared by every user in no common order.
    """

    MOST = 64

    def __init__(self, writer: Engine, thread: ThreadPoolExecutor) -> None:
        self._writer = writer
        self._thread = thread
        self._queue: list[tuple[Work[Any], asyncio.Future[Any]]] = []
        self._busy = False
        self._running: asyncio.Task[None] | None = None
        """Set while the queue drains in a task of its own."""

    async def write(self, work: Work[T]) -> T:
        if self._busy:  # queue behind the transaction running now
            future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            self._queue.append((work, future))
            return await future
        self._busy = True
        try:
            [(ok, value)] = await self._execute([work])
        finally:
            if self._queue:
                self._running = asyncio.create_task(self._run())
            else:
                self._busy = False
        if ok:
            result: T = value
            return result
        raise value

    async def drain(self) -> None:
        """Waits until every queued write has run."""
        while self._running is not None:
            await asyncio.shield(self._running)

    async def _run(self) -> None:
        try:
            while self._queue:
                batch = self._queue[: self.MOST]
                del self._queue[: self.MOST]
                outcomes = await self._execute([work for work, _ in batch])
                for (_, future), (ok, value) in zip(batch, outcomes, strict=True):
                    if future.done():  # its caller was cancelled
                        continue
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(value)
        finally:
            self._running = None
            self._busy = False

    async def _execute(self, works: list[Work[Any]]) -> list[tuple[bool, Any]]:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._thread, self._commit, works)
        except Exception as error:  # the thread itself could not run it
            return [(False, _each(error)) for _ in works]

    def _commit(self, works: list[Work[Any]]) -> list[tuple[bool, Any]]:
        """In the writer thread: (True, result) or (False, exception) per function."""
        try:
            with self._writer.begin() as conn:
                return [(True, work(conn)) for work in works]
        except StoreUnavailable as error:
            return [(False, _each(error)) for _ in works]
        except Exception as error:
            if len(works) == 1:
                return [(False, error)]
        return [self._commit([work])[0] for work in works]


def _each(error: Exception) -> Exception:
    """One exception per caller (a raised exception collects its raiser's traceback)."""
    copy = StoreUnavailable() if isinstance(error, StoreUnavailable) else RuntimeError(error)
    copy.__cause__ = error
    return copy


def sqlite_twin(engine: AsyncEngine) -> Engine:
    """A stdlib-driver engine on the same SQLite file as the aiosqlite `engine`."""
    return create_engine(engine.url.set(drivername="sqlite+pysqlite"))
