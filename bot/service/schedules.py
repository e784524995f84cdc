"""`/quiz schedule set|show|off|now`: the admin's side of the daily question.

Each method is one core call for an adapter: plain values in, a result object out,
refusals as `QuizError`s. The posting itself at the scheduled minute is `Scheduler`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from bot.decks.model import Deck, Question
from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.post import Reveal
from bot.domain.records import NewSchedule, SlotRecord, SlotStatus
from bot.domain.schedule import Schedule, next_question, parse_days, parse_time, parse_zone
from bot.domain.schedule_views import (
    ScheduleInfo,
    ScheduleList,
    ScheduleNow,
    ScheduleOff,
    ScheduleSet,
)
from bot.service import ports
from bot.service.answering import Answering
from bot.service.catalog import Catalog
from bot.service.delivery import Delivery, DeliveryError, show_reveal
from bot.service.publishing import Publishing

RECENT_SLOTS = 14
"""How far back `show` looks for the last failure."""
UNCONFIRMED_AFTER = timedelta(minutes=10)
"""A claim still not posted after this is reported: its instance likely died mid-post."""


async def choose_question(
    slots: ports.Slots, posts: ports.PostsAndAnswers, schedule: Schedule, deck: Deck
) -> Question:
    """The schedule's next question: see `bot.domain.schedule.next_question`."""
    asked = await slots.scheduled_questions(schedule.id, deck.id)
    open_in = await posts.open_questions(schedule.server_id)
    return next_question(schedule.id, deck, asked, {q for d, q in open_in if d == deck.id})


async def close_open_posts(
    slots: ports.Slots, answering: Answering, schedule_id: int
) -> list[Reveal]:
    """Closes the schedule's open posts; the reveals of those this caller closed (when two
    close at once, only one gets each reveal, so it is shown once)."""
    reveals = []
    for post in await slots.open_scheduled_posts(schedule_id):
        reveal = await answering.close_by_system(post.id)
        if reveal.closed_now:
            reveals.append(reveal)
    return reveals


def _last_failure(slots: Sequence[SlotRecord]) -> SlotRecord | None:
    for slot in slots:  # newest first
        if slot.status is SlotStatus.POSTED:
            return None
        if slot.status is SlotStatus.FAILED:
            return slot
    return None


class Schedules:
    def __init__(
        self,
        catalog: Catalog,
        clock: Clock,
        answering: Answering,
        publishing: Publishing,
        schedules: ports.Schedules,
        slots: ports.Slots,
        posts: ports.PostsAndAnswers,
        servers: ports.Servers,
    ) -> None:
        self._catalog = catalog
        self.clock = clock
        self._answering = answering
        self._publishing = publishing
        self._schedules = schedules
        self._slots = slots
        self._posts = posts
        self._servers = servers

    async def set(
        self,
        actor: Actor,
        channel_id: str,
        time: str,
        zone: str,
        deck_id: str | None = None,
        days: str | None = "daily",
    ) -> ScheduleSet:
        """Schedules the channel's daily question (replacing its schedule, if it had one)
        and makes `zone` the server's time zone, for leaderboard weeks and months too.

        A schedule set after today's minute first posts on its next day. One set without a
        deck posts from the server's default deck of the day, as an admin changes it.
        """
        self._require_admin(actor)
        at, tz, which = parse_time(time), parse_zone(zone), parse_days(days)
        deck = await self._catalog.deck_for(actor.server_id, deck_id or None)
        earlier = await self._schedules.schedule_in_channel(actor.server_id, channel_id)
        schedule = await self._schedules.put_schedule(
            NewSchedule(
                server_id=actor.server_id,
                channel_id=channel_id,
                time=at,
                zone=tz,
                deck_id=deck.id if deck_id else None,
                days=which,
                created_by=actor.user_id,
                at=self.clock.now(),
            )
        )
        await self._servers.set_server_timezone(actor.server_id, tz)
        return ScheduleSet(
            info=await self._info(schedule),
            replaced=earlier if earlier is not None and earlier.enabled else None,
            locale=await self._catalog.ui_locale(actor),
        )

    async def show(self, actor: Actor, channel_id: str | None = None) -> ScheduleList:
        """The server's schedules (or only the channel's), each with its next post."""
        self._require_admin(actor)
        if channel_id is None:
            found: Sequence[Schedule] = await self._schedules.server_schedules(actor.server_id)
        else:
            one = await self._schedules.schedule_in_channel(actor.server_id, channel_id)
            found = [one] if one is not None and one.enabled else []
        return ScheduleList(
            items=[await self._info(s) for s in found],
            channel_id=channel_id,
            locale=await self._catalog.ui_locale(actor),
        )

    async def off(self, actor: Actor, channel_id: str) -> ScheduleOff:
        """Stops the channel's daily question. Its open post stays open (`close` closes it)."""
        self._require_admin(actor)
        schedule = await self._schedules.disable_schedule(
            actor.server_id, channel_id, self.clock.now()
        )
        if schedule is None:
            raise QuizError("no_schedule")
        return ScheduleOff(schedule, await self._catalog.ui_locale(actor))

    async def now(self, actor: Actor, channel_id: str, delivery: Delivery) -> ScheduleNow:
        """The channel's next scheduled question, posted now by the caller through the
        platform's `delivery` (so it lands where the schedule posts, wherever this was typed).

        It is the schedule's post for the question cycle and for streaks (and closes the
        schedule's earlier open post), but claims no date: the day's own post still comes.
        """
        self._require_admin(actor)
        schedule = await self._schedules.schedule_in_channel(actor.server_id, channel_id)
        if schedule is None or not schedule.enabled:
            raise QuizError("no_schedule")
        deck = await self._catalog.deck_for(schedule.server_id, schedule.deck_id)
        reveals = await close_open_posts(self._slots, self._answering, schedule.id)
        for reveal in reveals:
            await show_reveal(delivery, reveal)
        question = await choose_question(self._slots, self._posts, schedule, deck)
        view = await self._answering.post(
            actor, channel_id, deck.id, question.id, schedule_id=schedule.id
        )
        locale = await self._catalog.ui_locale(actor)
        try:
            await self._publishing.publish(view, delivery.post)
        except DeliveryError as error:
            return ScheduleNow(schedule, view, reveals, locale, failure=error.reason)
        return ScheduleNow(schedule, view, reveals, locale)

    async def _info(self, schedule: Schedule) -> ScheduleInfo:
        slots = await self._slots.recent_slots(schedule.id, RECENT_SLOTS)
        last = slots[0] if slots else None
        now = self.clock.now()
        after_last = None if last is None else last.local_date + timedelta(days=1)
        unconfirmed = None
        if last is not None and last.status is SlotStatus.CLAIMED:
            unconfirmed = last if now - last.claimed_at > UNCONFIRMED_AFTER else None
        if schedule.deck_id is None:
            deck: Deck | None = (await self._catalog.server_default(schedule.server_id)).deck
        else:
            deck = self._catalog.decks.get(schedule.deck_id)
        return ScheduleInfo(
            schedule=schedule,
            deck=deck,
            next=schedule.next_slot(now, not_before=after_last),
            last_slot=last,
            last_failure=_last_failure(slots),
            unconfirmed=unconfirmed,
        )

    @staticmethod
    def _require_admin(actor: Actor) -> None:
        if not actor.is_admin:
            raise QuizError("admin_only")
