"""What a test server has been doing lately, so a test can wait until it is quiet.

A test that proves something does *not* happen ("no second reply", "no straggling redraw")
used to sleep a fixed time and hope that was long enough on a busy machine. `until_idle`
waits instead until no request is in flight and none has come for `quiet` seconds: a
request still being answered (a slow one, a 429 waited out) holds it, however long.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Activity:
    """Requests in flight and when the last one came or went (monotonic seconds). A
    websocket (at one of `long_lived`, paths) is not in flight for its whole life: its
    frames `touch` instead."""

    def __init__(self, long_lived: tuple[str, ...] = ()) -> None:
        self.long_lived = long_lived
        self.in_flight = 0
        self.last = time.monotonic()

    def touch(self) -> None:
        """Something happened that is not a request (a websocket frame, say)."""
        self.last = time.monotonic()

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path in self.long_lived:
            self.touch()
            return await handler(request)
        self.in_flight += 1
        self.touch()
        try:
            return await handler(request)
        finally:
            self.in_flight -= 1
            self.touch()

    async def until_idle(self, quiet: float = 0.3, within: float = 10.0) -> None:
        """Returns once no request is in flight and none came for `quiet` seconds; raises
        TimeoutError if that takes more than `within`."""
        deadline = time.monotonic() + within
        while True:
            now = time.monotonic()
            idle_for = now - self.last
            if self.in_flight == 0 and idle_for >= quiet:
                return
            if now >= deadline:
                raise TimeoutError(f"still busy after {within} s ({self.in_flight} in flight)")
            await asyncio.sleep(min(max(quiet - idle_for, 0.01), deadline - now))
