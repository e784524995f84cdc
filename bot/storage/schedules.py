"""`Schedules` and `Slots` in SQL: one schedule row per channel, one slot row per schedule
and local date (claiming that row is what makes only one scheduler post a day's question),
and the posts a schedule made."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, func, select, update

from bot.domain.records import (
    EnabledSchedule,
    NewSchedule,
    PostRecord,
    SlotRecord,
    SlotStatus,
)
from bot.domain.schedule import Schedule
from bot.service.ports import Schedules, Slots
from bot.storage.aggregate import SqlAggregate
from bot.storage.records import local_date, post_record, schedule_record, slot_record
from bot.storage.tables import FOLLOWS_DEFAULT, posts, schedule_slots, schedules


class SqlSchedules(SqlAggregate, Schedules):
    async def put_schedule(self, new: NewSchedule) -> Schedule:
        """An upsert on the (server, channel) key: one schedule per channel, its id kept."""
        settings = {
            "time": new.time,
            "zone": new.zone,
            "deck_id": new.deck_id or FOLLOWS_DEFAULT,
            "days": new.days,
            "created_by": new.created_by,
            "enabled": True,
            "updated_at": new.at,
        }
        stmt = self._sql.insert(schedules).values(
            server_id=new.server_id, channel_id=new.channel_id, created_at=new.at, **settings
        )
        upsert = stmt.on_conflict_do_update(
            index_elements=[schedules.c.server_id, schedules.c.channel_id], set_=settings
        ).returning(*schedules.c)
        row = await self._one(upsert, write=True)
        assert row is not None
        return schedule_record(row)

    async def schedule(self, schedule_id: int) -> Schedule | None:
        return await self._one_schedule(schedules.c.id == schedule_id)

    async def schedule_in_channel(self, server_id: str, channel_id: str) -> Schedule | None:
        return await self._one_schedule(
            schedules.c.server_id == server_id, schedules.c.channel_id == channel_id
        )

    async def _one_schedule(self, *where: Any) -> Schedule | None:
        row = await self._one(select(schedules).where(*where))
        return None if row is None else schedule_record(row)

    async def server_schedules(self, server_id: str) -> Sequence[Schedule]:
        stmt = (
            select(schedules)
            .where(schedules.c.server_id == server_id, schedules.c.enabled)
            .order_by(schedules.c.channel_id)
        )
        return [schedule_record(row) for row in await self._all(stmt)]

    async def disable_schedule(
        self, server_id: str, channel_id: str, at: datetime
    ) -> Schedule | None:
        stmt = (
            update(schedules)
            .where(
                schedules.c.server_id == server_id,
                schedules.c.channel_id == channel_id,
                schedules.c.enabled,
            )
            .values(enabled=False, updated_at=at)
            .returning(*schedules.c)
        )
        row = await self._one(stmt, write=True)
        return None if row is None else schedule_record(row)

    async def enabled_schedules(self) -> Sequence[EnabledSchedule]:
        """The newest slot date is a correlated MAX over the slots' primary key: one index
        probe per schedule, however many years of slots there are."""
        last_date = (
            select(func.max(schedule_slots.c.local_date))
            .where(schedule_slots.c.schedule_id == schedules.c.id)
            .scalar_subquery()
        )
        newest = schedule_slots.alias("newest")
        status, claimed_at = (
            select(column)
            .where(newest.c.schedule_id == schedules.c.id, newest.c.local_date == last_date)
            .scalar_subquery()
            for column in (newest.c.status, newest.c.claimed_at)
        )
        stmt = (
            select(
                schedules,
                last_date.label("last_date"),
                status.label("last_status"),
                claimed_at.label("last_claimed_at"),
            )
            .where(schedules.c.enabled)
            .order_by(schedules.c.id)
        )
        return [
            EnabledSchedule(
                schedule_record(row),
                local_date(row.last_date),
                None if row.last_status is None else SlotStatus(row.last_status),
                row.last_claimed_at,
            )
            for row in await self._all(stmt)
        ]


class SqlSlots(SqlAggregate, Slots):
    async def claim_slot(
        self,
        schedule_id: int,
        local_date: date,
        at: datetime,
        status: SlotStatus = SlotStatus.CLAIMED,
    ) -> bool:
        """INSERT ... ON CONFLICT DO NOTHING RETURNING on the (schedule, date) primary key:
        exactly one caller gets a row back, across processes and restarts."""
        stmt = (
            self._sql.insert(schedule_slots)
            .values(
                schedule_id=schedule_id, local_date=local_date, status=status.value, claimed_at=at
            )
            .on_conflict_do_nothing(
                index_elements=[schedule_slots.c.schedule_id, schedule_slots.c.local_date]
            )
            .returning(schedule_slots.c.schedule_id)
        )
        return await self._one(stmt, write=True) is not None

    async def reclaim_slot(
        self, schedule_id: int, local_date: date, claimed_at: datetime, at: datetime
    ) -> bool:
        stmt = (
            update(schedule_slots)
            .where(
                schedule_slots.c.schedule_id == schedule_id,
                schedule_slots.c.local_date == local_date,
                schedule_slots.c.status == SlotStatus.CLAIMED.value,
                schedule_slots.c.claimed_at == claimed_at,
            )
            .values(claimed_at=at)
            .returning(schedule_slots.c.schedule_id)
        )
        return await self._one(stmt, write=True) is not None

    async def finish_slot(
        self,
        schedule_id: int,
        local_date: date,
        status: SlotStatus,
        *,
        post_id: int | None = None,
        error: str | None = None,
    ) -> None:
        await self._exec(
            update(schedule_slots)
            .where(
                schedule_slots.c.schedule_id == schedule_id,
                schedule_slots.c.local_date == local_date,
            )
            .values(status=status.value, post_id=post_id, error=error)
        )

    async def recent_slots(self, schedule_id: int, limit: int) -> Sequence[SlotRecord]:
        stmt = (
            select(schedule_slots)
            .where(schedule_slots.c.schedule_id == schedule_id)
            .order_by(schedule_slots.c.local_date.desc())
            .limit(limit)
        )
        return [slot_record(row) for row in await self._all(stmt)]

    async def scheduled_questions(self, schedule_id: int, deck_id: str) -> Sequence[str]:
        stmt = (
            select(posts.c.question_id)
            .where(posts.c.schedule_id == schedule_id, posts.c.deck_id == deck_id)
            .order_by(posts.c.opened_at, posts.c.id)
        )
        return [row.question_id for row in await self._all(stmt)]

    async def open_scheduled_posts(
        self, schedule_id: int | None = None, opened_before: datetime | None = None
    ) -> Sequence[PostRecord]:
        where: list[ColumnElement[bool]] = [
            posts.c.schedule_id.is_not(None),
            posts.c.closed_at.is_(None),
        ]
        if schedule_id is not None:
            where.append(posts.c.schedule_id == schedule_id)
        if opened_before is not None:
            where.append(posts.c.opened_at < opened_before)
        stmt = select(posts).where(*where).order_by(posts.c.opened_at, posts.c.id)
        return [post_record(row) for row in await self._all(stmt)]
