"""A server's daily question: the schedule, its words, and the instants it posts at.

A schedule posts once per *slot*: a local date it runs on (every day, or Monday to Friday),
at its local time in its IANA zone. Slots are computed with `zoneinfo`, one local date at a
time, so a DST change moves the UTC instant and never the local time:

- A local time that does not exist that day (spring forward: 02:30 in New York on the second
  Sunday of March) posts at the first valid instant after it: the transition itself (03:00
  local), as cron does.
- A local time that happens twice (fall back: 01:30 in New York on the first Sunday of
  November) posts at its first occurrence (`fold=0`, the summer-time one).

Slots are keyed by their local date: that key is what the scheduler claims, once.
"""

from __future__ import annotations

import difflib
import random
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as wall_time
from functools import cache
from typing import Literal
from zoneinfo import ZoneInfo, available_timezones

from bot.decks.format import RESERVED_DECK_IDS
from bot.decks.model import Deck, Question
from bot.domain.errors import QuizError

Days = Literal["daily", "weekdays"]
DAYS: tuple[Days, ...] = ("daily", "weekdays")
assert frozenset(DAYS) == RESERVED_DECK_IDS  # deck ids may not be a days word
_TIME = re.compile(r"(\d{1,2}):(\d{2})")
_SATURDAY = 5


@dataclass(frozen=True)
class Slot:
    """One post of a schedule: the local date it is for, and the UTC instant it is due."""

    local_date: date
    at: datetime


@dataclass(frozen=True)
class Schedule:
    """A channel's daily question. `time` is "HH:MM" (24 h), `zone` an IANA name; both are
    validated (by `parse_time`/`parse_zone`) before a schedule is stored."""

    id: int
    server_id: str
    channel_id: str
    time: str
    zone: str
    deck_id: str | None
    """None: the server's default deck at each post (`deck default`), as it changes."""
    days: Days
    created_by: str
    enabled: bool = True
    created_at: datetime | None = None
    updated_at: datetime | None = None
    """When it was last set: slots before this instant are never posted."""

    @property
    def platform(self) -> str:
        """The server id's namespace: "slack", "discord" or "local"."""
        return self.server_id.partition(":")[0]

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.zone)

    @property
    def local_time(self) -> wall_time:
        hours, minutes = self.time.split(":")
        return wall_time(int(hours), int(minutes))

    def runs_on(self, day: date) -> bool:
        return self.days == "daily" or day.weekday() < _SATURDAY

    def slot_on(self, day: date) -> Slot | None:
        """The slot for a local date, or None if the schedule skips that day."""
        if not self.runs_on(day):
            return None
        return Slot(day, local_instant(day, self.local_time, self.tz))

    def last_slot(self, now: datetime) -> Slot | None:
        """The most recent slot at or before `now`."""
        today = now.astimezone(self.tz).date()
        for back in range(8):
            slot = self.slot_on(today - timedelta(days=back))
            if slot is not None and slot.at <= now:
                return slot
        return None

    def next_slot(self, after: datetime, *, not_before: date | None = None) -> Slot:
        """The first slot strictly after `after`; with `not_before`, also on that local date
        or later (a date already claimed posts no more)."""
        day = after.astimezone(self.tz).date()
        if not_before is not None and not_before > day:
            day = not_before
        for ahead in range(10):
            slot = self.slot_on(day + timedelta(days=ahead))
            if slot is not None and slot.at > after:
                return slot
        raise AssertionError(f"no slot within ten days for schedule {self.id}")  # pragma: no cover


def local_instant(day: date, at: wall_time, tz: ZoneInfo) -> datetime:
    """The UTC instant of local wall time `at` on `day` in `tz` (see the module docstring for
    the two DST cases)."""
    local = datetime.combine(day, at, tzinfo=tz)  # fold=0: an ambiguous time's first occurrence
    utc = local.astimezone(UTC)
    if utc.astimezone(tz).replace(tzinfo=None) == local.replace(tzinfo=None):
        return utc
    # A gap: fold=0 read `at` with the offset before the transition (an instant after it),
    # fold=1 with the offset after (an instant before it). The transition lies between.
    before = local.replace(fold=1).astimezone(UTC)
    after = utc
    offset_after = after.astimezone(tz).utcoffset()
    if before >= after or before.astimezone(tz).utcoffset() == offset_after:
        return utc  # pragma: no cover - not a plain gap; keep zoneinfo's reading
    lo, hi = int(before.timestamp()), int(after.timestamp())
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if datetime.fromtimestamp(mid, UTC).astimezone(tz).utcoffset() == offset_after:
            hi = mid
        else:
            lo = mid
    return datetime.fromtimestamp(hi, UTC)


