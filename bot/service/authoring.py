"""What players tell deck authors, and what authors read back: "Report a problem", and
question health (`/quiz report`, `/quizadmin report`)."""

from __future__ import annotations

from bot.decks.model import Deck, Question
from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.health import HealthView, health_of
from bot.domain.problems import (
    DAILY_REPORTS,
    REPORT_WINDOW,
    TEXT_LIMIT,
    ProblemReport,
    Reason,
    refusal,
)
from bot.service.catalog import Catalog
from bot.service.ports import Problems, Standings


class Authoring:
    def __init__(
        self, catalog: Catalog, clock: Clock, problems: Problems, standings: Standings
    ) -> None:
        self._catalog = catalog
        self.clock = clock
        self._problems = problems
        self._standings = standings

    async def may_report(self, actor: Actor, key: str) -> tuple[Deck, Question]:
        """The question a report would be about, or a refusal in words: asked when the form
        opens, so nobody types a report only to have it refused, and again when it is sent."""
        deck, question = self._catalog.question_by_key(key)
        now = self.clock.now()
        mine = await self._problems.problem_reports_by(
            actor.server_id, actor.user_id, now - REPORT_WINDOW
        )
        refused = refusal(mine, deck.id, question.id, now)
        if refused is not None:
            raise QuizError(refused, limit=DAILY_REPORTS)
        return deck, question

    async def report_problem(self, actor: Actor, key: str, reason: object, text: str) -> None:
        """Stores a player's report about a question, with the deck's version now. A reason
        that is none of ours (a forged form) is refused, and so is a report past the limits
        (`bot.domain.problems.refusal`), which the store checks in the report's own
        transaction: forms sent at once cannot all pass. The text is kept to TEXT_LIMIT."""
        chosen = Reason.parse(reason)
        if chosen is None:
            raise QuizError("report_reason")
        deck, question = self._catalog.question_by_key(key)
        now = self.clock.now()
        await self._problems.report_problem(
            ProblemReport(
                server_id=actor.server_id,
                user_id=actor.user_id,
                deck_id=deck.id,
                question_id=question.id,
                deck_version=deck.version,
                reason=chosen,
                text=_printable(text)[:TEXT_LIMIT],
                reported_at=now,
            )
        )

    async def question_health(self, actor: Actor, deck_id: str | None = None) -> HealthView:
        """The health of a deck's questions in the caller's server (admins only); no deck:
        the server's default."""
        if not actor.is_admin:
            raise QuizError("admin_only")
        deck = await self._catalog.deck_for(actor.server_id, deck_id)
        # Counted in the store (a few numbers per question), not every answer read here.
        counted = await self._standings.question_tallies(actor.server_id, deck.id)
        reports = await self._problems.problem_reports(actor.server_id, deck.id)
        questions = {(deck.id, q.id): (len(q.choices), q.answer) for q in deck}
        rows = health_of(counted, questions, [(r.deck_id, r.question_id) for r in reports])
        return HealthView(deck, rows, reports, await self._catalog.ui_locale(actor))


def _printable(text: str) -> str:
    """What a player typed, without control characters (line breaks kept): it is shown to
    admins in chat and in terminals."""
    kept = "".join(c for c in text if c in "\n\t" or c.isprintable())
    return kept.strip()
