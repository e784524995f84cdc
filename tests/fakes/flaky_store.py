"""A store that fails on demand: the real one behind it, with named methods refusing as an
unavailable database does (`StoreUnavailable`), for tests of what survives a fault."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any, cast

from bot.service.ports import QuizStore, StoreUnavailable


class FlakyStore:
    """Passes every call to `store`, except that a method named in `failing` raises
    StoreUnavailable instead, that many times (-1: until told otherwise). `calls` counts
    each method's calls, failed or not."""

    def __init__(self, store: QuizStore) -> None:
        self._store = store
        self.failing: dict[str, int] = {}
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._store, name)
        if name.startswith("_") or not callable(found):
            return found
        return self._wrapped(name, found)

    def _wrapped(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            left = self.failing.get(name, 0)
            if left:
                if left > 0:
                    self.failing[name] = left - 1
                raise StoreUnavailable()
            return await method(*args, **kwargs)

        return call

    def as_store(self) -> QuizStore:
        return cast(QuizStore, self)


async def until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    """Lets background tasks run until `check()` holds (on the ManualClock, their sleeps
    pass at once); fails after `seconds` of real time."""
    async with asyncio.timeout(seconds):
        while True:
            if check():
                return
            await asyncio.sleep(0)
