"""Clicks admitted on every platform alike: committed before the platform is told the click
arrived, then answered at once.

An ack is a promise: neither Slack nor Discord sends an acknowledged interaction again, so a
click's answer is stored before its ack (Slack's HTTP 200 or Socket Mode ack, Discord's
interaction callback), never held only in memory. Writes that arrive together share one
transaction (the store's group commit), so a burst costs a few commits, not one per click. A
click the store cannot take within `DEADLINE` of its arrival is refused unstored, and its
clicker is told to try again before the platform's three seconds are up.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Hashable
from dataclasses import dataclass

DEADLINE = 2.5
"""Seconds from a click's arrival by which its write must have begun: Slack and Discord both
give up on an answer after 3 s, and the ack and the reply need the rest."""


class Closing(Exception):
    """The process is stopping: a click that arrives now is not acknowledged at all (the
    platform tells its clicker it failed), since nothing may be promised that shutdown could
    break."""


@dataclass(frozen=True)
class Ticket:
    """One admitted click."""

    arrived: float
    """When it arrived (`time.monotonic()`)."""
    deadline: float
    """By when its write must have begun (`time.monotonic()`): pass it to the store."""


class InFlight:
    """Work under way, counted from when it is let in until it is done, so that stopping
    can let no more in (`close`) and wait for what is under way (`finished`)."""

    def __init__(self) -> None:
        self._pending = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False

    @property
    def pending(self) -> int:
        """Let in and not yet done."""
        return self._pending

    @property
    def closing(self) -> bool:
        return self._closing

    @contextlib.asynccontextmanager
    async def enter(self) -> AsyncIterator[None]:
        """Around one piece of work. Raises `Closing` once `close` was called."""
        if self._closing:
            raise Closing()
        self._pending += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._pending -= 1
            if not self._pending:
                self._idle.set()

    def close(self) -> None:
        """Lets no more in (what is under way goes on)."""
        self._closing = True

    async def finished(self, seconds: float) -> bool:
        """Waits, up to `seconds`, until everything let in is done."""
        try:
            await asyncio.wait_for(self._idle.wait(), seconds)
        except TimeoutError:
            return False
        return True


class Admission:
    """The clicks this process is answering: one person's one after another, in the order
    they came (a second click never overtakes the first, which stands), and every one
    counted until its reply is sent, so shutdown can wait for them (`finished`)."""

    def __init__(self, deadline: float = DEADLINE) -> None:
        self._deadline = deadline
        self._turns: dict[Hashable, tuple[asyncio.Lock, list[int]]] = {}
        """Per person: the lock their clicks take in turn, and how many hold or want it."""
        self._flight = InFlight()

    @property
    def pending(self) -> int:
        """Clicks admitted and not yet answered."""
        return self._flight.pending

    @contextlib.asynccontextmanager
    async def admit(
        self, who: Hashable | None, arrived: float | None = None
    ) -> AsyncIterator[Ticket]:
        """Around one click, from its arrival until its reply is sent. `who`: the person
        (None: nobody in particular, as for a malformed click). Raises `Closing` once
        `close` was called."""
        async with self._flight.enter():
            arrived = time.monotonic() if arrived is None else arrived
            turn = None
            if who is not None:
                turn = self._turns.setdefault(who, (asyncio.Lock(), [0]))
                turn[1][0] += 1
            try:
                async with turn[0] if turn is not None else contextlib.nullcontext():
                    yield Ticket(arrived, arrived + self._deadline)
            finally:
                if turn is not None:
                    turn[1][0] -= 1
                    if not turn[1][0]:
                        del self._turns[who]

    @property
    def closing(self) -> bool:
        return self._flight.closing

    def close(self) -> None:
        """Admits no more clicks (the ones admitted go on)."""
        self._flight.close()

    async def quiesce(self, seconds: float) -> bool:
        """Stops admitting clicks and waits, up to `seconds`, for the admitted ones to be
        answered (shutdown: before the connections they answer over are closed)."""
        self.close()
        return await self.finished(seconds)

    async def finished(self, seconds: float) -> bool:
        """Waits, up to `seconds`, until every admitted click has been answered."""
        return await self._flight.finished(seconds)
