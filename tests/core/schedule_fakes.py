"""Test doubles for the daily-question tests: a delivery that records, and a small world."""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.bootstrap import build_digest, build_scheduler, build_schedules, capabilities
from bot.decks.model import DeckLibrary
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.game import GameNews
from bot.domain.post import PostView, Reveal
from bot.domain.schedule import Schedule
from bot.service.deliveries import Deliveries
from bot.service.delivery import ChannelRefused, DeliveryError
from bot.service.ports import QuizStore
from bot.service.scheduler import Scheduler
from bot.service.schedules import Schedules
from bot.service.services import Capabilities
from bot.service.supervision import Faults
from tests import factories


@dataclass
class FakeDelivery:
    """Records what it is asked to send. `fail` maps a channel id to the reason its posts
    and announcements are refused with (`ChannelRefused`: the bot may not post there);
    `flaky` to how many of its next posts and announcements fail as a platform's transient
    error would (a plain `DeliveryError`); `explode` channels raise a plain bug-like
    exception; `hold` channels' announcements wait for their event (a slow platform)."""

    posts: list[PostView] = field(default_factory=list)
    reveals: list[Reveal] = field(default_factory=list)
    failures: list[tuple[Schedule, str]] = field(default_factory=list)
    fail: dict[str, str] = field(default_factory=dict)
    explode: set[str] = field(default_factory=set)
    refuse_reveals: bool = False
    server_admins: dict[str, list[str]] = field(default_factory=dict)
    news: list[GameNews] = field(default_factory=list)
    """A game's announcements, standings and results, as `announce` got them."""
    told: list[tuple[str, str, str]] = field(default_factory=list)
    """(server, user, message) of each DM `tell` sent."""
    unreachable: set[str] = field(default_factory=set)
    still_admins: set[str] | None = None
    """Who `is_admin` says administers the server; None: everyone asked."""
    limit: int = 2000
    """The length of the longest message `tell` sends whole."""
    slow: asyncio.Event | None = None
    """When set, each `tell` waits for this event first (a DM that takes its time)."""
    posted: asyncio.Event = field(default_factory=asyncio.Event)
    """Set at each post, for tests that wait on `Scheduler.run`."""
    flaky: dict[str, int] = field(default_factory=dict)
    hold: dict[str, asyncio.Event] = field(default_factory=dict)
    ended: list[GameNews] = field(default_factory=list)
    """What `notify_game_end` was asked to tell each game's starter."""

    def _flake(self, channel: str) -> None:
        if self.flaky.get(channel, 0) > 0:
            self.flaky[channel] -= 1
            raise DeliveryError("Slack answered internal_error")

    async def post(self, view: PostView) -> str:
        channel = view.post.channel_id
        if channel in self.fail:
            raise ChannelRefused(self.fail[channel])
        self._flake(channel)
        if channel in self.explode:
            raise RuntimeError("boom")
        self.posts.append(view)
        self.posted.set()
        return f"msg-{view.post.id}"

    async def reveal(self, reveal: Reveal) -> None:
        if self.refuse_reveals:
            raise DeliveryError("message_not_found")
        self.reveals.append(reveal)

    async def announce(self, news: GameNews) -> None:
        channel = news.game.channel_id
        if channel in self.hold:
            await self.hold[channel].wait()
        if channel in self.fail:
            raise ChannelRefused(self.fail[channel])
        self._flake(channel)
        self.news.append(news)

    async def notify_game_end(self, news: GameNews) -> None:
        self.ended.append(news)

    async def notify_failure(self, schedule: Schedule, reason: str) -> None:
        self.failures.append((schedule, reason))

    async def admins(self, server_id: str) -> list[str]:
        return self.server_admins.get(server_id, [])

    async def is_admin(self, server_id: str, user_id: str) -> bool:
        return self.still_admins is None or user_id in self.still_admins

    def mention(self, user_id: str) -> str:
        return f"@{user_id}"

    def fits(self, message: str) -> bool:
        return len(message) <= self.limit

    async def tell(self, server_id: str, user_id: str, message: str) -> bool:
        if self.slow is not None:
            await self.slow.wait()
        if user_id in self.unreachable:
            return False
        self.told.append((server_id, user_id, message))
        return True

    def in_channel(self, channel_id: str) -> list[PostView]:
        return [v for v in self.posts if v.post.channel_id == channel_id]


def admin(server: str = "slack:T1", name: str = "boss") -> Actor:
    return Actor(server_id=server, user_id=name, is_admin=True)


def user(name: str, server: str = "slack:T1") -> Actor:
    return Actor(server_id=server, user_id=name)


@dataclass
class World:
    """One bot instance: its store, quiz, schedules service and scheduler, on a shared clock."""

    store: QuizStore
    clock: ManualClock
    quiz: Capabilities
    schedules: Schedules
    scheduler: Scheduler
    delivery: FakeDelivery
    deliveries: Deliveries


def world(
    store: QuizStore,
    clock: ManualClock,
    *,
    delivery: FakeDelivery | None = None,
    decks: DeckLibrary | None = None,
    platforms: tuple[str, ...] = ("slack", "discord", "local"),
    catch_up_hours: float = 6.0,
    close_after_hours: float | None = None,
    seed: int = 7,
) -> World:
    delivery = delivery or FakeDelivery()
    quiz = capabilities(
        store=store,
        decks=decks or factories.library(factories.deck("demo", n=7)),
        clock=clock,
        rng=random.Random(seed),
    )
    deliveries = Deliveries(dict.fromkeys(platforms, delivery))
    faults = Faults(clock, logging.getLogger("quizbot.scheduler"))
    scheduler = build_scheduler(
        store,
        quiz,
        clock,
        deliveries,
        catch_up_hours=catch_up_hours,
        close_after_hours=close_after_hours,
        digest=build_digest(store, quiz, clock, deliveries, faults),
        faults=faults,
    )
    schedules = build_schedules(store, quiz, clock)
    return World(store, clock, quiz, schedules, scheduler, delivery, deliveries)


def local(when: datetime, zone: str) -> str:
    """ "YYYY-MM-DD HH:MM" of an instant in a zone."""
    return when.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")
