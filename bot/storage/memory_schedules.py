"""`Schedules` and `Slots` in memory, a part of `bot.storage.memory.MemoryStore`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime

from bot.domain.records import EnabledSchedule, NewSchedule, PostRecord, SlotRecord, SlotStatus
from bot.domain.schedule import Schedule


class MemorySchedules:
    """Schedules by id and by channel, and each schedule's slots by local date."""

    _posts: dict[int, PostRecord]
    """The store's posts (`MemoryStore`): a schedule's history is its posts."""

    def __init__(self) -> None:
        self._schedules: dict[int, Schedule] = {}
        self._channel_schedules: dict[tuple[str, str], int] = {}
        self._slots: defaultdict[int, dict[date, SlotRecord]] = defaultdict(dict)

    async def put_schedule(self, new: NewSchedule) -> Schedule:
        at = utc(new.at)
        key = (new.server_id, new.channel_id)
        old = self._schedules.get(self._channel_schedules.get(key, 0))
        schedule = Schedule(
            id=old.id if old else len(self._schedules) + 1,
            server_id=new.server_id,
            channel_id=new.channel_id,
            time=new.time,
            zone=new.zone,
            deck_id=new.deck_id,
            days=new.days,
            created_by=new.created_by,
            enabled=True,
            created_at=old.created_at if old else at,
            updated_at=at,
        )
        self._schedules[schedule.id] = schedule
        self._channel_schedules[key] = schedule.id
        return schedule

    async def schedule(self, schedule_id: int) -> Schedule | None:
        return self._schedules.get(schedule_id)

    async def schedule_in_channel(self, server_id: str, channel_id: str) -> Schedule | None:
        return self._schedules.get(self._channel_schedules.get((server_id, channel_id), 0))

    async def server_schedules(self, server_id: str) -> Sequence[Schedule]:
        mine = [s for s in self._schedules.values() if s.server_id == server_id and s.enabled]
        return sorted(mine, key=lambda s: s.channel_id)

    async def disable_schedule(
        self, server_id: str, channel_id: str, at: datetime
    ) -> Schedule | None:
        schedule = self._schedules.get(self._channel_schedules.get((server_id, channel_id), 0))
        if schedule is None or not schedule.enabled:
            return None
        self._schedules[schedule.id] = replace(schedule, enabled=False, updated_at=utc(at))
        return self._schedules[schedule.id]

    async def enabled_schedules(self) -> Sequence[EnabledSchedule]:
        return [
            self._enabled(s)
            for s in sorted(self._schedules.values(), key=lambda s: s.id)
            if s.enabled
        ]

    def _enabled(self, schedule: Schedule) -> EnabledSchedule:
        slots = self._slots.get(schedule.id, {})
        last = slots[max(slots)] if slots else None
        if last is None:
            return EnabledSchedule(schedule, None)
        return EnabledSchedule(schedule, last.local_date, last.status, last.claimed_at)

    async def reclaim_slot(
        self, schedule_id: int, local_date: date, claimed_at: datetime, at: datetime
    ) -> bool:
        slot = self._slots.get(schedule_id, {}).get(local_date)
        if slot is None or slot.status is not SlotStatus.CLAIMED or slot.claimed_at != claimed_at:
            return False
        self._slots[schedule_id][local_date] = replace(slot, claimed_at=utc(at))
        return True

    async def claim_slot(
        self,
        schedule_id: int,
        local_date: date,
        at: datetime,
        status: SlotStatus = SlotStatus.CLAIMED,
    ) -> bool:
        slots = self._slots[schedule_id]
        if local_date in slots:
            return False
        slots[local_date] = SlotRecord(schedule_id, local_date, status, utc(at))
        return True

    async def finish_slot(
        self,
        schedule_id: int,
        local_date: date,
        status: SlotStatus,
        *,
        post_id: int | None = None,
        error: str | None = None,
    ) -> None:
        slots = self._slots.get(schedule_id, {})
        if local_date in slots:
            slot = slots[local_date]
            slots[local_date] = replace(slot, status=status, post_id=post_id, error=error)

    async def recent_slots(self, schedule_id: int, limit: int) -> Sequence[SlotRecord]:
        slots = self._slots.get(schedule_id, {})
        return [slots[day] for day in sorted(slots, reverse=True)[:limit]]

    async def scheduled_questions(self, schedule_id: int, deck_id: str) -> Sequence[str]:
        mine = [
            p for p in self._posts.values() if p.schedule_id == schedule_id and p.deck_id == deck_id
        ]
        return [p.question_id for p in sorted(mine, key=lambda p: (p.opened_at, p.id))]

    async def open_scheduled_posts(
        self, schedule_id: int | None = None, opened_before: datetime | None = None
    ) -> Sequence[PostRecord]:
        before = None if opened_before is None else utc(opened_before)
        found = [
            p
            for p in self._posts.values()
            if p.schedule_id is not None
            and p.is_open
            and (schedule_id is None or p.schedule_id == schedule_id)
            and (before is None or p.opened_at < before)
        ]
        return sorted(found, key=lambda p: (p.opened_at, p.id))


def utc(value: datetime) -> datetime:
    """As the SQL store keeps datetimes: aware in, UTC out; a naive one is refused."""
    if value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: the store takes aware datetimes only")
    return value.astimezone(UTC)
