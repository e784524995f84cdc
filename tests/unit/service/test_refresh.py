"""Coalesced refreshes: many touches become one refresh per interval, and `flush` waits for a
refresh already under way (shutdown and tests read what it did)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bot.domain.clock import ManualClock
from bot.service.refresh import Refresher, TryLater


async def test_flush_waits_for_a_refresh_under_way() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    done: list[str] = []

    async def slow_edit(key: str) -> None:
        started.set()
        await release.wait()
        done.append(key)

    refresher = Refresher(slow_edit, ManualClock(datetime(2026, 1, 1, tzinfo=UTC)), 1.0)
    for _ in range(50):
        refresher.touch("post")
    await started.wait()  # the interval passed; the edit is in flight
    flushing = asyncio.create_task(refresher.flush())
    await asyncio.sleep(0.01)
    assert not flushing.done()  # before: flush saw nothing waiting and returned at once
    release.set()
    await flushing
    assert done == ["post"]


async def test_a_refresh_refused_for_now_is_tried_again_with_backoff_and_retry_after() -> None:
    """Issue 32, finding 13: a refusal that passes (`TryLater`) is tried again, the wait
    doubling from the interval and never shorter than the platform asked, until done."""
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    start = clock.now()
    tries: list[float] = []
    refusals = [TryLater("ratelimited", 10.0), TryLater("internal_error"), TryLater("x")]
    drawn = asyncio.Event()

    async def edit(key: str) -> None:
        tries.append((clock.now() - start).total_seconds())
        if refusals:
            raise refusals.pop(0)
        drawn.set()

    refresher = Refresher(edit, clock, 1.0)
    refresher.touch("post")
    await asyncio.wait_for(drawn.wait(), 5)
    assert tries == [1.0, 11.0, 13.0, 17.0]  # 1; then max(1, 10); then 2; then 4
    await refresher.flush()


async def test_a_click_during_the_backoff_is_covered_and_flush_does_not_wait_for_it() -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    refused = asyncio.Event()
    calls: list[str] = []

    async def edit(key: str) -> None:
        calls.append(key)
        refused.set()
        raise TryLater("ratelimited", 3600.0)

    refresher = Refresher(edit, SlowClock(clock), 1.0)
    refresher.touch("post")
    await refused.wait()
    await asyncio.sleep(0)
    refresher.touch("post")  # waiting to be tried again: this click is covered by it
    await asyncio.wait_for(refresher.flush(), 5)  # the hour-long backoff is dropped
    assert calls == ["post"]


class SlowClock:
    """A clock whose sleeps of more than a second never end by themselves."""

    def __init__(self, clock: ManualClock) -> None:
        self._clock = clock

    def now(self) -> datetime:
        return self._clock.now()

    async def sleep(self, seconds: float) -> None:
        if seconds > 1.0:
            await asyncio.Event().wait()
        await self._clock.sleep(seconds)