# Parsing what an admin types ------------------------------------------------------


def parse_time(text: str) -> str:
    """ "9:05" -> "09:05"; 24-hour clock; Bengali digits are read too. Else QuizError."""
    match = _TIME.fullmatch(text.strip())
    if match is not None:
        hours, minutes = int(match[1]), int(match[2])
        if hours < 24 and minutes < 60:
            return f"{hours:02d}:{minutes:02d}"
    raise QuizError("bad_time", time=text)


@cache
def _zones() -> dict[str, str]:
    """Every IANA zone name, by its lowercase spelling."""
    return {name.lower(): name for name in available_timezones()}


def parse_zone(text: str) -> str:
    """An IANA zone name, matched case-insensitively (asia/dhaka -> Asia/Dhaka; utc -> UTC).

    An unknown one is refused with the closest name as a suggestion.
    """
    typed = text.strip()
    zones = _zones()
    name = zones.get(typed.lower())
    if name is not None:
        return name
    raise QuizError("unknown_zone", zone=typed, suggestion=suggest_zone(typed))


def suggest_zone(text: str) -> str:
    """The known zone closest to `text`: by whole name, else by city ("dhaka"), else UTC."""
    zones = _zones()
    typed = text.strip().lower().replace(" ", "_")
    close = difflib.get_close_matches(typed, sorted(zones), n=1, cutoff=0.6)
    if close:
        return zones[close[0]]
    cities: dict[str, str] = {}
    for lower, name in sorted(zones.items()):
        cities.setdefault(lower.rsplit("/", 1)[-1], name)
    close = difflib.get_close_matches(typed.rsplit("/", 1)[-1], sorted(cities), n=1, cutoff=0.6)
    return cities[close[0]] if close else "UTC"


def parse_days(text: str | None) -> Days:
    word = (text or "daily").strip().lower()
    if word not in DAYS:
        raise QuizError("bad_days", days=text)
    return word


@dataclass(frozen=True)
class ScheduleArgs:
    time: str
    zone: str
    deck_id: str | None
    days: Days


def parse_set_args(words: Sequence[str]) -> ScheduleArgs:
    """The words after `schedule set`: HH:MM ZONE [DECK] [daily|weekdays].

    DECK and the days word may come in either order: deck ids may not be `daily` or
    `weekdays`, so a word is never both. Time and zone are validated here too.
    """
    if len(words) < 2:
        raise QuizError("schedule_usage")
    deck_id: str | None = None
    days: Days = "daily"
    days_seen = False
    for word in words[2:]:
        if word.lower() in DAYS and not days_seen:
            days, days_seen = parse_days(word), True
        elif deck_id is None and word.lower() not in DAYS:
            deck_id = word
        else:
            raise QuizError("schedule_usage")
    return ScheduleArgs(parse_time(words[0]), parse_zone(words[1]), deck_id, days)


# Which question comes next ---------------------------------------------------------


def cycle_order(schedule_id: int, cycle: int, deck: Deck) -> list[str]:
    """The question ids of one cycle, shuffled the same way in every process."""
    ids = [q.id for q in deck.questions]
    random.Random(f"{schedule_id}:{cycle}").shuffle(ids)
    return ids


def next_question(
    schedule_id: int, deck: Deck, asked: Sequence[str], skip: Collection[str] = ()
) -> Question:
    """The next question of a schedule, given the ids it already posted from this deck
    (oldest first): none repeats until every question of the deck was asked, then a new
    shuffled cycle starts (never opening with the question that closed the last one).

    Cycles are read back from the history, so a question added to the deck mid-cycle is
    asked in that cycle, and a removed one is simply no longer counted. A question in `skip`
    (open in another post of the server) waits for a later day, unless nothing else is left.
    """
    valid = {q.id for q in deck.questions}
    cycle, seen = 0, set[str]()
    last: str | None = None
    for question_id in asked:
        if question_id not in valid:
            continue
        if question_id in seen:  # a repeat: a new cycle had begun
            cycle, seen = cycle + 1, set()
        seen.add(question_id)
        last = question_id
    if seen == valid:
        cycle, seen = cycle + 1, set()
    left = [q for q in cycle_order(schedule_id, cycle, deck) if q not in seen]
    order = cycle_order(schedule_id, cycle, deck)
    left = [q for q in left if q not in skip] or [q for q in order if q not in skip] or left
    pick = left[1] if len(left) > 1 and left[0] == last else left[0]
    question = deck.question(pick)
    assert question is not None
    return question
