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

    def touch(self, key: K) -> None:
        """Asks for a refresh of `key`; a refresh already waiting covers this one too."""
        if key not in self._pending:
            self._pending[key] = asyncio.create_task(self._later(key))

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
        """Waits for every waiting refresh (tests; shutdown)."""
        while self._pending:
            await asyncio.gather(*list(self._pending.values()), return_exceptions=True)
