"""What the adapters receive: the services of one process, built by `bot.bootstrap`.

An adapter turns platform input into calls on these and renders the results; it never
reaches the store (the storage port is for services) and never builds a service itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from bot.config import Config
from bot.decks.loading import DeckReport, load_decks
from bot.decks.model import DeckLibrary
from bot.domain.clock import Clock
from bot.observability import clicklog
from bot.observability.metrics import Metrics
from bot.service.admission import Admission
from bot.service.delivery import Delivery
from bot.service.games import Games
from bot.service.live_posts import LivePosts
from bot.service.ports import QuizStore
from bot.service.publishing import Publishing
from bot.service.quiz import Quiz
from bot.service.scheduler import Scheduler
from bot.service.schedules import Schedules
from bot.service.suggestions import Suggestions

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger("quizbot")


@dataclass
class Services:
    config: Config
    store: QuizStore
    """For the composition root and tests; adapters go through the services."""
    quiz: Quiz
    clock: Clock
    schedules: Schedules
    scheduler: Scheduler
    """One scheduler for every platform: each runner registers its Delivery when it is up."""
    installations: Callable[[], AsyncEngine] | None = None
    """Opens the engine of Slack's OAuth installation store (the project's database)."""
    metrics: Metrics = field(default_factory=Metrics)
    admission: Admission = field(default_factory=Admission)
    """The clicks being answered, on every platform of this process."""
    publishing: Publishing = field(init=False)
    games: Games = field(init=False)
    """Live games, posted through the deliveries the scheduler has."""
    suggestions: Suggestions = field(init=False)
    """Questions the team writes (set by `bot.bootstrap.build_app`, which has the store)."""

    def __post_init__(self) -> None:
        self.publishing = Publishing(self.quiz)
        self.games = Games(self.store, self.quiz, self.clock, self.scheduler.deliveries)

    def live_posts(self, interval: float) -> LivePosts:
        """The open question messages of one platform, redrawn at most every `interval` s."""
        return LivePosts(self.quiz, self.clock, interval)

    def register_delivery(self, platform: str, delivery: Delivery) -> None:
        """Lets the scheduler post daily questions, and the game loop play games, on
        `platform` ("slack", "discord")."""
        self.scheduler.deliveries[platform] = delivery

    def unregister_delivery(self, platform: str, delivery: Delivery) -> None:
        """No more daily questions through `delivery` (its session is closing)."""
        if self.scheduler.deliveries.get(platform) is delivery:
            del self.scheduler.deliveries[platform]

    async def healthy(self) -> None:
        """Returns when the database takes a write (one that changes nothing); raises
        otherwise: a read-only database answers reads, but cannot store a click."""
        await self.store.writable()

    async def first_seen(self, key: str, seconds: float) -> bool:
        """True the first time `key` is seen by any process on this database, for `seconds`
        (Slack's retries and replays, `[slack] shared_seen`)."""
        now = self.quiz.clock.now()
        return await self.store.first_seen(key, now, now + timedelta(seconds=seconds))

    async def get_meta(self, key: str) -> str | None:
        return await self.store.get_meta(key)

    async def set_meta(self, key: str, value: str) -> None:
        await self.store.set_meta(key, value)

    async def close(self) -> None:
        clicklog.flush()  # the last clicks' lines, held back while clicks came (clicklog)
        await self.store.close()

    def reload_decks(self) -> DeckReport:
        """Loads the decks again; only a valid set replaces the running one.

        Posts and runs of questions that disappeared get a polite "question gone" reply.
        """
        report = load_decks(self.config.question_paths, self.config.shipped_decks)
        if report.ok:
            self.quiz.decks = DeckLibrary(report.decks, self.quiz.decks.own)
            log.info("decks reloaded: %s", report.summary(), extra={"event": "decks_reloaded"})
        else:
            log.error(
                "deck reload refused, keeping the running decks:\n%s",
                "\n".join(str(p) for p in report.problems),
                extra={"event": "decks_reload_refused", "problems": len(report.problems)},
            )
        return report

    def reload_on_sighup(self) -> None:
        """`kill -HUP <pid>` reloads the decks (where the platform has signals)."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, AttributeError):
            loop.add_signal_handler(signal.SIGHUP, self.reload_decks)
