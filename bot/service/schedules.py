"""`/quiz schedule set|show|off|now`: the admin's side of the daily question.

Each method is one core call for an adapter: plain values in, a result object out,
refusals as `QuizError`s. The posting itself at the scheduled minute is `Scheduler`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.decks.model import Deck, Question
from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.post import PostView, Reveal
from bot.domain.records import NewSchedule, SlotRecord, SlotStatus
from bot.domain.schedule import Schedule, Slot, next_question, parse_days, parse_time, parse_zone
from bot.service.delivery import Delivery, DeliveryError, show_reveal
from bot.service.ports import QuizStore
from bot.service.publishing import Publishing
from bot.service.quiz import Quiz

RECENT_SLOTS = 14
"""How far back `show` looks for the last failure."""
UNCONFIRMED_AFTER = timedelta(minutes=10)
"""A claim still not posted after this is reported: its instance likely died mid-post."""


@dataclass(frozen=True)
class ScheduleInfo:
    """A schedule as `show` tells it."""

    schedule: Schedule
    deck: Deck | None
    """None when the deck is no longer loaded (its posts fail until it is back). Of a
    schedule that follows the server's default, the default now."""
    next: Slot
    last_slot: SlotRecord | None
    """The newest date the scheduler handled, in whatever status."""
    last_failure: SlotRecord | None
    """The newest failed date, unless a date posted since."""
    unconfirmed: SlotRecord | None = None
    """The newest date, when it was claimed long ago and never marked posted or failed."""

    @property
    def next_local(self) -> datetime:
        return self.next.at.astimezone(self.schedule.tz)

    @property
    def next_utc(self) -> datetime:
        return self.next.at


@dataclass(frozen=True)
class ScheduleSet:
    info: ScheduleInfo
    replaced: Schedule | None
    """The channel's earlier schedule, when this one replaced an enabled one."""
    locale: str


@dataclass(frozen=True)
class ScheduleList:
    items: list[ScheduleInfo]
    channel_id: str | None
    """The channel asked about, or None for the whole server."""
    locale: str


@dataclass(frozen=True)
class ScheduleOff:
    schedule: Schedule
    locale: str


@dataclass(frozen=True)
class ScheduleNow:
    """The question posted now, and the reveals shown in place of the schedule's earlier
    open posts."""

    schedule: Schedule
    view: PostView
    reveals: list[Reveal]
    locale: str
    failure: str | None = None
    """Why the question could not be sent (`DeliveryError.reason`); it was withdrawn."""


async def choose_question(store: QuizStore, schedule: Schedule, deck: Deck) -> Question:
    """The schedule's next question: see `bot.domain.schedule.next_question`."""
    asked = await store.scheduled_questions(schedule.id, deck.id)
    open_in = await store.open_questions(schedule.server_id)
    return next_question(schedule.id, deck, asked, {q for d, q in open_in if d == deck.id})


async def close_open_posts(store: QuizStore, quiz: Quiz, schedule_id: int) -> list[Reveal]:
    """Closes the schedule's open posts; the reveals of those this caller closed (when two
    close at once, only one gets each reveal, so it is shown once)."""
    reveals = []
    for post in await store.open_scheduled_posts(schedule_id):
        reveal = await quiz.close_by_system(post.id)
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


@dataclass
class Schedules:
    store: QuizStore
    quiz: Quiz
    clock: Clock

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
        deck = await self.quiz.deck_for(actor.server_id, deck_id or None)
        earlier = await self.store.schedule_in_channel(actor.server_id, channel_id)
        schedule = await self.store.put_schedule(
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
        await self.store.set_server_timezone(actor.server_id, tz)
        return ScheduleSet(
            info=await self._info(schedule),
            replaced=earlier if earlier is not None and earlier.enabled else None,
            locale=await self.quiz.ui_locale(actor),
        )

    async def show(self, actor: Actor, channel_id: str | None = None) -> ScheduleList:
        """The server's schedules (or only the channel's), each with its next post."""
        self._require_admin(actor)
        if channel_id is None:
            found: Sequence[Schedule] = await self.store.server_schedules(actor.server_id)
        else:
            one = await self.store.schedule_in_channel(actor.server_id, channel_id)
            found = [one] if one is not None and one.enabled else []
        return ScheduleList(
            items=[await self._info(s) for s in found],
            channel_id=channel_id,
            locale=await self.quiz.ui_locale(actor),
        )

    async def off(self, actor: Actor, channel_id: str) -> ScheduleOff:
        """Stops the channel's daily question. Its open post stays open (`close` closes it)."""
        self._require_admin(actor)
        schedule = await self.store.disable_schedule(actor.server_id, channel_id, self.clock.now())
        if schedule is None:
            raise QuizError("no_schedule")
        return ScheduleOff(schedule, await self.quiz.ui_locale(actor))

    async def now(self, actor: Actor, channel_id: str, delivery: Delivery) -> ScheduleNow:
        """The channel's next scheduled question, posted now by the caller through the
        platform's `delivery` (so it lands where the schedule posts, wherever this was typed).

        It is the schedule's post for the question cycle and for streaks (and closes the
        schedule's earlier open post), but claims no date: the day's own post still comes.
        """
        self._require_admin(actor)
        schedule = await self.store.schedule_in_channel(actor.server_id, channel_id)
        if schedule is None or not schedule.enabled:
            raise QuizError("no_schedule")
        deck = await self.quiz.deck_for(schedule.server_id, schedule.deck_id)
        reveals = await close_open_posts(self.store, self.quiz, schedule.id)
        for reveal in reveals:
            await show_reveal(delivery, reveal)
        question = await choose_question(self.store, schedule, deck)
        view = await self.quiz.post(
            actor, channel_id, deck.id, question.id, schedule_id=schedule.id
        )
        locale = await self.quiz.ui_locale(actor)
        try:
            await Publishing(self.quiz).publish(view, delivery.post)
        except DeliveryError as error:
            return ScheduleNow(schedule, view, reveals, locale, failure=error.reason)
        return ScheduleNow(schedule, view, reveals, locale)

    async def _info(self, schedule: Schedule) -> ScheduleInfo:
        slots = await self.store.recent_slots(schedule.id, RECENT_SLOTS)
        last = slots[0] if slots else None
        now = self.clock.now()
        after_last = None if last is None else last.local_date + timedelta(days=1)
        unconfirmed = None
        if last is not None and last.status is SlotStatus.CLAIMED:
            unconfirmed = last if now - last.claimed_at > UNCONFIRMED_AFTER else None
        if schedule.deck_id is None:
            deck: Deck | None = (await self.quiz.server_default(schedule.server_id)).deck
        else:
            deck = self.quiz.decks.get(schedule.deck_id)
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
