"""Group commit: writes that queue up while one transaction runs go together in the next
one, so in a burst of clicks one BEGIN and one COMMIT serve many (`bot.storage.transactions`
runs the transactions). A write never waits past its deadline: it is refused unrun, and the
transaction that takes it is told the earliest deadline of its writes (SQLite's lock wait
ends before it)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.engine import Connection

from bot.service.ports import StoreUnavailable

T = TypeVar("T")
Work = Callable[[Connection], T]
"""A store function: it runs in one transaction on a sync connection."""

Outcome = tuple[bool, Any]
"""(True, the function's result) or (False, the exception it raised)."""

AGAIN_IF_LEFT = 0.1
"""Seconds a write must have left before its deadline to be tried again after its
transaction gave up on another process's lock (`LockWaitEnded`)."""


class LockWaitEnded(StoreUnavailable):
    """The transaction gave up waiting for another process's write lock at the earliest
    deadline of its writes; nothing was written. Those with time left wait on, in the next
    transaction, up to their own."""


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
    a transaction was never written, so its caller can say "try again" truthfully. A write
    whose transaction gave up on another process's lock at a batch-mate's deadline goes back
    to the head of the queue while it has AGAIN_IF_LEFT left: it is refused at its own
    deadline, not at the earliest of its transaction's.

    On PostgreSQL a few of these run side by side (lanes, see `transactions.PG_LANES`);
    rows shared by every user (score counts) are written in key order as each
    transaction's last statement (`accumulate`), so two transactions never wait on each
    other in a cycle.
    """

    commit: Callable[[list[Work[Any]], float | None], Awaitable[list[Outcome]]]
    """Runs one transaction of writes, given the earliest of their deadlines."""
    most: int = 64
    _queue: list[_Queued] = field(default_factory=list)
    _busy: bool = False
    _running: asyncio.Task[None] | None = None
    """Set while the queue drains in a task of its own."""

    async def write(self, work: Work[T], deadline: float | None = None) -> T:
        if deadline is not None and time.monotonic() > deadline:
            raise StoreUnavailable()  # too late to begin: unrun, so "try again" is true
        if self._busy:  # queue behind the transaction running now
            future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            self._queue.append(_Queued(work, future, deadline))
            return await future
        self._busy = True
        try:
            [(ok, value)] = await self.commit([work], deadline)
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
                deadline = min((q.deadline for q in batch if q.deadline is not None), default=None)
                outcomes = await self.commit([queued.work for queued in batch], deadline)
                later = time.monotonic() + AGAIN_IF_LEFT
                again: list[_Queued] = []
                for queued, (ok, value) in zip(batch, outcomes, strict=True):
                    if queued.future.done():  # cancelled while its transaction ran
                        continue
                    if isinstance(value, LockWaitEnded) and (queued.deadline or 0) > later:
                        again.append(queued)
                    elif ok:
                        queued.future.set_result(value)
                    else:
                        queued.future.set_exception(value)
                self._queue[:0] = again
        finally:
            self._running = None
            self._busy = False
