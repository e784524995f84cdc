"""The scheduler: exactly once per date across instances and restarts, catch-up, failures,
closing old posts, streaks, and its run loop. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.decks.model import DeckLibrary
from bot.domain.clock import ManualClock
from bot.domain.records import NewSchedule, SlotStatus
from bot.domain.schedule import Schedule
from bot.service.ports import QuizStore
from tests.core.schedule_fakes import FakeDelivery, World, admin, user, world
from tests.storage.databases import Database

WEDNESDAY = date(2026, 3, 4)
NINE = datetime(2026, 3, 4, 3, 0, tzinfo=UTC)  # 09:00 in Dhaka, Wednesday 4 March
BEFORE = NINE - timedelta(hours=2)


def at(day: int, seconds: float = 4, base: datetime = NINE) -> datetime:
    """`seconds` after the 09:00 (Dhaka) minute, `day` days after Wednesday 4 March."""
    return base + timedelta(days=day, seconds=seconds)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(BEFORE)


@pytest.fixture
def w(store: QuizStore, clock: ManualClock) -> World:
    return world(store, clock)


async def daily(
    w: World, channel: str = "C1", days: str = "daily", server: str = "slack:T1"
) -> Schedule:
    return (
        await w.schedules.set(admin(server), channel, "09:00", "Asia/Dhaka", "demo", days)
    ).info.schedule


async def test_three_instances_racing_post_once_a_day(db: Database, clock: ManualClock) -> None:
    delivery = FakeDelivery()
    worlds = [world(await db.open(), clock, delivery=delivery, seed=i) for i in range(3)]
    ones = [await daily(worlds[0], "C1"), await daily(worlds[0], "C2", server="discord:7")]
    for day in range(5):
        clock.set(at(day, 3))
        for _ in range(2):
            reports = await asyncio.gather(*(x.scheduler.tick() for x in worlds))
            assert all(r.failed == [] for r in reports)
    for schedule in ones:
        views = delivery.in_channel(schedule.channel_id)
        assert [v.post.opened_at for v in views] == [at(day, 3) for day in range(5)]
        reveals = [r for r in delivery.reveals if r.view.post.channel_id == schedule.channel_id]
        assert [r.view.post.id for r in reveals] == [v.post.id for v in views[:-1]]
        slots = await worlds[1].store.recent_slots(schedule.id, 10)
        assert [s.status for s in slots] == [SlotStatus.POSTED] * 5
        assert {s.post_id for s in slots} == {v.post.id for v in views}


async def test_stopped_before_the_minute_started_after_it_posts_once(
    db: Database, clock: ManualClock
) -> None:
    delivery = FakeDelivery()
    first = world(await db.open(), clock, delivery=delivery)
    await daily(first)
    clock.set(NINE - timedelta(seconds=10))
    assert (await first.scheduler.tick()).posted == []
    await first.store.close()  # the bot stops...
    clock.set(NINE + timedelta(minutes=10))  # ...and starts again ten minutes late
    second = world(await db.open(), clock, delivery=delivery)
    assert len((await second.scheduler.tick()).posted) == 1
    clock.advance(timedelta(minutes=1))
    assert (await second.scheduler.tick()).posted == []
    clock.advance(timedelta(hours=2))
    third = world(await db.open(), clock, delivery=delivery)
    assert (await third.scheduler.tick()).posted == []
    assert [v.post.opened_at for v in delivery.posts] == [NINE + timedelta(minutes=10)]


async def test_a_slot_within_the_catch_up_window_posts_late(w: World, clock: ManualClock) -> None:
    await daily(w)
    clock.set(NINE + timedelta(hours=5, minutes=59))
    assert len((await w.scheduler.tick()).posted) == 1


async def test_a_slot_missed_by_more_than_catch_up_hours_is_skipped(
    w: World, clock: ManualClock
) -> None:
    schedule = await daily(w)
    clock.set(NINE + timedelta(hours=6, minutes=1))
    report = await w.scheduler.tick()
    assert report.posted == [] and report.skipped == [schedule.id]
    assert w.delivery.posts == []
    [info] = (await w.schedules.show(admin())).items
    assert info.last_slot is not None and info.last_slot.status is SlotStatus.SKIPPED
    assert info.next.local_date == WEDNESDAY + timedelta(days=1)
    assert (await w.scheduler.tick()).skipped == []  # told once
    clock.set(at(1))
    assert len((await w.scheduler.tick()).posted) == 1  # the next day is normal


async def test_a_shorter_catch_up_window(store: QuizStore, clock: ManualClock) -> None:
    w = world(store, clock, catch_up_hours=1)
    await daily(w)
    clock.set(NINE + timedelta(hours=1, minutes=1))
    assert (await w.scheduler.tick()).posted == []


async def test_set_after_the_minute_first_posts_the_next_day(w: World, clock: ManualClock) -> None:
    clock.set(NINE + timedelta(minutes=1))
    await daily(w)
    assert (await w.scheduler.tick()).posted == []
    clock.set(at(1))
    assert len((await w.scheduler.tick()).posted) == 1


async def test_weekdays_skip_the_weekend(w: World, clock: ManualClock) -> None:
    await daily(w, days="weekdays")
    for day in range(7):  # Wednesday to Tuesday
        clock.set(at(day))
        await w.scheduler.tick()
    posted = [v.post.opened_at.date() for v in w.delivery.posts]
    assert [d.strftime("%a") for d in posted] == ["Wed", "Thu", "Fri", "Mon", "Tue"]


async def test_off_stops_posting(w: World, clock: ManualClock) -> None:
    await daily(w)
    await w.schedules.off(admin(), "C1")
    clock.set(at(0))
    assert (await w.scheduler.tick()).posted == []


async def test_a_deck_gone_is_told_to_the_admin_in_words(w: World, clock: ManualClock) -> None:
    await daily(w)
    w.quiz.catalog.decks = DeckLibrary([])  # the deck file was removed and the decks reloaded
    clock.set(at(0))
    assert (await w.scheduler.tick()).posted == []
    [(_, reason)] = w.delivery.failures
    assert reason == "its deck demo is not loaded any more (was it removed or renamed?)"


async def test_a_failing_delivery_is_recorded_and_the_others_still_post(
    w: World, clock: ManualClock
) -> None:
    ok = await daily(w, "C-ok")
    gone = await daily(w, "C-gone")
    boom = await daily(w, "C-boom")
    w.delivery.fail["C-gone"] = "channel_not_found"
    w.delivery.explode.add("C-boom")
    clock.set(at(0))
    report = await w.scheduler.tick()
    assert len(report.posted) == 1 and sorted(report.failed) == sorted([gone.id, boom.id])
    assert [v.post.channel_id for v in w.delivery.posts] == ["C-ok"]
    assert sorted((s.channel_id, r) for s, r in w.delivery.failures) == [
        ("C-boom", "the bot met an unexpected error (its log has the details)"),
        ("C-gone", "channel_not_found"),
    ]
    [slot] = await w.store.recent_slots(gone.id, 5)
    assert (slot.status, slot.error) == (SlotStatus.FAILED, "channel_not_found")
    assert slot.post_id is not None
    discarded = await w.store.post(slot.post_id)
    assert discarded is not None and not discarded.is_open and discarded.schedule_id is None
    infos = {i.schedule.channel_id: i for i in (await w.schedules.show(admin())).items}
    assert infos["C-gone"].last_failure == slot
    assert infos["C-ok"].last_failure is None
    # Not retried that date; once the channel is back, the next day posts and the
    # failure is no longer shown.
    clock.advance(timedelta(minutes=1))
    assert (await w.scheduler.tick()).failed == []
    del w.delivery.fail["C-gone"]
    clock.set(at(1))
    assert len((await w.scheduler.tick()).posted) == 2
    infos = {i.schedule.channel_id: i for i in (await w.schedules.show(admin())).items}
    assert infos["C-gone"].last_failure is None
    assert ok.id != gone.id


async def test_a_broken_schedule_or_store_never_stops_the_loop(
    w: World,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await daily(w, "C1")
    gone = NewSchedule("slack:T1", "C0", "09:00", "Asia/Dhaka", "no-deck", "daily", "boss", BEFORE)
    broken = await w.store.put_schedule(gone)
    clock.set(at(0))
    report = await w.scheduler.tick()
    assert report.failed == [broken.id] and len(report.posted) == 1
    [slot] = await w.store.recent_slots(broken.id, 1)
    assert slot.error is not None and slot.error.startswith("its deck no-deck is not loaded")

    looked = 0
    many = asyncio.Event()

    async def down() -> None:
        nonlocal looked
        looked += 1
        if looked == 6:
            many.set()
        raise ConnectionError("database is down")

    monkeypatch.setattr(w.store, "enabled_schedules", down)
    with pytest.raises(ConnectionError):  # a tick that could do nothing says so...
        await w.scheduler.tick()
    with caplog.at_level(logging.INFO, logger="quizbot.scheduler"):
        running = asyncio.create_task(w.scheduler.run())  # ...and the loop goes on
        await asyncio.wait_for(many.wait(), timeout=10)
        assert not running.done()
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
    said = [r for r in caplog.records if "database is down" in r.getMessage()]
    assert said[0].getMessage() == (
        "the scheduler failed: ConnectionError: database is down; trying again in 15 s"
    )
    assert all("still failing" in r.getMessage() for r in said[1:])  # at most once a minute
    assert len(said) < looked and not any(r.exc_info for r in said)  # no traceback a tick


async def test_a_failing_reveal_does_not_stop_the_next_post(w: World, clock: ManualClock) -> None:
    await daily(w)
    clock.set(at(0))
    await w.scheduler.tick()
    w.delivery.refuse_reveals = True
    clock.set(at(1))
    assert len((await w.scheduler.tick()).posted) == 1
    assert len(w.delivery.posts) == 2


async def test_a_platform_without_delivery_is_left_alone(
    store: QuizStore, clock: ManualClock
) -> None:
    w = world(store, clock, platforms=("slack",))
    schedule = await daily(w, server="discord:1")
    clock.set(at(0))
    assert (await w.scheduler.tick()).posted == []
    assert await store.recent_slots(schedule.id, 5) == []  # unclaimed: its platform may post it


async def test_close_after_hours_closes_with_the_reveal(
    store: QuizStore, clock: ManualClock
) -> None:
    w = world(store, clock, close_after_hours=2)
    await daily(w)
    manual = await w.quiz.answering.post(user("ana"), "C1", "demo", "q1")
    clock.set(at(0))
    [post_id] = (await w.scheduler.tick()).posted
    clock.set(at(0) + timedelta(hours=1))
    assert (await w.scheduler.tick()).closed == []
    clock.set(at(0) + timedelta(hours=2, seconds=15))
    assert (await w.scheduler.tick()).closed == [post_id]
    assert [r.view.post.id for r in w.delivery.reveals] == [post_id]
    still = await store.post(manual.post.id)
    assert still is not None and still.is_open
    clock.set(at(1))
    assert len((await w.scheduler.tick()).posted) == 1
    assert [r.view.post.id for r in w.delivery.reveals] == [post_id]  # not revealed twice


async def test_a_replaced_schedule_keeps_its_question_cycle(w: World, clock: ManualClock) -> None:
    await daily(w)
    asked = []
    for day in range(7):
        if day == 3:
            await w.schedules.set(admin(), "C1", "09:00", "Asia/Dhaka", "demo", "daily")
        clock.set(at(day))
        await w.scheduler.tick()
        asked.append(w.delivery.posts[-1].question.id)
    assert sorted(asked) == [f"q{i}" for i in range(1, 8)]


async def test_streak_over_a_week_of_weekday_posts(w: World, clock: ManualClock) -> None:
    await daily(w, days="weekdays")
    for day in range(7):  # Wed, Thu, Fri, (Sat, Sun skipped), Mon, Tue
        clock.set(at(day))
        posted = (await w.scheduler.tick()).posted
        if not posted:
            continue
        view = w.delivery.posts[-1]
        right = view.post.order.index(view.question.answer)
        clock.advance(timedelta(minutes=5))
        ana = await w.quiz.answering.answer(user("ana"), view.post.id, right)
        if view.post.opened_at.strftime("%a") != "Mon":
            await w.quiz.answering.answer(user("bo"), view.post.id, right)
    assert len(w.delivery.posts) == 5
    assert ana.streak == 5  # the weekend does not break it
    assert await w.store.streak("slack:T1", "bo") == 1  # missed Monday's
    stats = await w.quiz.boards.stats(user("ana"))
    assert stats.streak == 5


async def test_run_ticks_until_cancelled_and_posts_within_30_seconds(
    w: World, clock: ManualClock
) -> None:
    await daily(w)
    clock.set(NINE - timedelta(seconds=50))
    task = asyncio.create_task(w.scheduler.run())
    await asyncio.wait_for(w.delivery.posted.wait(), timeout=10)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()
    [view] = w.delivery.posts
    assert timedelta(0) <= view.post.opened_at - NINE <= timedelta(seconds=30)


async def test_a_claim_that_never_posted_is_taken_over_within_the_catch_up_window(
    w: World, clock: ManualClock
) -> None:
    """Before, a date claimed just before a database blip (or a crash) stayed claimed and
    unposted for good."""
    schedule = await daily(w)
    assert await w.store.claim_slot(schedule.id, WEDNESDAY, at(0, 3))  # then nothing
    clock.set(at(0, 60))
    await w.scheduler.tick()  # a minute later: the first attempt may still be under way
    assert w.delivery.in_channel("C1") == []
    clock.set(at(0, 6 * 60))
    report = await w.scheduler.tick()
    assert report.failed == [] and len(w.delivery.in_channel("C1")) == 1
    (slot,) = await w.store.recent_slots(schedule.id, 10)
    assert slot.status is SlotStatus.POSTED
    assert slot.post_id == w.delivery.in_channel("C1")[0].post.id
    clock.set(at(0, 20 * 60))
    await w.scheduler.tick()
    assert len(w.delivery.in_channel("C1")) == 1  # once


async def test_a_taken_over_claim_whose_question_did_go_out_is_not_posted_again(
    w: World, clock: ManualClock
) -> None:
    schedule = await daily(w)
    clock.set(at(0, 3))
    assert await w.store.claim_slot(schedule.id, WEDNESDAY, at(0, 3))
    view = await w.quiz.answering.post(admin(), "C1", "demo", None, schedule_id=schedule.id)
    # Sent; then the blip: never finished:
    await w.quiz.answering.set_message(view.post.id, "msg-sent")
    clock.set(at(0, 10 * 60))
    await w.scheduler.tick()
    assert w.delivery.in_channel("C1") == []  # nothing sent twice
    (slot,) = await w.store.recent_slots(schedule.id, 10)
    assert (slot.status, slot.post_id) == (SlotStatus.POSTED, view.post.id)


async def test_a_stuck_claim_past_the_catch_up_window_is_left_alone(
    store: QuizStore, clock: ManualClock
) -> None:
    w = world(store, clock, catch_up_hours=1)
    schedule = await daily(w)
    assert await w.store.claim_slot(schedule.id, WEDNESDAY, at(0, 3))
    clock.set(at(0, 2 * 3600))
    await w.scheduler.tick()
    assert w.delivery.in_channel("C1") == []
    (slot,) = await w.store.recent_slots(schedule.id, 10)
    assert slot.status is SlotStatus.CLAIMED
