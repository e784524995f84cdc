"""Leaderboard periods in the server's time zone, and the ranking a user sees."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from enum import Enum
from zoneinfo import ZoneInfo

from bot.domain.records import Standing

TOP = 10


class Period(Enum):
    WEEK = "week"
    MONTH = "month"
    ALL = "all"

    @classmethod
    def parse(cls, word: str | None) -> Period | None:
        if word is None or word == "":
            return cls.WEEK
        try:
            return cls(word.lower())
        except ValueError:
            return None


def period_bounds(
    period: Period, now: datetime, zone: str
) -> tuple[datetime | None, datetime | None]:
    """[since, until) in UTC for the period containing `now`, counted in `zone`.

    Weeks start on Monday 00:00 local time, months on the 1st; DST shifts are handled by
    building local midnights and converting each to UTC separately.
    """
    if period is Period.ALL:
        return None, None
    tz = ZoneInfo(zone)
    local = now.astimezone(tz)
    if period is Period.WEEK:
        start_day = local.date() - timedelta(days=local.weekday())
        end_day = start_day + timedelta(days=7)
    else:
        start_day = local.date().replace(day=1)
        end_day = (start_day + timedelta(days=32)).replace(day=1)
    since = datetime.combine(start_day, datetime.min.time(), tz).astimezone(UTC)
    until = datetime.combine(end_day, datetime.min.time(), tz).astimezone(UTC)
    return since, until


ALL_TIME = "all"
"""The period key of all time (of a season)."""


def period_key(period: Period, now: datetime, zone: str) -> str:
    """The key of the period containing `now`, counted in `zone`: "w2026-01-05" (the week's
    Monday), "m2026-01", or "all". The store keeps points per key (see `answer_keys`)."""
    if period is Period.ALL:
        return ALL_TIME
    local = now.astimezone(ZoneInfo(zone)).date()
    return _week_key(local) if period is Period.WEEK else _month_key(local)


def _week_key(local: date) -> str:
    return "w" + (local - timedelta(days=local.weekday())).isoformat()


def _month_key(local: date) -> str:
    return f"m{local.year:04d}-{local.month:02d}"


def answer_keys(at: datetime, zone: str) -> tuple[str, str, str]:
    """The week, month and all-time keys an answer given at `at` counts in: fixed when it
    is stored, in the server's zone of that moment (a later zone change moves no answer).
    The local date is worked out once: in a burst this runs for every scoring click."""
    local = at.astimezone(ZoneInfo(zone)).date()
    return _week_key(local), _month_key(local), ALL_TIME


@dataclass(frozen=True)
class Leaderboard:
    period: Period
    deck_id: str | None
    rows: list[Standing]
    """The top ten (ties share a rank, so a rank may repeat)."""
    me: Standing | None
    """The caller's own standing, shown below the ten when outside them; None: no points."""
    caller_id: str
    locale: str
    since: datetime | None
    until: datetime | None
    hidden: frozenset[str] = frozenset()
    """Users in `rows` who hide from others on leaderboards (never the caller)."""
    mastery: bool = False
    """Ranked by questions mastered (`points` is that count), not by points."""

    @property
    def me_in_top(self) -> bool:
        return any(r.user_id == self.caller_id for r in self.rows)
