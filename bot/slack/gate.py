"""The requests from Slack being handled (HTTP requests to /slack/events, Socket Mode
envelopes), so stopping can let them finish: each is acknowledged, and its clicks admitted and
answered, before the bot admits no more clicks.

Not the clicks' admission (`bot.service.admission`): a request is nobody's, has no deadline
and takes no turn; it is only counted.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from bot.service.admission import Closing


class RequestGate:
    def __init__(self) -> None:
        self._pending = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False

    @property
    def pending(self) -> int:
        """Requests let in and not yet finished."""
        return self._pending

    @contextlib.asynccontextmanager
    async def enter(self) -> AsyncIterator[None]:
        """Around one request. Raises `Closing` once stopping began: it is not acknowledged."""
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

    async def quiesce(self, seconds: float) -> bool:
        """Lets no more requests in and waits, up to `seconds`, for those let in to finish."""
        self._closing = True
        try:
            await asyncio.wait_for(self._idle.wait(), seconds)
        except TimeoutError:
            return False
        return True
