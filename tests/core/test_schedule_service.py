"""`schedule set|show|off|now` (the `Schedules` service) and their messages, on both databases."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.domain.clock import ManualClock
from bot.domain.errors import QuizError
from bot.domain.records import SlotStatus
from bot.presentation.schedule_messages import (
    delivery_failure_text,
    local_when,
    schedule_list_message,
    schedule_now_text,
    schedule_off_message,
    schedule_set_message,
)
from bot.service.ports import QuizStore
from tests import factories
from tests.core.schedule_fakes import World, admin, user, world

START = datetime(2026, 3, 4, 1, 0, tzinfo=UTC)  # Wednesday 07:00 in Dhaka


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def w(store: QuizStore, clock: ManualClock) -> World:
    return world(store, clock)


def channel(cid: str) -> str:
    return f"<#{cid}>"


async def test_set_stores_the_schedule_and_the_server_zone(w: World) -> None:
    result = await w.schedules.set(admin(), "C1", "9:05", "asia/dhaka", "demo", "weekdays")
    s = result.info.schedule
    assert (s.server_id, s.channel_id, s.time, s.zone, s.deck_id, s.days, s.created_by) == (
        "slack:T1",
        "C1",
        "09:05",
        "Asia/Dhaka",
        "demo",
        "weekdays",
        "boss",
    )
    assert s.enabled and result.replaced is None
    assert result.info.next_local == datetime(2026, 3, 4, 9, 5, tzinfo=s.tz)
    assert result.info.next_utc == datetime(2026, 3, 4, 3, 5, tzinfo=UTC)
    assert (await w.store.server("slack:T1")).timezone == "Asia/Dhaka"


async def test_set_replaces_the_channel_s_schedule(w: World) -> None:
    first = await w.schedules.set(admin(), "C1", "09:00", "UTC")
    second = await w.schedules.set(admin(), "C1", "18:00", "Europe/London", days="weekdays")
    assert second.info.schedule.id == first.info.schedule.id
    assert second.replaced == first.info.schedule
    assert [i.schedule.time for i in (await w.schedules.show(admin())).items] == ["18:00"]
    assert (await w.store.server("slack:T1")).timezone == "Europe/London"


async def test_set_without_a_deck_follows_the_default(store: QuizStore, clock: ManualClock) -> None:
    """It names no deck: each post is from the server's default deck of the day (here the
    first by id, as nothing else is set)."""
    w = world(store, clock, decks=factories.library(factories.deck("b"), factories.deck("a")))
    result = await w.schedules.set(admin(), "C1", "09:00", "UTC")
    assert result.info.schedule.deck_id is None
    assert result.info.deck is not None and result.info.deck.id == "a"


BAD_WORDS = [
    ("24:00", "UTC", None, "daily", "bad_time"),
    ("9:60", "UTC", None, "daily", "bad_time"),
    ("09:00", "Asia/Dhak", None, "daily", "unknown_zone"),
    ("09:00", "UTC", "nope", "daily", "unknown_deck"),
    ("09:00", "UTC", None, "weekends", "bad_days"),
]


async def test_set_refuses_bad_words(w: World) -> None:
    for time, zone, deck, days, key in BAD_WORDS:
        with pytest.raises(QuizError) as refused:
            await w.schedules.set(admin(), "C1", time, zone, deck, days)
        assert refused.value.key == key
    assert await w.store.schedule_in_channel("slack:T1", "C1") is None


async def test_unknown_zone_suggests_the_closest(w: World) -> None:
    with pytest.raises(QuizError) as refused:
        await w.schedules.set(admin(), "C1", "09:00", "America/New_Yrok")
    assert refused.value.params == {"zone": "America/New_Yrok", "suggestion": "America/New_York"}


async def test_every_schedule_command_is_for_admins(w: World) -> None:
    await w.schedules.set(admin(), "C1", "09:00", "UTC")
    calls = [
        w.schedules.set(user("ana"), "C1", "09:00", "UTC"),
        w.schedules.show(user("ana")),
        w.schedules.off(user("ana"), "C1"),
        w.schedules.now(user("ana"), "C1", w.delivery),
    ]
    for call in calls:
        with pytest.raises(QuizError) as refused:
            await call
        assert refused.value.key == "admin_only"
    kept = await w.store.schedule_in_channel("slack:T1", "C1")
    assert kept is not None and kept.enabled


async def test_show_lists_the_server_s_schedules_or_one_channel_s(w: World) -> None:
    await w.schedules.set(admin(), "C2", "21:00", "America/New_York")
    await w.schedules.set(admin(), "C1", "09:00", "Asia/Dhaka", days="weekdays")
    await w.schedules.set(admin("slack:T2"), "C9", "09:00", "UTC")
    everything = await w.schedules.show(admin())
    assert [i.schedule.channel_id for i in everything.items] == ["C1", "C2"]
    c2 = everything.items[1]
    assert c2.next_local == datetime(2026, 3, 3, 21, 0, tzinfo=c2.schedule.tz)  # 20:00 there now
    assert c2.next_utc == datetime(2026, 3, 4, 2, 0, tzinfo=UTC)
    assert c2.last_slot is None and c2.last_failure is None
    one = await w.schedules.show(admin(), "C1")
    assert [i.schedule.channel_id for i in one.items] == ["C1"] and one.channel_id == "C1"
    assert (await w.schedules.show(admin(), "C7")).items == []


async def test_show_skips_a_date_already_posted(w: World, clock: ManualClock) -> None:
    s = (await w.schedules.set(admin(), "C1", "09:00", "Asia/Dhaka")).info.schedule
    await w.store.claim_slot(s.id, date(2026, 3, 4), clock.now())
    # Moved to later the same day after today posted: the next post is tomorrow's.
    await w.schedules.set(admin(), "C1", "12:00", "Asia/Dhaka")
    [info] = (await w.schedules.show(admin())).items
    assert info.next.local_date == date(2026, 3, 5)


async def test_off_stops_the_channel_s_schedule(w: World) -> None:
    await w.schedules.set(admin(), "C1", "09:00", "UTC")
    off = await w.schedules.off(admin(), "C1")
    assert off.schedule.channel_id == "C1" and not off.schedule.enabled
    assert (await w.schedules.show(admin())).items == []
    for call in (w.schedules.off(admin(), "C1"), w.schedules.now(admin(), "C1", w.delivery)):
        with pytest.raises(QuizError) as refused:
            await call
        assert refused.value.key == "no_schedule"


async def test_now_posts_the_schedule_s_next_question(w: World, clock: ManualClock) -> None:
    s = (await w.schedules.set(admin(), "C1", "09:00", "Asia/Dhaka")).info.schedule
    first = await w.schedules.now(admin(), "C1", w.delivery)
    assert first.view.post.schedule_id == s.id and first.reveals == []
    assert first.view.post.channel_id == "C1" and first.view.post.poster_id == "boss"
    clock.advance(timedelta(minutes=1))
    second = await w.schedules.now(admin(), "C1", w.delivery)
    assert [r.view.post.id for r in second.reveals] == [first.view.post.id]
    assert second.reveals[0].closed_now
    assert second.view.question.id != first.view.question.id  # counts for the cycle
    assert await w.store.recent_slots(s.id, 5) == []  # claims no date
    clock.set(datetime(2026, 3, 4, 3, 0, 5, tzinfo=UTC))  # 09:00:05 in Dhaka
    report = await w.scheduler.tick()
    assert len(report.posted) == 1  # the day's own post still comes
    shown = [r.view.post.id for r in w.delivery.reveals]
    assert shown == [first.view.post.id, second.view.post.id]  # `now` showed the first


async def test_show_reports_a_failure_until_a_post_succeeds(w: World) -> None:
    s = (await w.schedules.set(admin(), "C1", "09:00", "Asia/Dhaka")).info.schedule
    day = date(2026, 3, 4)
    await w.store.claim_slot(s.id, day, START)
    await w.store.finish_slot(s.id, day, SlotStatus.FAILED, error="not_in_channel")
    [info] = (await w.schedules.show(admin())).items
    assert info.last_failure is not None and info.last_failure.error == "not_in_channel"
    await w.store.claim_slot(s.id, day + timedelta(days=1), START)
    await w.store.finish_slot(s.id, day + timedelta(days=1), SlotStatus.POSTED)
    [info] = (await w.schedules.show(admin())).items
    assert info.last_failure is None


# Messages ---------------------------------------------------------------------------


async def test_messages_in_english(w: World) -> None:
    await w.schedules.set(admin(), "C1", "09:00", "UTC", days="weekdays")
    replaced = await w.schedules.set(admin(), "C1", "9:30", "Asia/Dhaka")
    message = schedule_set_message(replaced, channel)
    assert message.title == (
        "Daily question set for <#C1>: every day at 09:30 (Asia/Dhaka), deck Demo demo "
        "(this server's default deck, followed as it changes)."
    )
    assert message.lines == [
        "Next question: Wednesday 2026-03-04 09:30 (Asia/Dhaka) · 2026-03-04 03:30 UTC",
        "It replaces the earlier schedule: Monday to Friday at 09:00 (UTC).",
        "This server's weeks and months (leaderboards) now count in Asia/Dhaka.",
    ]
    shown = schedule_list_message(await w.schedules.show(admin()), channel)
    assert shown.title == "Daily questions"
    assert shown.lines[0] == (
        "<#C1>: every day at 09:30 (Asia/Dhaka) · deck Demo demo "
        "(this server's default deck, followed as it changes)"
    )
    assert shown.fallback.startswith("Daily questions\n<#C1>")
    assert schedule_off_message(await w.schedules.off(admin(), "C1"), channel) == (
        "The daily question in <#C1> is off. Turn it on again with /quiz schedule set."
    )
    empty = schedule_list_message(await w.schedules.show(admin()), channel)
    assert empty.lines[0].startswith("No daily question is scheduled here.")


async def test_messages_in_bengali(w: World) -> None:
    await w.quiz.membership.set_language(admin(), "bn", server=True)
    result = await w.schedules.set(admin(), "C1", "9:30", "Asia/Dhaka", "demo", "weekdays")
    message = schedule_set_message(result, channel)
    assert message.title == (
        "<#C1>-এ ডেইলি প্রশ্ন সেট হয়ে গেছে: সোম থেকে শুক্রবার, ০৯:৩০-এ (Asia/Dhaka), ডেক ডেমো demo।"
    )
    following = await w.schedules.set(admin(), "C2", "9:30", "Asia/Dhaka")
    assert schedule_set_message(following, channel).title == (
        "<#C2>-এ ডেইলি প্রশ্ন সেট হয়ে গেছে: প্রতিদিন, ০৯:৩০-এ (Asia/Dhaka), "
        "ডেক ডেমো demo (এই সার্ভারের ডিফল্ট ডেক; ডিফল্ট বদলালে এটাও বদলাবে)।"
    )
    assert message.lines[0] == (
        "পরের প্রশ্ন: বুধবার ২০২৬-০৩-০৪ ০৯:৩০ (Asia/Dhaka) · UTC-তে ২০২৬-০৩-০৪ ০৩:৩০"
    )
    now = await w.schedules.now(admin(), "C1", w.delivery)
    assert schedule_now_text(now) == "শিডিউলের পরের প্রশ্নটা এখনই পোস্ট করা হলো।"


async def test_show_message_tells_failures_and_skips(w: World) -> None:
    s = (await w.schedules.set(admin(), "C1", "09:00", "Asia/Dhaka")).info.schedule
    await w.store.claim_slot(s.id, date(2026, 3, 3), START)
    await w.store.finish_slot(s.id, date(2026, 3, 3), SlotStatus.FAILED, error="channel_not_found")
    await w.store.claim_slot(s.id, date(2026, 3, 4), START, SlotStatus.SKIPPED)
    lines = schedule_list_message(await w.schedules.show(admin()), channel).lines
    assert lines[2:] == [
        "⚠️ The question of 2026-03-03 could not be posted: channel_not_found",
        "The question of 2026-03-04 was skipped: the bot was offline past the catch-up window.",
    ]
    text = delivery_failure_text(s, "channel_not_found", "en", channel)
    assert text.startswith("The daily question for <#C1> could not be posted: channel_not_found.")


async def test_show_tells_a_claim_never_confirmed(w: World, clock: ManualClock) -> None:
    s = (await w.schedules.set(admin(), "C1", "09:00", "Asia/Dhaka")).info.schedule
    await w.store.claim_slot(s.id, date(2026, 3, 4), clock.now())
    [info] = (await w.schedules.show(admin())).items
    assert info.unconfirmed is None  # a post may be under way
    clock.advance(timedelta(minutes=30))
    [info] = (await w.schedules.show(admin())).items
    assert info.unconfirmed is not None
    shown = schedule_list_message(await w.schedules.show(admin()), channel)
    assert "claimed but never confirmed" in shown.fallback


def test_local_when_uses_the_instant_s_own_zone() -> None:
    from zoneinfo import ZoneInfo

    when = datetime(2026, 11, 1, 5, 30, tzinfo=UTC).astimezone(ZoneInfo("America/New_York"))
    assert local_when("en", when) == "Sunday 2026-11-01 01:30"
    assert local_when("bn", when) == "রবিবার ২০২৬-১১-০১ ০১:৩০"
