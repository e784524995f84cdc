"""Coalesced refreshes: many clicks on one post become one message edit every few seconds.

Both platforms rate-limit message edits per channel, so the "N answered" count is redrawn
at most once per `interval` per post, and always once after the last click. A refresh the
platform refused for now (`TryLater`: a rate limit its client gave up on, a 5xx, no answer)
is tried again, with backoff and never sooner than the platform asked, until it is drawn:
otherwise the count would stay wrong until the next click, which may never come.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from bot.domain.clock import Clock

K = TypeVar("K", bound=Hashable)
log = logging.getLogger("quizbot.refresh")

LONGEST_WAIT = 60.0
"""The longest wait between two tries of a refresh that keeps failing."""


class TryLater(Exception):
    """The refresh could not be done now, but may be soon; `after`: the least wait the
    platform asked for (its Retry-After), if it said."""

    def __init__(self, reason: str, after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.after = after


class Refresher(Generic[K]):
    def __init__(
        self, action: Callable[[K], Awaitable[None]], clock: Clock, interval: float = 3.0
    ) -> None:
        self._action = action
        self._clock = clock
        self._interval = interval
        self._pending: dict[K, asyncio.Task[None]] = {}
        """Refreshes waiting out their interval (or a backoff), by key."""
        self._tasks: set[asyncio.Task[None]] = set()
        """Every refresh not yet done, waiting or running: a running one has left `_pending`
        (a click during its edit needs a refresh after it), and `flush` must wait for it."""
        self._backing_off: dict[K, asyncio.Task[None]] = {}
        """Refreshes waiting to be tried again: `flush` does not wait for those."""
        self._flushing = 0

    def touch(self, key: K) -> None:
        """Asks for a refresh of `key`; a refresh already waiting covers this one too."""
        if key not in self._pending:
            task = asyncio.create_task(self._later(key))
            self._pending[key] = task
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _later(self, key: K) -> None:
        wait, failures = self._interval, 0
        while True:
            try:
                await self._clock.sleep(wait)
            finally:
                self._backing_off.pop(key, None)
                if self._pending.get(key) is asyncio.current_task():
                    del self._pending[key]
            try:
                await self._action(key)
                if failures:
                    log.info("refresh of %s done after %d failed tries", key, failures)
                return
            except TryLater as error:
                later = error
                failures += 1
                wait = min(LONGEST_WAIT, self._interval * 2 ** (failures - 1))
                wait = max(wait, later.after or 0.0)
            except Exception:
                log.exception("refresh of %s failed", key)
                return
            if self._flushing:  # stopping: a platform that keeps refusing is not waited for
                log.warning("refresh of %s not done (%s); not tried again", key, later.reason)
                return
            if key in self._pending:  # a click since: its refresh draws the count
                return
            log.log(
                logging.WARNING if failures == 1 else logging.INFO,
                "refresh of %s failed (%s); trying again in %.0f s",
                key,
                later.reason,
                wait,
            )
            task = asyncio.current_task()
            assert task is not None
            self._pending[key] = self._backing_off[key] = task

    def cancel(self, key: K) -> None:
        """Drops a waiting refresh (the post is closing and will be redrawn anyway)."""
        task = self._pending.pop(key, None)
        self._backing_off.pop(key, None)
        if task is not None:
            task.cancel()

    async def flush(self) -> None:
        """Waits for every refresh waiting or under way (tests; shutdown); those waiting to
        be tried again after a failure are dropped."""
        self._flushing += 1
        try:
            while self._tasks:
                for key in list(self._backing_off):
                    self.cancel(key)
                await asyncio.gather(*list(self._tasks), return_exceptions=True)
        finally:
            self._flushing -= 1
