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
        self,
        *,
        ttl: float = 3600.0,
        size: int = 10_000,
        shared: Shared | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl
        self._size = size
        self._shared = shared
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._seen)

    def first_time(self, event_id: str) -> bool:
        """True the first time an event id is seen (within `ttl`), False for a repeat."""
        now = self._clock()
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
    bounded (beyond `size` the oldest are forgotten early: a replay of one of those is
    handled again, which for a click changes nothing, the first click standing); with
    several processes behind one URL a replay can reach another process, as a repeated
    event can, which `[slack] shared_seen` covers (the caller asks the database too).

    A signature is kept as the first 16 bytes of its HMAC (`KEY_BYTES`), 150 bytes an entry
    with the dict's share instead of 210 for its hex text: at a few hundred clicks a second
    the five minutes hold tens of thousands.
    """

    def __init__(
        self,
        *,
        window: float = 300.0,
        size: int = 20_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._window = window
        self._size = size
        self._clock = clock
        self._seen: OrderedDict[str | bytes, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._seen)

    def first_time(self, signature: str, timestamp: int) -> bool:
        """True the first time a (valid) signature is seen, False for a replay."""
        now = self._clock()
        while self._seen and (
            len(self._seen) >= self._size or next(iter(self._seen.values())) < now
        ):
            self._seen.popitem(last=False)
        key = _key(signature)
        if key in self._seen:
            return False
        self._seen[key] = timestamp + self._window
        return True


KEY_BYTES = 16
"""128 bits of a signature's HMAC-SHA256: two different requests' signatures share them
with a chance of about one in 10^38."""


def _key(signature: str) -> str | bytes:
    """`v0=<64 hex digits>` as bytes; anything else (never past the signature check) as is."""
    try:
        return bytes.fromhex(signature.removeprefix("v0="))[:KEY_BYTES]
    except ValueError:
        return signature
