"""The loop that posts daily questions: exactly once per date, whatever runs at once.

Every `tick` looks at each enabled schedule's most recent slot. One that is due, has no row
yet, and is inside the catch-up window is claimed by inserting its (schedule, local date)
row; the one instance whose insert lands posts, every other instance (and every later tick,
restart included) finds the row and does nothing. So a date never posts twice, and a slot
that passed while the bot was down is caught up on start.

Choices made here:

- A slot found after the catch-up window (`catch_up_hours`, at least `GRACE`) is claimed as
  `skipped`, not posted: `schedule show` can say the day was missed.
- A claim that never finished (the instance died, or the database dropped out, between its
  claim and its post) is taken over once it is `RECLAIM_AFTER` old, if the date is still in
  the catch-up window: if that attempt's question did reach the channel (its post has a
  message), the date is marked posted with it; otherwise it is posted now. A takeover is a
  compare-and-set on the claim's time, so one instance takes it.
- A failed post (`DeliveryError`, or anything else) marks the date `failed` with its reason
  and is not retried that date; the admin is told (best effort) and the loop goes on.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.post import PostView
from bot.domain.records import EnabledSchedule, SlotStatus
from bot.domain.schedule import Schedule, Slot
from bot.service import ports
from bot.service.answering import Answering
from bot.service.catalog import Catalog
from bot.service.deliveries import Deliveries, platform_of
from bot.service.delivery import Delivery, DeliveryError, show_reveal
from bot.service.problem_digest import ProblemDigest
from bot.service.publishing import Publishing
from bot.service.schedules import choose_question, close_open_posts
from bot.service.supervision import Backoff, Faults, Supervisor

log = logging.getLogger("quizbot.scheduler")

TICK_SECONDS = 15.0
"""A slot posts within this (plus one tick's work) of its minute: the design's 30 s."""
GRACE = timedelta(minutes=5)
"""The least catch-up window, so `catch_up_hours = 0` still posts from a slightly late tick."""
BACKOFF = Backoff(first=TICK_SECONDS, most=120.0)
"""After a tick that could not read the schedules: 15 s, 30 s, 60 s, then every 2 minutes."""
RECLAIM_AFTER = timedelta(minutes=5)
"""How old a claim must be, still unfinished, before another tick takes it over: far longer
than a post can take (a Slack or Discord call gives up after 10 s, with a few retries)."""


@dataclass
class TickReport:
    """What one tick did (for logs and tests)."""

    posted: list[int] = field(default_factory=list)
    """Ids of the posts it made."""
    failed: list[int] = field(default_factory=list)
    """Ids of the schedules whose post failed."""
    skipped: list[int] = field(default_factory=list)
    """Ids of the schedules whose slot was past the catch-up window."""
    closed: list[int] = field(default_factory=list)
    """Ids of the posts it closed for being open longer than `close_after_hours`."""


class Scheduler:
    """Posts due daily questions through the delivery of each server's platform.

    `deliveries` has a platform's `Delivery` while it is connected; schedules of a platform
    with none are left alone (another process may serve them).
    """

    def __init__(
        self,
        catalog: Catalog,
        clock: Clock,
        answering: Answering,
        publishing: Publishing,
        deliveries: Deliveries,
        schedules: ports.Schedules,
        slots: ports.Slots,
        posts: ports.PostsAndAnswers,
        *,
        catch_up_hours: float = 6.0,
        close_after_hours: float | None = None,
        interval: float = TICK_SECONDS,
        digest: ProblemDigest | None = None,
        faults: Faults | None = None,
    ) -> None:
        self._catalog = catalog
        self.clock = clock
        self._answering = answering
        self.publishing = publishing
        self.deliveries = deliveries
        self._schedules = schedules
        self._slots = slots
        self._posts = posts
        self.catch_up = max(timedelta(hours=catch_up_hours), GRACE)
        self.close_after = None if close_after_hours is None else timedelta(hours=close_after_hours)
        self.interval = interval
        self._unserved: set[int] = set()
        self._supervisor = Supervisor(clock, faults or Faults(clock, log))
        self.faults = self._supervisor.faults
        """Failures of the scheduler's work, logged without flooding (the composition root
        shares them with the summary of problem reports)."""
        self.digest = digest
        """The daily summary of problem reports, started from each tick; None: not sent."""
        self._summary: asyncio.Task[list[str]] | None = None

    async def run(self) -> None:
        """Ticks every `interval` seconds until cancelled, supervised: a tick that fails
        (the schedules could not be read) is logged without flooding and tried again after
        a backoff (`bot.service.supervision`)."""
        log.info("scheduler started for %s", ", ".join(sorted(self.deliveries)) or "nothing")
        try:
            await self._supervisor.loop("the scheduler", self.tick, self.interval, BACKOFF)
        finally:
            if self._summary is not None:
                self._summary.cancel()

    async def tick(self) -> TickReport:
        """One pass over every enabled schedule; one failing schedule stops no other (each
        failure is logged by `faults`, once, then at most once a minute). Raises only when
        the schedules could not be read at all."""
        report = TickReport()
        now = self.clock.now()
        schedules = await self._schedules.enabled_schedules()
        for item in schedules:
            what = f"daily question of schedule {item.schedule.id}"
            try:
                await self._consider(item, now, report)
            except Exception as error:
                self.faults.failed(("schedule", item.schedule.id), what, error)
            else:
                self.faults.recovered(("schedule", item.schedule.id), what)
        if self.close_after is not None:
            try:
                await self._close_stale(now - self.close_after, report)
            except Exception as error:
                self.faults.failed("close_stale", "closing old daily questions", error)
            else:
                self.faults.recovered("close_stale", "closing old daily questions")
        self._summarise(now)
        return report

    def _summarise(self, now: datetime) -> None:
        """Starts the summary of problem reports in a task of its own, unless the last one is
        still under way: its DMs (one per admin and server) never hold up a daily question."""
        if self.digest is None or (self._summary is not None and not self._summary.done()):
            return
        self._summary = asyncio.create_task(self.digest.maybe_send(now))

    async def _consider(self, item: EnabledSchedule, now: datetime, report: TickReport) -> None:
        schedule = item.schedule
        slot = schedule.last_slot(now)
        if slot is None:
            return
        if schedule.updated_at is not None and slot.at < schedule.updated_at:
            return  # set after this slot's minute: it starts with the next one
        if item.last_date is not None and item.last_date >= slot.local_date:
            if not self._stuck(item, slot.local_date, now):
                return  # this date (or a later one) already has its row
            if now - slot.at > self.catch_up:
                return
            assert item.last_claimed_at is not None
            if await self._slots.reclaim_slot(
                schedule.id, slot.local_date, item.last_claimed_at, now
            ):
                log.warning(
                    "scheduler: schedule %s, %s was claimed at %s and never posted; again now",
                    schedule.id,
                    slot.local_date,
                    item.last_claimed_at.isoformat(),
                )
                delivery = self.deliveries.get(schedule.platform)
                if delivery is not None and not await self._posted_after(item):
                    await self._post(schedule, slot, delivery, now, report)
            return
        delivery = self.deliveries.get(schedule.platform)
        if delivery is None:
            if schedule.id not in self._unserved:
                self._unserved.add(schedule.id)
                log.warning(
                    "scheduler: no delivery for %s (schedule %s)", schedule.platform, schedule.id
                )
            return
        if now - slot.at > self.catch_up:
            if await self._slots.claim_slot(schedule.id, slot.local_date, now, SlotStatus.SKIPPED):
                log.warning(
                    "scheduler: schedule %s missed %s (due %s, past the catch-up window)",
                    schedule.id,
                    slot.local_date,
                    slot.at.isoformat(),
                )
                report.skipped.append(schedule.id)
            return
        if await self._slots.claim_slot(schedule.id, slot.local_date, now):
            await self._post(schedule, slot, delivery, now, report)

    @staticmethod
    def _stuck(item: EnabledSchedule, local_date: date, now: datetime) -> bool:
        return (
            item.last_date == local_date
            and item.last_status is SlotStatus.CLAIMED
            and item.last_claimed_at is not None
            and now - item.last_claimed_at > RECLAIM_AFTER
        )

    async def _posted_after(self, item: EnabledSchedule) -> bool:
        """Whether the stuck attempt's question reached its channel (its post has a
        message): then the date is marked posted with it. A post of that attempt that never
        did is withdrawn, and the caller posts again."""
        schedule, since = item.schedule, item.last_claimed_at
        assert since is not None and item.last_date is not None
        for post in await self._slots.open_scheduled_posts(schedule.id):
            if post.opened_at < since:
                continue
            if post.message_ref is not None:
                await self._slots.finish_slot(
                    schedule.id, item.last_date, SlotStatus.POSTED, post_id=post.id
                )
                return True
            await self._answering.withdraw(post.id)
        return False

    async def _post(
        self,
        schedule: Schedule,
        slot: Slot,
        delivery: Delivery,
        now: datetime,
        report: TickReport,
    ) -> None:
        """The claim's winner: reveal the previous post, post the next question."""
        view: PostView | None = None
        try:
            deck = await self._catalog.deck_for(schedule.server_id, schedule.deck_id)
            for reveal in await close_open_posts(self._slots, self._answering, schedule.id):
                await show_reveal(delivery, reveal)
            question = await choose_question(self._slots, self._posts, schedule, deck)
            view = await self._answering.post(
                Actor(schedule.server_id, schedule.created_by),
                schedule.channel_id,
                deck.id,
                question.id,
                schedule_id=schedule.id,
            )
            await self.publishing.publish(view, delivery.post)  # withdrawn if it fails
        except Exception as error:
            reason = _reason(error)
            if not isinstance(error, DeliveryError | QuizError):
                log.exception("scheduler: schedule %s, %s", schedule.id, slot.local_date)
            else:
                log.warning(
                    "scheduler: schedule %s, %s failed: %s", schedule.id, slot.local_date, reason
                )
            post_id = None if view is None else view.post.id
            await self._slots.finish_slot(
                schedule.id, slot.local_date, SlotStatus.FAILED, post_id=post_id, error=reason
            )
            report.failed.append(schedule.id)
            try:
                await delivery.notify_failure(schedule, reason)
            except Exception:
                log.exception("scheduler: telling the admin of schedule %s", schedule.id)
            return
        await self._slots.finish_slot(
            schedule.id, slot.local_date, SlotStatus.POSTED, post_id=view.post.id
        )
        report.posted.append(view.post.id)
        log.info(
            "scheduler: schedule %s posted %s for %s",
            schedule.id,
            view.question.id,
            slot.local_date,
        )

    async def _close_stale(self, opened_before: datetime, report: TickReport) -> None:
        """Closes scheduled posts open longer than `close_after_hours`, with their reveal."""
        for post in await self._slots.open_scheduled_posts(opened_before=opened_before):
            delivery = self.deliveries.get(platform_of(post.server_id))
            if delivery is None:
                continue
            try:
                reveal = await self._answering.close_by_system(post.id)
            except Exception:
                log.exception("scheduler: closing post %s", post.id)
                continue
            if reveal.closed_now:
                report.closed.append(post.id)
                await show_reveal(delivery, reveal)


UNEXPECTED = "the bot met an unexpected error (its log has the details)"
REFUSALS = {
    "unknown_deck": "its deck {deck} is not loaded any more (was it removed or renamed?)",
    "no_decks": "no deck is loaded",
    "try_again": "the database did not answer in time",
}
"""Why a date failed, in words: `schedule show` and the admin's DM repeat it (in English,
like the platforms' own refusals), never an internal exception."""


def _reason(error: Exception) -> str:
    if isinstance(error, DeliveryError):
        return error.reason
    if isinstance(error, QuizError) and error.key in REFUSALS:
        return REFUSALS[error.key].format(**error.params)
    return UNEXPECTED
