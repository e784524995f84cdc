"""The daily summary of problem reports: each server's admins are told what players reported
since the last summary, once a day at most.

A report is marked sent only once some admin was told, so a server with no admin the bot
knows of (no daily question set, none configured) keeps its reports for `quizbot report`
and `/quiz report`, and for the summary once an admin appears (if every DM of a day's
summary fails, the reports go in the next day's). Runs from the scheduler's loop, at most
every `EVERY`; several processes share the day's claim (`first_seen`), so one sends it.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta

from bot.decks.model import Deck
from bot.domain.actor import Actor
from bot.domain.problems import ProblemReport
from bot.service.delivery import Delivery
from bot.service.ports import QuizStore
from bot.service.quiz import Quiz

log = logging.getLogger("quizbot.scheduler")

DAY = timedelta(days=1)
EVERY = timedelta(minutes=10)
"""How often the loop looks for reports to send."""


Render = Callable[[Sequence[ProblemReport], Mapping[str, Deck], str, Callable[[str], str]], str]
"""Writes the summary (reports, decks by id, locale, mention): the composition root passes
`bot.presentation.report_messages.digest_text`, as services import no presentation."""


def claim_key(server_id: str) -> str:
    return f"problem_digest:{server_id}"


class ProblemDigest:
    def __init__(
        self, store: QuizStore, quiz: Quiz, deliveries: Mapping[str, Delivery], render: Render
    ) -> None:
        self.store = store
        self.render = render
        self.quiz = quiz
        self.deliveries = deliveries
        """Shared with the scheduler, which registers each platform's as it connects."""
        self._looked: datetime | None = None

    async def maybe_send(self, now: datetime) -> list[str]:
        """`send` if it has not looked in the last `EVERY`."""
        if self._looked is not None and now - self._looked < EVERY:
            return []
        self._looked = now
        return await self.send(now)

    async def send(self, now: datetime) -> list[str]:
        """Sends each server's summary that is due; the servers told."""
        by_server: defaultdict[str, list[ProblemReport]] = defaultdict(list)
        for report in await self.store.unsent_problem_reports():
            by_server[report.server_id].append(report)
        told = []
        for server_id, reports in sorted(by_server.items()):
            try:
                if await self._send_one(server_id, reports, now):
                    told.append(server_id)
            except Exception:
                log.exception("problem summary for %s", server_id)
        return told

    async def _send_one(self, server_id: str, reports: list[ProblemReport], now: datetime) -> bool:
        delivery = self.deliveries.get(server_id.partition(":")[0])
        if delivery is None:
            return False
        admins = set(await delivery.admins(server_id))
        admins |= {s.created_by for s in await self.store.server_schedules(server_id)}
        if not admins:
            return False
        # The day's claim: one process of several sends it, and none again for a day.
        if not await self.store.first_seen(claim_key(server_id), now, now + DAY):
            return False
        decks = {d.id: d for d in self.quiz.decks}
        sent = False
        for admin in sorted(admins):
            locale = await self.quiz.ui_locale(Actor(server_id, admin))
            message = self.render(reports, decks, locale, delivery.mention)
            sent = await delivery.tell(server_id, admin, message) or sent
        if sent:
            await self.store.mark_problems_sent([r.id for r in reports if r.id is not None], now)
        return sent
