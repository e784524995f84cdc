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
write never waits past its deadline: not in memory (it is refused instead, unrun), and on
SQLite not for another process's write lock either (`lock_wait`), so a click is refused with
"try again" before the platform gives up on it, never stored after its clicker was told it
failed. Trouble that fails a transaction for all its writes (`trouble.passing`: a full disk,
a read-only file) fails them together, once, and is logged by `TroubleLog`.

A caller cancelled while its SQLite function runs gets CancelledError at once; the function
itself completes or rolls back in its thread, as a transaction does when a client goes away.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import greenlet_spawn

from bot.service.ports import StoreUnavailable
from bot.storage.checkpoints import Checkpoints
from bot.storage.group_commit import GroupCommit, LockWaitEnded, Outcome, Work
from bot.storage.trouble import TroubleLog, passing, reopens

T = TypeVar("T")
X = TypeVar("X")
A = TypeVar("A", bound="Accumulator")

WRITE = "quizbot_write"
"""Execution option marking a write transaction (BEGIN IMMEDIATE on SQLite)."""
READ = "quizbot_read"
"""Execution option marking a store read: no BEGIN on SQLite (autocommit)."""
READERS = 2
"""SQLite reader threads: WAL lets them read beside the writer; sqlite3 drops the GIL while
it steps, so two keep a 2-core machine busy without queueing reads behind writes."""
BUSY_MS = 5000
"""SQLite: milliseconds a write with no deadline waits for another process's write lock."""
LOCK_WAIT = "quizbot_busy_ms"
"""Key, in a SQLite connection's `info`, of the busy_timeout it was last given."""
LOCK_WAIT_STEP = 100
"""A click's lock wait is its time left, rounded down to this many ms: the transactions of a
burst then mostly find their connection already set, and skip the PRAGMA."""
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
    `trouble`: the store's log of database trouble (told when writes commit again).
    """

    def __init__(
        self,
        engine: AsyncEngine,
        sqlite_engine: Engine | None = None,
        trouble: TroubleLog | None = None,
    ) -> None:
        self._engine = engine
        self._sqlite = sqlite_engine
        self._trouble = trouble or TroubleLog()
        self._checkpoints: Checkpoints | None = None
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
            self._checkpoints = Checkpoints(self._reader, self._threads[2])
        lanes = 1 if sqlite_engine is not None else PG_LANES
        self._lanes = [GroupCommit(self._run_batch) for _ in range(lanes)]

    async def write(
        self, work: Work[T], *, deadline: float | None = None, key: Hashable = None
    ) -> T:
        """`work` in a write transaction: committed if it returns, rolled back if it raises.

        `deadline` (`time.monotonic()`): if no transaction has taken the write by then, it
        is dropped unrun and StoreUnavailable raised ("try again"); on SQLite its wait for
        another process's write lock ends by then too. `key` (a person): the writes of one
        key go through one lane, in order."""
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
        if self._checkpoints is not None:
            self._checkpoints.close()
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

    async def _run_batch(self, works: list[Work[Any]], deadline: float | None) -> list[Outcome]:
        try:
            return await self._run(0, functools.partial(self._commit, deadline=deadline), works)
        except Exception as error:  # the thread (or greenlet) itself could not run it
            return [(False, _each(error)) for _ in works]
        finally:
            if self._checkpoints is not None:
                self._checkpoints.after_write()

    def _commit(
        self, works: list[Work[Any]], *, deadline: float | None = None, again: bool = True
    ) -> list[Outcome]:
        """One transaction for `works`: (True, result) or (False, exception) per function.

        Store functions are re-runnable (they decide from what they read), so when one
        raises, the transaction is rolled back and each runs again alone: one refused
        write fails only itself. Database trouble (unreachable, locked, full, read-only:
        `trouble.passing`), whether the engine or the driver's own cursor met it, fails
        them all at once instead: it would fail each of them again.

        `deadline`: the earliest of the writes' deadlines; on SQLite the wait for another
        process's write lock ends before it (`lock_wait`).

        A write with an `alone` form (one statement, shared rows included) that has the
        transaction to itself runs that instead, in autocommit: one round trip in all.

        A transaction PostgreSQL broke off whole (RolledBack: a deadlock, a serialization
        failure), or one that met a read-only database (`trouble.reopens`), is run once
        more (`again`, on a fresh connection for the latter) before anyone is told to try
        again."""
        alone = getattr(works[0], "alone", None) if len(works) == 1 else None
        if alone is not None and self._alone is not None:
            return self._commit_alone(works, alone, deadline=deadline, again=again)
        try:
            results = self._commit_together(works, deadline)
        except RolledBack:
            if again:
                return self._commit(works, deadline=deadline, again=False)
            return [(False, StoreUnavailable()) for _ in works]
        except Exception as error:
            return self._failed(works, error, deadline=deadline, again=again)
        return [(True, result) for result in results]

    def _commit_alone(
        self, works: list[Work[Any]], alone: Any, *, deadline: float | None, again: bool
    ) -> list[Outcome]:
        """One write's single statement in autocommit: one round trip in all."""
        assert self._alone is not None
        try:
            with self._alone.connect() as conn:
                return [(True, alone(conn))]
        except RolledBack:
            if again:
                return self._commit(works, deadline=deadline, again=False)
            return [(False, StoreUnavailable())]
        except Exception as error:
            return [(False, _each(error) if isinstance(error, StoreUnavailable) else error)]

    def _commit_together(self, works: list[Work[Any]], deadline: float | None) -> list[Any]:
        """Every write in one transaction, the accumulated rows flushed at its end."""
        with self._writer.connect() as conn:
            if self._sqlite is not None:
                lock_wait(conn, deadline)
            with conn.begin():
                pending: dict[type[Any], Accumulator] = {}
                info = conn.info  # not read again below: a dead connection refuses it
                info[_ACCUMULATORS] = pending
                try:
                    results = _run(conn, works)
                    _flush(conn, pending)
                except Exception as error:
                    if self._sqlite is not None and reopens(error):
                        conn.invalidate(error)  # the driver's own cursor met it
                    raise
                finally:
                    info.pop(_ACCUMULATORS, None)
        if self._trouble.active:
            self._trouble.cleared()
        return results

    def _failed(
        self, works: list[Work[Any]], error: Exception, *, deadline: float | None, again: bool
    ) -> list[Outcome]:
        """What a transaction that raised `error` gives each write: a bug or a refusal is
        retried write by write; database trouble fails them all, after one more try on a
        fresh connection when the database was read-only."""
        if isinstance(error, StoreUnavailable):  # the engine met trouble, and logged it
            met: BaseException = error.__cause__ or error
        else:  # the driver's own cursor met it, or a store function raised
            met = error
            kind = passing(error)
            if kind is None:  # a bug or a refusal: each write alone, so it fails only itself
                if len(works) == 1:
                    return [(False, error)]
                return [self._commit([work], deadline=deadline)[0] for work in works]
            self._trouble.refused(kind, error)
            error = StoreUnavailable()
            error.__cause__ = met
        if reopens(met):
            # Read-only: connections opened while it lasted stay read-only. They are
            # all let go, and the writes run once more on a fresh one, so the first
            # write after the trouble ends is not refused by a stale connection.
            if self._sqlite is not None:
                self._sqlite.dispose()
            if again:
                return self._commit(works, deadline=deadline, again=False)
        if deadline is not None and passing(met) == "locked":
            error = LockWaitEnded()  # at the earliest deadline: the others wait on
            error.__cause__ = met
        return [(False, _each(error)) for _ in works]

    def _read(self, work: Work[T]) -> T:
        with self._reader.connect() as conn:
            return work(conn)

    def _read_snapshot(self, work: Work[T]) -> T:
        with self._snapshot.begin() as conn:
            return work(conn)


