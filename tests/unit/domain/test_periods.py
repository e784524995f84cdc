"""Weeks and months are counted in the server's time zone, across DST changes."""

from datetime import UTC, datetime

from bot.domain.leaderboard import Period, answer_keys, period_bounds, period_key


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_week_starts_monday_midnight_local_time() -> None:
    # Sunday 2026-03-08 23:30 in New York is already Monday 04:30 UTC
    since, until = period_bounds(Period.WEEK, utc(2026, 3, 9, 3, 30), "America/New_York")
    assert since == utc(2026, 3, 2, 5, 0)  # Monday 2 March 00:00 EST
    assert until == utc(2026, 3, 9, 4, 0)  # Monday 9 March 00:00 EDT: DST began on the 8th


def test_month_in_dhaka() -> None:
    # 2026-11-30 19:00 UTC is 1 December 01:00 in Dhaka (UTC+6)
    since, until = period_bounds(Period.MONTH, utc(2026, 11, 30, 19, 0), "Asia/Dhaka")
    assert since == utc(2026, 11, 30, 18, 0)
    assert until == utc(2026, 12, 31, 18, 0)


def test_month_across_london_autumn_change() -> None:
    since, until = period_bounds(Period.MONTH, utc(2026, 10, 15, 12), "Europe/London")
    assert since == utc(2026, 9, 30, 23, 0)  # 1 October 00:00 BST
    assert until == utc(2026, 11, 1, 0, 0)  # 1 November 00:00 GMT


def test_all_time_has_no_bounds() -> None:
    assert period_bounds(Period.ALL, utc(2026, 1, 1), "UTC") == (None, None)


def test_period_words() -> None:
    assert Period.parse(None) is Period.WEEK
    assert Period.parse("MONTH") is Period.MONTH
    assert Period.parse("year") is None


def test_an_answers_keys_are_its_weeks_monday_and_month_in_the_servers_zone() -> None:
    # Sunday 31 May 2026 20:00 UTC is Monday 1 June 02:00 in Dhaka: a new week and month there
    at = utc(2026, 5, 31, 20, 0)
    assert answer_keys(at, "Asia/Dhaka") == ("w2026-06-01", "m2026-06", "all")
    assert answer_keys(at, "UTC") == ("w2026-05-25", "m2026-05", "all")
    for zone in ("Asia/Dhaka", "UTC", "America/New_York"):
        week, month, _ = answer_keys(at, zone)
        assert week == period_key(Period.WEEK, at, zone)
        assert month == period_key(Period.MONTH, at, zone)
