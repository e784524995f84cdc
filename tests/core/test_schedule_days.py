"""Sixty simulated days of daily questions in New York, London and Dhaka, across both DST
changes of spring and of autumn: spring on SQLite, autumn on PostgreSQL (the DST logic is
the same Python on both; each database still sees sixty days of claims, posts and reveals,
and the race tests run on both).

The clock is a ManualClock. The scheduler is ticked 11 s before and 4 s after each expected
minute, as `run`'s 15 s ticks would meet it, and every six hours besides, so a slot computed
wrong would post at a wrong local time (and fail the test) rather than not at all. No
sleeping: sixty days take a few seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as wall_time
from zoneinfo import ZoneInfo

import pytest

from bot.domain.clock import ManualClock
from bot.domain.records import SlotStatus
from bot.domain.schedule import Days
from bot.service.ports import QuizStore
from tests.core.schedule_fakes import FakeDelivery, admin, world

SIMULATED_DAYS = 60
DECK_SIZE = 7
FIRST_DAY = {
    "spring": date(2026, 2, 20),  # New York springs forward on 8 March, London on 29 March
    "autumn": date(2026, 10, 1),  # London falls back on 25 October, New York on 1 November
}


@dataclass(frozen=True)
class Plan:
    server: str
    channel: str
    zone: str
    time: str
    days: Days


PLANS = [
    Plan("slack:TNY", "C-ny-0230", "America/New_York", "02:30", "daily"),
    # Another workspace: two daily questions on one deck in one server can meet on a
    # question, which then waits (fair play; tests/core/test_fair_play.py), bending the cycle.
    Plan("slack:TNY2", "C-ny-0130", "America/New_York", "01:30", "daily"),
    Plan("discord:44", "C-london-0130", "Europe/London", "01:30", "daily"),
    Plan("slack:TDK", "C-dhaka-0900", "Asia/Dhaka", "09:00", "weekdays"),
]

JUMPS = {
    ("America/New_York", date(2026, 3, 8), "02:30"): "03:00",
    ("Europe/London", date(2026, 3, 29), "01:30"): "02:00",
}
"""Local times that do not exist on a spring-forward day: they post when the clock jumps."""
FIRST_OF_TWO = {
    ("America/New_York", date(2026, 11, 1), "01:30"): datetime(2026, 11, 1, 5, 30, tzinfo=UTC),
    ("Europe/London", date(2026, 10, 25), "01:30"): datetime(2026, 10, 25, 0, 30, tzinfo=UTC),
}
"""Local times that happen twice on a fall-back day: they post at the first (summer) one."""


def expected(plan: Plan, first_day: date) -> list[tuple[date, str, datetime]]:
    """(local date, local HH:MM, UTC instant) of every post the plan should make."""
    tz = ZoneInfo(plan.zone)
    out = []
    for i in range(SIMULATED_DAYS):
        day = first_day + timedelta(days=i)
        if plan.days == "weekdays" and day.weekday() >= 5:
            continue
        wall = JUMPS.get((plan.zone, day, plan.time), plan.time)
        hours, minutes = map(int, wall.split(":"))
        at = datetime.combine(day, wall_time(hours, minutes), tz).astimezone(UTC)
        out.append((day, wall, FIRST_OF_TWO.get((plan.zone, day, plan.time), at)))
    return out


@pytest.mark.parametrize(
    ("db", "season"), [("sqlite", "spring"), ("postgresql", "autumn")], indirect=["db"]
)
async def test_sixty_days_one_post_a_day_at_its_local_time(store: QuizStore, season: str) -> None:
    first_day = FIRST_DAY[season]
    start = datetime.combine(first_day, wall_time(0, 0), UTC)
    clock = ManualClock(start)
    slack, discord = FakeDelivery(), FakeDelivery()
    w = world(store, clock)
    w.deliveries.register("slack", slack)
    w.deliveries.register("discord", discord)
    plans = {}
    for plan in PLANS:
        result = await w.schedules.set(
            admin(plan.server), plan.channel, plan.time, plan.zone, "demo", plan.days
        )
        plans[plan] = (result.info.schedule, expected(plan, first_day))

    ticks = {start + timedelta(hours=6 * k, seconds=7) for k in range(4 * SIMULATED_DAYS)}
    for _, wanted in plans.values():
        for _, _, at in wanted:
            ticks.update((at - timedelta(seconds=11), at + timedelta(seconds=4)))
    for when in sorted(ticks):
        clock.set(when)
        report = await w.scheduler.tick()
        assert report.failed == [] and report.skipped == []

    exercised = set()
    for plan, (schedule, wanted) in plans.items():
        delivery = slack if plan.server.startswith("slack:") else discord
        views = delivery.in_channel(plan.channel)
        tz = ZoneInfo(plan.zone)
        # Exactly one post per scheduled day, none on skipped days, at the local time.
        assert [
            (
                v.post.opened_at.astimezone(tz).date(),
                v.post.opened_at.astimezone(tz).strftime("%H:%M"),
            )
            for v in views
        ] == [(day, wall) for day, wall, _ in wanted], plan
        for view, (day, _, at) in zip(views, wanted, strict=True):
            late = view.post.opened_at - at
            assert timedelta(0) <= late <= timedelta(seconds=30), (plan, day)
            assert view.post.schedule_id == schedule.id and view.post.server_id == plan.server
            if (plan.zone, day, plan.time) in JUMPS or (plan.zone, day, plan.time) in FIRST_OF_TWO:
                exercised.add((plan.zone, day, plan.time))
        # Each post closes, with its public reveal, when the next one posts.
        reveals = [r for r in delivery.reveals if r.view.post.channel_id == plan.channel]
        assert [r.view.post.id for r in reveals] == [v.post.id for v in views[:-1]]
        for reveal, following in zip(reveals, views[1:], strict=True):
            assert reveal.closed_now and reveal.view.post.closed_at == following.post.opened_at
        last = await store.post(views[-1].post.id)
        assert last is not None and last.is_open and last.message_ref == f"msg-{last.id}"
        # No repeat until the whole deck was asked; then a new cycle.
        asked = [v.question.id for v in views]
        cycles = [asked[i : i + DECK_SIZE] for i in range(0, len(asked), DECK_SIZE)]
        for cycle in cycles:
            assert len(set(cycle)) == len(cycle), (plan, cycle)
        assert all(len(set(c)) == DECK_SIZE for c in cycles[:-1])
        assert len({tuple(c) for c in cycles[:-1]}) > 1
        slots = await store.recent_slots(schedule.id, 100)
        assert len(slots) == len(wanted)
        assert {s.status for s in slots} == {SlotStatus.POSTED}
    assert slack.failures == [] and discord.failures == []
    # The DST cases of this season really happened in the window.
    assert exercised == (
        {k for k in JUMPS if k[1].month == 3}
        if season == "spring"
        else {k for k in FIRST_OF_TWO if k[1].month in (10, 11)}
    )