def lock_wait(conn: Connection, deadline: float | None) -> None:
    """SQLite: how long the transaction about to begin on `conn` may wait for another
    process's write lock (busy_timeout): BUSY_MS, but never past `deadline` (the time left,
    rounded down to LOCK_WAIT_STEP), so BEGIN IMMEDIATE gives up while the clicker can still
    be told to try again, and a click is never committed after its platform said it failed.
    The PRAGMA runs only when the connection was told otherwise before."""
    wait = BUSY_MS
    if deadline is not None:
        left = int((deadline - time.monotonic()) * 1000)
        wait = max(0, min(BUSY_MS, left - left % LOCK_WAIT_STEP))
    info = conn.info
    if info.get(LOCK_WAIT) != wait:
        conn.connection.driver_connection.execute(f"PRAGMA busy_timeout={wait}")  # type: ignore[union-attr]
        info[LOCK_WAIT] = wait


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


def _each(error: Exception) -> Exception:
    """One exception per caller (a raised exception collects its raiser's traceback)."""
    copy: Exception
    if isinstance(error, StoreUnavailable):
        copy = LockWaitEnded() if isinstance(error, LockWaitEnded) else StoreUnavailable()
    else:
        copy = RuntimeError(error)
    copy.__cause__ = error
    return copy


def sqlite_twin(engine: AsyncEngine) -> Engine:
    """A stdlib-driver engine on the same SQLite file as the aiosqlite `engine`. It opens
    the file read-write (`mode=rw`), never creating it: the file exists (`store_engine`
    made it), and a connection opened after it was moved away must fail, not start an
    empty database that would take the clicks."""
    url = engine.url.set(drivername="sqlite+pysqlite")
    path = url.database or ""
    if not path.startswith("file:"):
        query = {**url.query, "mode": "rw", "uri": "true"}
        url = url.set(database=f"file:{quote(path)}", query=query)
    return create_engine(url)
