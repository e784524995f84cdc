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
LANES = 4
"""PostgreSQL: transactions of clicks that may run at once (a quarter of the pool)."""
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
            self._batch = Batch(self._writer, None, lanes=LANES)
        else:
            self._writer = sqlite_engine.execution_options(**{WRITE: True})
            self._snapshot = sqlite_engine
            self._reader = sqlite_engine.execution_options(**{READ: True})
            self._threads = (
                ThreadPoolExecutor(1, thread_name_prefix="quizbot-db-write"),
                ThreadPoolExecutor(READERS, thread_name_prefix="quizbot-db-read"),
            )
            self._batch = Batch(self._writer, self._threads[0])

    async def write(self, work: Work[T], *, user: str | None = None) -> T:
        """`work` in a write transaction: committed if it returns, rolled back if it raises.

        `user`: the one user whose rows `work` writes (a click), so it may share a
        transaction with others' (see `Batch`). On SQLite every write may.
        """
        if self._threads is not None or user is not None:
            return await self._batch.write(work, user or "")
        return await self._run(0, self._write, work)

    async def read(self, work: Work[T], *, snapshot: bool = False) -> T:
        """`work` as a read. `snapshot`: its statements must see one state of the database
        (a transaction); a one-statement read does not need it."""
        return await self._run(1, self._read_snapshot if snapshot else self._read, work)

    async def close(self) -> None:
        """Waits for running functions, then closes every connection."""
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
    """Writes run as transactions one at a time per lane, each transaction taking every
    write that queued in its lane while the one before ran (up to `MOST`): a group commit.

    SQLite has one lane, on the writer thread. PostgreSQL has `lanes` on the event loop
    (in a greenlet each), and a write goes to the lane of its key, the user it is for: two
    transactions running at once then never lock the same user's rows (answers, standings)
    in opposite orders, so batching adds no deadlock.

    Store functions are re-runnable (they decide from what they read), so when one raises,
    the batch is rolled back and each of its functions runs again alone: one refused click
    fails only itself. A database that is unavailable (locked past busy_timeout, gone) fails
    the whole batch at once rather than making each function wait again.
    """

    MOST = 64

    def __init__(self, writer: Engine, thread: ThreadPoolExecutor | None, lanes: int = 1) -> None:
        self._writer = writer
        self._thread = thread
        """None: run on the event loop in a greenlet (PostgreSQL)."""
        self._queues: list[list[tuple[Work[Any], asyncio.Future[Any]]]] = [[] for _ in range(lanes)]
        self._running: dict[int, asyncio.Task[None]] = {}
        """Lanes draining their queue in a task of their own."""
        self._busy: set[int] = set()
        """Lanes running a transaction, in a task or in the writer's own call."""

    async def write(self, work: Work[T], key: str = "") -> T:
        lane = hash(key) % len(self._queues)
        if lane in self._busy:  # queue behind the transaction running in this lane
            future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            self._queues[lane].append((work, future))
            return await future
        self._busy.add(lane)  # an idle lane: run it here, no task and no queue
        try:
            [(ok, value)] = await self._execute([work])
        finally:
            if self._queues[lane]:
                self._running[lane] = asyncio.create_task(self._run(lane))
            else:
                self._busy.discard(lane)
        if ok:
            result: T = value
            return result
        raise value

    async def drain(self) -> None:
        """Waits until every queued write has run."""
        while self._running:
            await asyncio.shield(next(iter(self._running.values())))

    async def _run(self, lane: int) -> None:
        queue = self._queues[lane]
        try:
            while queue:
                batch = queue[: self.MOST]
                del queue[: self.MOST]
                outcomes = await self._execute([work for work, _ in batch])
                for (_, future), (ok, value) in zip(batch, outcomes, strict=True):
                    if future.done():  # its caller was cancelled
                        continue
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(value)
        finally:
            del self._running[lane]
            self._busy.discard(lane)

    async def _execute(self, works: list[Work[Any]]) -> list[tuple[bool, Any]]:
        try:
            if self._thread is None:
                outcomes: list[tuple[bool, Any]] = await greenlet_spawn(self._commit, works)
                return outcomes
            loop = asyncio.get_running_loop()
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
