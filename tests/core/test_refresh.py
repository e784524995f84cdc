"""Coalesced refreshes: many touches become one refresh per interval, and `flush` waits for a
refresh already under way (shutdown and tests read what it did)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bot.domain.clock import ManualClock
from bot.service.refresh import Refresher


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
