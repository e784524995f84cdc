"""Coalesced refreshes: many clicks on one post become one message edit every few seconds.

Both platforms rate-limit message edits per channel, so the "N answered" count is redrawn
at most once per `interval` per post, and always once after the last click.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from bot.domain.clock import Clock

K = TypeVar("K", bound=Hashable)
log = logging.getLogger("quizbot.refresh")


class Refresher(Generic[K]):
    def __init__(
        self, action: Callable[[K], Awaitable[None]], clock: Clock, interval: float = 3.0
    ) -> None:
        self._action = action
        self._clock = clock
        self._interval = interval
        self._pending: dict[K, asyncio.Task[None]] = {}
        """Refreshes waiting out their interval, by key."""
        self._tasks: set[asyncio.Task[None]] = set()
        """Every refresh not yet done, waiting or running: a running one has left `_pending`
        (a click during its edit needs a refresh after it), and `flush` must wait for it."""

    def touch(self, key: K) -> None:
        """Asks for a refresh of `key`; a refresh already waiting covers this one too."""
        if key not in self._pending:
            task = asyncio.create_task(self._later(key))
            self._pending[key] = task
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _later(self, key: K) -> None:
        try:
            await self._clock.sleep(self._interval)
        finally:
            self._pending.pop(key, None)
        try:
            await self._action(key)
        except Exception:
            log.exception("refresh of %s failed", key)

    def cancel(self, key: K) -> None:
        """Drops a waiting refresh (the post is closing and will be redrawn anyway)."""
        task = self._pending.pop(key, None)
        if task is not None:
            task.cancel()

    async def flush(self) -> None:
        """Waits for every refresh waiting or under way (tests; shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
