"""Where the store's transactions run: each is a plain function of a sync `Connection`.

A store method hands one function to `write` or `read`, which runs it in one transaction and
in one hop:

- On PostgreSQL it runs on the event loop inside one greenlet, each statement awaiting
  asyncpg (SQLAlchemy's async bridge): the same I/O as async code, with no thread, and one
  greenlet switch per transaction instead of several per statement.
- On SQLite, the whole function runs in a worker thread on the stdlib driver. aiosqlite costs
  four thread hops per statement (cursor, execute, fetch, close), and a hop is most of a
  statement's cost. Here it is one. Writes run on a single thread, so this process's writers
  queue in order instead of sleeping in SQLite's busy handler; another process holding the
  lock is still waited for up to busy_timeout.

On both, writes that queue up while one transaction runs go together in the next one (a
group commit, `GroupCommit`): in a burst of clicks, one BEGIN and one COMMIT serve many, and a
write never waits in memory past its deadline (it is refused instead, unrun).

A caller cancelled while its SQLite function runs gets CancelledError at once; the function
itself completes or rolls back in its thread, as a transaction does when a client goes away.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import greenlet_spawn

from bot.service.ports import StoreUnavailable

log = logging.getLogger("quizbot.storage")

T = TypeVar("T")
X = TypeVar("X")
A = TypeVar("A", bound="Accumulator")
Work = Callable[[Connection], T]

WRITE = "quizbot_write"
"""Execution option marking a write transaction (BEGIN IMMEDIATE on SQLite)."""
READ = "quizbot_read"
"""Execution option marking a store read: no BEGIN on SQLite (autocommit)."""
READERS = 2
"""SQLite reader threads: WAL lets them read beside the writer; sqlite3 drops the GIL while
it steps, so two keep a 2-core machine busy without queueing reads behind writes."""
CHECKPOINT_EVERY = 1.0
"""SQLite: seconds between checkpoints of the write-ahead log while writes come in. They
run in a thread of their own (`Transactions._checkpoint`): SQLite's own checkpoint runs in
the COMMIT that fills the log to 1,000 pages, and in a burst that one commit held every
click queued behind it (12 ms here on a quiet disk, several times that under load)."""
PG_LANES = 4
"""PostgreSQL group commits running side by side, each on its own connection: the database
works on several transactions at once where SQLite has one writer. A person's writes keep
to one lane, so the rows of one person are only ever locked by one lane; the rows shared by
everyone (score counts) each transaction writes last, in key order."""
_ACCUMULATORS = "quizbot_accumulators"


class RolledBack(StoreUnavailable):
    """PostgreSQL broke off the transaction (a deadlock, a serialization failure) and
    rolled it back whole: running it again is safe (store functions decide from what they
    read), and `Transactions` does so once."""


class Accumulator(Protocol):
    """Writes that the functions of one transaction add up and make once, just before its
    COMMIT (`accumulate`)."""

    def flush(self, conn: Connection) -> None: ...


def accumulate(conn: Connection, kind: type[A]) -> A:
    """The transaction's `kind` accumulator, made on first use and flushed before the commit.

    Rows that every transaction touches (score counts) are written once per transaction,
    summed and in key order, as its last statement: locked until COMMIT only, always in the
    same order, never in a cycle with another transaction."""
    pending: dict[type[Any], Accumulator] | None = conn.info.get(_ACCUMULATORS)
    if pending is None:
        raise RuntimeError("accumulate() outside a transaction run by Transactions")
    found = pending.get(kind)
    if found is None:
        found = pending[kind] = kind()
    assert isinstance(found, kind)
    return found


def written(conn: Connection, kind: type[Accumulator]) -> None:
    """Writes now what the transaction's `kind` accumulator holds, if any: before a read
    of the rows it will write (SQLite's pending standings and cards)."""
    pending: dict[type[Any], Accumulator] | None = conn.info.get(_ACCUMULATORS)
    if pending is not None and kind in pending:
        pending[kind].flush(conn)


class Transactions:
    """Runs store functions in transactions on `engine`'s database (see the module doc).

    `sqlite_engine`, for SQLite, is the stdlib-driver engine for the same file, already
    tuned (WAL, busy_timeout, BEGIN IMMEDIATE for `WRITE`); `engine` stays for migrations.
    """

    def __init__(self, engine: AsyncEngine, sqlite_engine: Engine | None = None) -> None:
        self._engine = engine
        self._sqlite = sqlite_engine
        self._threads: tuple[ThreadPoolExecutor, ...] | None = None
        self._writer: Engine
        self._snapshot: Engine
        self._reader: Engine
        self._alone: Engine | None = None
        if sqlite_engine is None:
            # PostgreSQL, through the async engine's sync facade inside one greenlet per
            # transaction (as AsyncSession does). A read of one statement runs in autocommit,
            # with no BEGIN and ROLLBACK round trips around it; writes and snapshots name
            # their isolation, since the engine may default to autocommit.
            sync = engine.sync_engine
            self._writer = sync.execution_options(isolation_level="READ COMMITTED", **{WRITE: True})
            self._snapshot = sync.execution_options(isolation_level="READ COMMITTED")
            self._reader = sync.execution_options(isolation_level="AUTOCOMMIT", **{READ: True})
            self._alone = sync.execution_options(isolation_level="AUTOCOMMIT")
        else:
            self._writer = sqlite_engine.execution_options(**{WRITE: True})
            self._snapshot = sqlite_engine
            self._reader = sqlite_engine.execution_options(**{READ: True})
            self._threads = (
                ThreadPoolExecutor(1, thread_name_prefix="quizbot-db-write"),
                ThreadPoolExecutor(READERS, thread_name_prefix="quizbot-db-read"),
                ThreadPoolExecutor(1, thread_name_prefix="quizbot-db-checkpoint"),
            )
        self._checkpoint_timer: asyncio.TimerHandle | None = None
        self._checkpointing: Future[None] | None = None
        lanes = 1 if sqlite_engine is not None else PG_LANES
        self._lanes = [GroupCommit(self._run_batch) for _ in range(lanes)]

    async def write(
        self, work: Work[T], *, deadline: float | None = None, key: Hashable = None
    ) -> T:
        """`work` in a write transaction: committed if it returns, rolled back if it raises.

        `deadline` (`time.monotonic()`): if no transaction has taken the write by then, it
        is dropped unrun and StoreUnavailable raised ("try again"). `key` (a person): the
        writes of one key go through one lane, in order."""
        lane = self._lanes[hash(key) % len(self._lanes) if key is not None else 0]
        return await lane.write(work, deadline)

    async def read(self, work: Work[T], *, snapshot: bool = False) -> T:
        """`work` as a read. `snapshot`: its statements must see one state of the database
        (a transaction); a one-statement read does not need it."""
        return await self._run(1, self._read_snapshot if snapshot else self._read, work)

    async def close(self) -> None:
        """Waits for queued and running functions, then closes every connection (SQLite
        checkpoints the log as the last one closes)."""
        for lane in self._lanes:
            await lane.drain()
        if self._checkpoint_timer is not None:
            self._checkpoint_timer.cancel()
            self._checkpoint_timer = None
        if self._threads is not None:
            for pool in self._threads:
                await asyncio.to_thread(pool.shutdown, wait=True)
        if self._sqlite is not None:
            self._sqlite.dispose()
        await self._engine.dispose()

    async def _run(self, pool: int, run: Callable[[X], T], arg: X) -> T:
        if self._threads is None:
            result: T = await greenlet_spawn(run, arg)
            return result
        return await asyncio.get_running_loop().run_in_executor(
            self._threads[pool], functools.partial(run, arg)
        )

    async def _run_batch(self, works: list[Work[Any]]) -> list[Outcome]:
        try:
            return await self._run(0, self._commit, works)
        except Exception as error:  # the thread (or greenlet) itself could not run it
            return [(False, _each(error)) for _ in works]
        finally:
            self._after_write()

    def _after_write(self) -> None:
        """SQLite: a checkpoint of the write-ahead log CHECKPOINT_EVERY after a write (one
        for all the writes in between), in its own thread. A passive checkpoint waits for
        no one and keeps no one waiting: the writer goes on appending to the log."""
        if self._threads is None or self._checkpoint_timer is not None:
            return
        self._checkpoint_timer = asyncio.get_running_loop().call_later(
            CHECKPOINT_EVERY, self._start_checkpoint
        )

    def _start_checkpoint(self) -> None:
        self._checkpoint_timer = None
        assert self._threads is not None
        if self._checkpointing is not None and not self._checkpointing.done():
            self._after_write()  # the last one is still copying: again after the interval
            return
        self._checkpointing = self._threads[2].submit(self._checkpoint)

    def _checkpoint(self) -> None:
        try:
            with self._reader.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except Exception:  # the commits' own checkpoint (the backstop) still runs
            log.warning("checkpoint failed", exc_info=True, extra={"event": "checkpoint_failed"})

    def _commit(self, works: list[Work[Any]], *, again: bool = True) -> list[Outcome]:
        """One transaction for `works`: (True, result) or (False, exception) per function.

        Store functions are re-runnable (they decide from what they read), so when one
        raises, the transaction is rolled back and each runs again alone: one refused
        write fails only itself. A database that is unavailable fails them all at once
        rather than making each wait again.

        A write with an `alone` form (one statement, shared rows included) that has the
        transaction to itself runs that instead, in autocommit: one round trip in all.

        A transaction PostgreSQL broke off whole (RolledBack: a deadlock, a serialization
        failure) is run once more (`again`) before anyone is told to try again."""
        alone = getattr(works[0], "alone", None) if len(works) == 1 else None
        if alone is not None and self._alone is not None:
            try:
                with self._alone.connect() as conn:
                    return [(True, alone(conn))]
            except RolledBack:
                if again:
                    return self._commit(works, again=False)
                return [(False, StoreUnavailable())]
            except Exception as error:
                return [(False, _each(error) if isinstance(error, StoreUnavailable) else error)]
        try:
            with self._writer.begin() as conn:
                pending: dict[type[Any], Accumulator] = {}
                info = conn.info  # not read again below: a dead connection refuses it
                info[_ACCUMULATORS] = pending
                try:
                    results = _run(conn, works)
                    _flush(conn, pending)
                finally:
                    info.pop(_ACCUMULATORS, None)
                return [(True, result) for result in results]
        except RolledBack:
            if again:
                return self._commit(works, again=False)
            return [(False, StoreUnavailable()) for _ in works]
        except StoreUnavailable as error:
            return [(False, _each(error)) for _ in works]
        except Exception as error:
            if len(works) == 1:
                return [(False, error)]
        return [self._commit([work])[0] for work in works]

    def _read(self, work: Work[T]) -> T:
        with self._reader.connect() as conn:
            return work(conn)

    def _read_snapshot(self, work: Work[T]) -> T:
        with self._snapshot.begin() as conn:
            return work(conn)


def _run(conn: Connection, works: list[Work[Any]]) -> list[Any]:
    """Each function's result, in order. Functions of one kind side by side whose kind has
    `run_many` (a click's write) run together through it."""
    results: list[Any] = []
    i = 0
    while i < len(works):
        kind = type(works[i])
        many = getattr(kind, "run_many", None)
        j = i + 1
        if many is not None:
            while j < len(works) and type(works[j]) is kind:
                j += 1
            results += many(conn, works[i:j])
        else:
            results.append(works[i](conn))
        i = j
    return results


def _flush(conn: Connection, pending: dict[type[Any], Accumulator]) -> None:
    """Every accumulator's writes, by kind, not by first use: two transactions flushing
    score and mastery counts lock their rows in the same order, never in a cycle. Kinds
    that feed others (`FEEDS`: SQLite's pending standings and cards move score and mastery
    counts) go first; a kind that appears while flushing is flushed too."""
    flushed: set[type[Any]] = set()
    while waiting := sorted(
        set(pending) - flushed, key=lambda k: (not getattr(k, "FEEDS", False), k.__qualname__)
    ):
        for kind in waiting:
            pending[kind].flush(conn)
            flushed.add(kind)


Outcome = tuple[bool, Any]
"""(True, the function's result) or (False, the exception it raised)."""


@dataclass
class _Queued:
    work: Work[Any]
    future: asyncio.Future[Any]
    deadline: float | None


@dataclass
class GroupCommit:
    """Write functions, run one transaction at a time, each transaction taking every write
    that queued while the one before ran (up to `most`): a group commit.

    A write that finds no transaction running starts one at once in its own call (no task,
    no queue), so a quiet bot pays nothing for it. A queued write whose caller gave up
    (cancelled) or whose deadline passed is dropped before it runs: what was not taken into
    a transaction was never written, so its caller can say "try again" truthfully.

    On PostgreSQL a few of these run side by side (lanes, see `PG_LANES`); rows shared by
    every user (score counts) are written in key order as each transaction's last statement
    (`accumulate`), so two transactions never wait on each other in a cycle.
    """

    commit: Callable[[list[Work[Any]]], Awaitable[list[Outcome]]]
    most: int = 64
    _queue: list[_Queued] = field(default_factory=list)
    _busy: bool = False
    _running: asyncio.Task[None] | None = None
    """Set while the queue drains in a task of its own."""

    async def write(self, work: Work[T], deadline: float | None = None) -> T:
        if self._busy:  # queue behind the transaction running now
            future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            self._queue.append(_Queued(work, future, deadline))
            return await future
        self._busy = True
        try:
            [(ok, value)] = await self.commit([work])
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

    def _take(self) -> list[_Queued]:
        """The next transaction's writes; the ones given up on or past their deadline are
        answered here, unrun."""
        taken: list[_Queued] = []
        now = time.monotonic()
        while self._queue and len(taken) < self.most:
            queued = self._queue.pop(0)
            if queued.future.done():  # its caller was cancelled
                continue
            if queued.deadline is not None and now > queued.deadline:
                queued.future.set_exception(StoreUnavailable())
                continue
            taken.append(queued)
        return taken

    async def _run(self) -> None:
        try:
            while self._queue:
                batch = self._take()
                if not batch:
                    continue
                outcomes = await self.commit([queued.work for queued in batch])
                for queued, (ok, value) in zip(batch, outcomes, strict=True):
                    if queued.future.done():  # cancelled while its transaction ran
                        continue
                    if ok:
                        queued.future.set_result(value)
                    else:
                        queued.future.set_exception(value)
        finally:
            self._running = None
            self._busy = False


def _each(error: Exception) -> Exception:
    """One exception per caller (a raised exception collects its raiser's traceback)."""
    copy = StoreUnavailable() if isinstance(error, StoreUnavailable) else RuntimeError(error)
    copy.__cause__ = error
    return copy


def sqlite_twin(engine: AsyncEngine) -> Engine:
    """A stdlib-driver engine on the same SQLite file as the aiosqlite `engine`."""
    return create_engine(engine.url.set(drivername="sqlite+pysqlite"))
