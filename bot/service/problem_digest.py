"""The daily summary of problem reports: each server's admins are told what players reported
since the last summary, once a day at most.

A report is marked sent only once a message carrying it reached an admin, so a server with
no admin the bot knows of (no daily question set, none configured) keeps its reports for
`quizbot report` and `/quiz report`, and for the summary once an admin appears (if every DM
of a day's summary fails, the reports go in the next day's); so do reports a long summary
had no room for. Whoever set a daily question gets it only while still an admin, asked of the
platform at send time. The scheduler's ticks start it in a task of its own, so a slow DM never
delays a daily question; several processes share the day's claim (`first_seen`), so one
sends it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta

from bot.decks.model import Deck
from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.problems import ProblemReport, SummaryMessage
from bot.service.catalog import Catalog
from bot.service.deliveries import Deliveries
from bot.service.delivery import Delivery
from bot.service.ports import Problems, Schedules, Servers
from bot.service.supervision import Faults

log = logging.getLogger("quizbot.scheduler")

DAY = timedelta(days=1)
EVERY = timedelta(minutes=10)
"""How often the loop looks for reports to send."""
AT_ONCE = 8
"""Servers whose summaries are sent at the same time."""

Render = Callable[
    [
        Sequence[ProblemReport],
        Mapping[str, Deck],
        str,
        Callable[[str], str],
        Callable[[str], bool],
    ],
    list[SummaryMessage],
]
"""Writes the summary (reports, decks by id, locale, mention, whether a message fits the
platform): the composition root passes `bot.presentation.report_messages.digest_messages`,
as services import no presentation."""


def claim_key(server_id: str) -> str:
    return f"problem_digest:{server_id}"


class ProblemDigest:
    def __init__(
        self,
        catalog: Catalog,
        clock: Clock,
        problems: Problems,
        servers: Servers,
        schedules: Schedules,
        deliveries: Deliveries,
        render: Render,
        faults: Faults | None = None,
    ) -> None:
        self._catalog = catalog
        self._problems = problems
        self._servers = servers
        self._schedules = schedules
        self.faults = faults or Faults(clock, log)
        """Its failures, logged once, then at most once a minute."""
        self.render = render
        self.deliveries = deliveries
        """Each platform's, registered as it connects."""
        self._looked: datetime | None = None

    async def maybe_send(self, now: datetime) -> list[str]:
        """`send` if it has not looked in the last `EVERY`; never raises."""
        if self._looked is not None and now - self._looked < EVERY:
            return []
        self._looked = now
        try:
            sent = await self.send(now)
        except Exception as error:
            self.faults.failed("problem_digest", "the summary of problem reports", error)
            return []
        self.faults.recovered("problem_digest", "the summary of problem reports")
        return sent

    async def send(self, now: datetime) -> list[str]:
        """Sends each server's summary that is due; the servers told."""
        by_server: defaultdict[str, list[ProblemReport]] = defaultdict(list)
        for report in await self._problems.unsent_problem_reports():
            by_server[report.server_id].append(report)
        turns = asyncio.Semaphore(AT_ONCE)

        async def one(server_id: str, reports: list[ProblemReport]) -> bool:
            async with turns:
                what = f"the summary of problem reports for {server_id}"
                try:
                    sent = await self._send_one(server_id, reports, now)
                except Exception as error:
                    self.faults.failed(("problem_digest", server_id), what, error)
                    return False
                self.faults.recovered(("problem_digest", server_id), what)
                return sent

        servers = sorted(by_server)
        told = await asyncio.gather(*(one(s, by_server[s]) for s in servers))
        return [server for server, sent in zip(servers, told, strict=True) if sent]

    async def _send_one(self, server_id: str, reports: list[ProblemReport], now: datetime) -> bool:
        delivery = self.deliveries.of_server(server_id)
        if delivery is None:
            return False
        admins = await self._admins(server_id, delivery)
        if not admins:
            return False
        # The day's claim: one process of several sends it, and none again for a day.
        if not await self._servers.first_seen(claim_key(server_id), now, now + DAY):
            return False
        decks = {d.id: d for d in self._catalog.decks}
        shown: set[int] = set()
        for admin in sorted(admins):
            locale = await self._catalog.ui_locale(Actor(server_id, admin))
            for message in self.render(reports, decks, locale, delivery.mention, delivery.fits):
                if await delivery.tell(server_id, admin, message.text):
                    shown.update(message.report_ids)
        if shown:
            await self._problems.mark_problems_sent(sorted(shown), now)
        return bool(shown)

    async def _admins(self, server_id: str, delivery: Delivery) -> set[str]:
        """The platform's own admins, and whoever set a daily question here if the platform
        says they are an admin still (one who lost the role gets no players' reports)."""
        named = set(await delivery.admins(server_id))
        setters = {s.created_by for s in await self._schedules.server_schedules(server_id)} - named
        for user_id in sorted(setters):
            try:
                if await delivery.is_admin(server_id, user_id):
                    named.add(user_id)
            except Exception:
                log.exception("is %s an admin of %s?", user_id, server_id)
        return named
