"""The schedule model without a database: words, zones, slots over DST, question cycles."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from datetime import time as wall_time
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.domain.errors import QuizError
from bot.domain.schedule import (
    Days,
    Schedule,
    ScheduleArgs,
    cycle_order,
    local_instant,
    next_question,
    parse_days,
    parse_set_args,
    parse_time,
    parse_zone,
)
from tests import factories


def schedule(time: str, zone: str, days: Days = "daily", sid: int = 1) -> Schedule:
    return Schedule(sid, "slack:T1", "C1", time, zone, "demo", days, "boss")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


# Words ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "stored"),
    [("9:05", "09:05"), ("09:05", "09:05"), ("0:00", "00:00"), ("23:59", "23:59"),
     (" 17:30 ", "17:30"), ("০৯:০৫", "09:05")],
)  # fmt: skip
def test_times_are_24_hour_hh_mm(typed: str, stored: str) -> None:
    assert parse_time(typed) == stored


@pytest.mark.parametrize("typed", ["24:00", "9:60", "9", "9:5", "09:05pm", "", "-1:00", "1:2:3"])
def test_bad_times_are_refused(typed: str) -> None:
    with pytest.raises(QuizError) as refused:
        parse_time(typed)
    assert refused.value.key == "bad_time"
    assert refused.value.params == {"time": typed}


@pytest.mark.parametrize(
    ("typed", "zone"),
    [("UTC", "UTC"), ("utc", "UTC"), ("Asia/Dhaka", "Asia/Dhaka"), ("asia/dhaka", "Asia/Dhaka"),
     (" Europe/London ", "Europe/London"), ("AMERICA/NEW_YORK", "America/New_York")],
)  # fmt: skip
def test_zones_match_case_insensitively(typed: str, zone: str) -> None:
    assert parse_zone(typed) == zone


@pytest.mark.parametrize(
    ("typed", "suggestion"),
    [("Asia/Dhak", "Asia/Dhaka"), ("America/New_Yrok", "America/New_York"),
     ("Europe/Londn", "Europe/London"), ("Dhaka", "Asia/Dhaka"), ("new york", "America/New_York"),
     ("qqqqqqqq", "UTC")],
)  # fmt: skip
def test_an_unknown_zone_gets_a_suggestion(typed: str, suggestion: str) -> None:
    with pytest.raises(QuizError) as refused:
        parse_zone(typed)
    assert refused.value.key == "unknown_zone"
    assert refused.value.params == {"zone": typed, "suggestion": suggestion}


def test_days_words() -> None:
    assert parse_days(None) == "daily"
    assert parse_days("Weekdays") == "weekdays"
    with pytest.raises(QuizError) as refused:
        parse_days("weekends")
    assert refused.value.key == "bad_days"


@pytest.mark.parametrize(
    ("words", "args"),
    [
        (["9:00", "utc"], ScheduleArgs("09:00", "UTC", None, "daily")),
        (["9:00", "Asia/Dhaka", "weekdays"], ScheduleArgs("09:00", "Asia/Dhaka", None, "weekdays")),
        (["9:00", "Asia/Dhaka", "mpp"], ScheduleArgs("09:00", "Asia/Dhaka", "mpp", "daily")),
        (["9:00", "UTC", "mpp", "Weekdays"], ScheduleArgs("09:00", "UTC", "mpp", "weekdays")),
        (["9:00", "UTC", "daily", "mpp"], ScheduleArgs("09:00", "UTC", "mpp", "daily")),
    ],
)
def test_set_arguments(words: list[str], args: ScheduleArgs) -> None:
    assert parse_set_args(words) == args


@pytest.mark.parametrize(
    "words", [[], ["9:00"], ["9:00", "UTC", "a", "b"], ["9:00", "UTC", "daily", "weekdays"]]
)
def test_set_arguments_usage(words: list[str]) -> None:
    with pytest.raises(QuizError) as refused:
        parse_set_args(words)
    assert refused.value.key == "schedule_usage"


# Slots ----------------------------------------------------------------------------


def test_a_plain_day() -> None:
    s = schedule("09:00", "Asia/Dhaka")
    slot = s.slot_on(date(2026, 3, 4))
    assert slot is not None and slot.at == utc(2026, 3, 4, 3, 0)
    assert s.last_slot(utc(2026, 3, 4, 3, 0)) == slot  # at the instant: due
    assert s.last_slot(utc(2026, 3, 4, 2, 59)) == s.slot_on(date(2026, 3, 3))
    assert s.next_slot(utc(2026, 3, 4, 3, 0)) == s.slot_on(date(2026, 3, 5))
    assert s.next_slot(utc(2026, 3, 4, 2, 59)) == slot


def test_utc_is_a_zone() -> None:
    s = schedule("23:30", parse_zone("UTC"))
    assert s.next_slot(utc(2026, 3, 4, 23, 31)).at == utc(2026, 3, 5, 23, 30)


def test_weekdays_skip_saturday_and_sunday() -> None:
    s = schedule("09:00", "Europe/London", "weekdays")
    friday, monday = date(2026, 3, 6), date(2026, 3, 9)
    assert s.slot_on(date(2026, 3, 7)) is None and s.slot_on(date(2026, 3, 8)) is None
    after_friday = utc(2026, 3, 6, 10, 0)
    assert s.next_slot(after_friday).local_date == monday
    last = s.last_slot(utc(2026, 3, 9, 8, 0))
    assert last is not None and last.local_date == friday


def test_local_date_is_the_zone_s_date() -> None:
    # 00:30 in Dhaka (UTC+6) is 18:30 UTC the day before.
    s = schedule("00:30", "Asia/Dhaka")
    slot = s.last_slot(utc(2026, 3, 4, 18, 45))
    assert slot is not None
    assert slot.local_date == date(2026, 3, 5) and slot.at == utc(2026, 3, 4, 18, 30)


@pytest.mark.parametrize(
    ("zone", "time", "day", "at", "local"),
    [
        # Spring forward: the missing local time posts at the transition, the gap's end.
        ("America/New_York", "02:30", date(2026, 3, 8), utc(2026, 3, 8, 7, 0), "03:00"),
        ("America/New_York", "02:00", date(2026, 3, 8), utc(2026, 3, 8, 7, 0), "03:00"),
        ("America/New_York", "03:00", date(2026, 3, 8), utc(2026, 3, 8, 7, 0), "03:00"),
        ("Europe/London", "01:30", date(2026, 3, 29), utc(2026, 3, 29, 1, 0), "02:00"),
        # Fall back: the time that happens twice posts at its first occurrence (summer time).
        ("America/New_York", "01:30", date(2026, 11, 1), utc(2026, 11, 1, 5, 30), "01:30"),
        ("Europe/London", "01:30", date(2026, 10, 25), utc(2026, 10, 25, 0, 30), "01:30"),
        # Either side of a change, the local time holds and the UTC instant moves.
        ("America/New_York", "09:00", date(2026, 3, 7), utc(2026, 3, 7, 14, 0), "09:00"),
        ("America/New_York", "09:00", date(2026, 3, 9), utc(2026, 3, 9, 13, 0), "09:00"),
        # Lord Howe moves by 30 minutes.
        ("Australia/Lord_Howe", "02:15", date(2026, 10, 4), utc(2026, 10, 3, 15, 30), "02:30"),
        # Samoa skipped 30 December 2011 altogether: that date posts when 31 December begins.
        ("Pacific/Apia", "09:00", date(2011, 12, 30), utc(2011, 12, 30, 10, 0), "00:00"),
    ],
)
def test_dst_changes(zone: str, time: str, day: date, at: datetime, local: str) -> None:
    slot = schedule(time, zone).slot_on(day)
    assert slot is not None and slot.at == at
    assert slot.at.astimezone(ZoneInfo(zone)).strftime("%H:%M") == local


ZONES = ["America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago",
         "America/Havana", "Pacific/Chatham", "America/St_Johns", "Pacific/Apia"]  # fmt: skip


def change_days(zone: str) -> list[date]:
    """Local dates (2010-2030) whose offset at the end differs from the start: DST days."""
    tz = ZoneInfo(zone)
    days, day = [], date(2010, 1, 1)
    while day < date(2031, 1, 1):
        start = datetime.combine(day, wall_time(0, 0), tz).astimezone(UTC)
        end = start + timedelta(hours=24)
        if start.astimezone(tz).utcoffset() != end.astimezone(tz).utcoffset():
            days += [day - timedelta(days=1), day, day + timedelta(days=1)]
        day += timedelta(days=1)
    return days


DST_DAYS = [(zone, day) for zone in ZONES for day in change_days(zone)]


@settings(max_examples=500, deadline=None)
@given(
    zone_day=st.sampled_from(DST_DAYS),
    hour=st.integers(0, 23),
    minute=st.sampled_from([0, 1, 15, 29, 30, 31, 45, 59]),
)
def test_every_slot_is_its_local_time_or_the_first_instant_after(
    zone_day: tuple[str, date], hour: int, minute: int
) -> None:
    zone, day = zone_day
    tz = ZoneInfo(zone)
    wanted = datetime.combine(day, wall_time(hour, minute))
    at = local_instant(day, wall_time(hour, minute), tz)
    shown = at.astimezone(tz).replace(tzinfo=None)
    if shown == wanted:  # it exists; if it happens twice, this is the first time
        second = datetime.combine(day, wall_time(hour, minute), tz).replace(fold=1)
        assert at <= second.astimezone(UTC)
    else:  # it does not exist: the clock jumped over it exactly at `at`
        assert shown > wanted
        assert (at - timedelta(seconds=1)).astimezone(tz).replace(tzinfo=None) < wanted


# Which question ---------------------------------------------------------------------


def test_no_repeat_until_the_deck_is_done_then_a_new_shuffled_cycle() -> None:
    deck = factories.deck(n=5)
    asked: list[str] = []
    for _ in range(25):
        asked.append(next_question(3, deck, asked).id)
    cycles = [asked[i : i + 5] for i in range(0, 25, 5)]
    assert all(sorted(c) == [f"q{i}" for i in range(1, 6)] for c in cycles)
    assert len({tuple(c) for c in cycles}) > 1  # shuffled anew, not one order repeated
    assert all(a != b for a, b in pairwise(asked))  # never twice in a row


def test_cycle_order_is_the_same_in_every_process() -> None:
    # Seeded by the string "schedule:cycle" (SHA-512 based, not the per-process str hash).
    assert cycle_order(9, 2, factories.deck(n=6)) == ["q4", "q3", "q5", "q2", "q6", "q1"]


def test_a_question_added_mid_cycle_is_asked_in_that_cycle() -> None:
    small, grown = factories.deck(n=3), factories.deck(n=4)
    asked = [next_question(1, small, [])]
    asked.append(next_question(1, small, [q.id for q in asked]))
    ids = [q.id for q in asked]
    for _ in range(2):
        ids.append(next_question(1, grown, ids).id)
    assert sorted(ids) == ["q1", "q2", "q3", "q4"]


def test_removed_questions_are_not_counted() -> None:
    deck = factories.deck(n=3)
    asked = ["gone", "q1", "gone", "q2"]
    assert next_question(1, deck, asked).id == "q3"
    assert next_question(1, deck, [*asked, "q3"]).id in {"q1", "q2"}  # a new cycle
