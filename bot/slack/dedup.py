"""De-duplication: Slack retries an event (X-Slack-Retry-Num) it thinks was lost, and a
signed request recorded on the way can be sent again (a replay).

The seen event ids are kept in memory, bounded in count and age. That covers Slack's retries
(within minutes) to one process. With several processes behind one URL a retry can reach
another process, so `[slack] shared_seen` also asks the database (`Shared`), where one
process in all records a key first.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

Shared = Callable[[str, float], Awaitable[bool]]
"""(key, seconds) -> whether this is the first time any process saw the key
(`Services.first_seen`)."""


class SeenEvents(AsyncMiddleware):
    """Bolt global middleware: a repeated event is acknowledged (200) and not handled again."""

    def __init__(
        self, *, ttl: float = 3600.0, size: int = 10_000, shared: Shared | None = None
    ) -> None:
        self._ttl = ttl
        self._size = size
        self._shared = shared
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, event_id: str) -> bool:
        """True the first time an event id is seen (within `ttl`), False for a repeat."""
        now = time.monotonic()
        while self._seen and (len(self._seen) >= self._size or self._oldest_expiry() <= now):
            self._seen.popitem(last=False)
        if event_id in self._seen:
            return False
        self._seen[event_id] = now + self._ttl
        return True

    def _oldest_expiry(self) -> float:
        return next(iter(self._seen.values()))

    async def async_process(
        self,
        *,
        req: AsyncBoltRequest,
        resp: BoltResponse,
        next: Callable[[], Awaitable[BoltResponse]],
    ) -> BoltResponse | None:
        body = req.body
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if isinstance(event_id, str) and not await self._first_anywhere(event_id):
            return BoltResponse(status=200, body="")
        return await next()

    async def _first_anywhere(self, event_id: str) -> bool:
        if not self.first_time(event_id):
            return False
        return self._shared is None or await self._shared(f"event:{event_id}", self._ttl)


class SeenSignatures:
    """Replay protection for HTTP mode: a signed request that arrives again, byte for byte
    (the same body, timestamp and signature), is not handled again.

    Slack's signature covers the timestamp, and a timestamp more than `window` seconds from
    now is refused, so a signature only needs remembering for that long. Kept in memory and
    bounded (beyond `size` the oldest are forgotten early); with several processes behind
    one URL a replay can reach another process, as a repeated event can, which
    `[slack] shared_seen` covers (the caller asks the database too).
    """

    def __init__(
        self,
        *,
        window: float = 300.0,
        size: int = 100_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._window = window
        self._size = size
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, signature: str, timestamp: int) -> bool:
        """True the first time a (valid) signature is seen, False for a replay."""
        now = self._clock()
        while self._seen and (
            len(self._seen) >= self._size or next(iter(self._seen.values())) < now
        ):
            self._seen.popitem(last=False)
        if signature in self._seen:
            return False
        self._seen[signature] = timestamp + self._window
        return True
