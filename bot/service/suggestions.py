"""Questions the team writes: the author's form and its coaching, the admins' queue, and the
server's own deck they join (`bot.domain.suggestion`, `coaching`, `team_deck`).

A capability of its own: it takes the narrow `Suggestions` port, the deck library (to lint a
draft against the server's decks and to hold the servers' own decks), the clock, and the
deliveries (to tell an author what became of their question). Linting a draft against every
deck takes a second or two, so it runs in a thread; the adapters acknowledge first.

Other processes on the same database see an approval within `POLL_SECONDS` (`run` polls a
stamp of the approved rows); this process at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, time

from bot.decks.formats.language import detect_language
from bot.decks.model import Deck, DeckLibrary
from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.coaching import coach
from bot.domain.errors import QuizError
from bot.domain.health import QuestionHealth, QuestionTally, health_of
from bot.domain.suggestion import (
    PER_DAY,
    WAITING_CAP,
    Checked,
    Draft,
    Field,
    Finding,
    Queue,
    Sent,
    Status,
    Suggestion,
    Written,
)
from bot.domain.team_deck import team_deck
from bot.service.deliveries import Deliveries
from bot.service.delivery import Delivery
from bot.service.suggestion_port import Suggestions as SuggestionStore
from bot.service.supervision import Backoff, Faults, Supervisor

log = logging.getLogger("quizbot.suggestions")
POLL_SECONDS = 5.0
BACKOFF = Backoff(first=5.0, most=60.0)
"""After a failed look at the database, the next is up to a minute away."""
QUEUE_PAGE = 10
"""Suggestions the queue shows at once (the oldest): a short list to work through."""
REASON_LIMIT = 300


class FormRefused(QuizError):
    """The form cannot be stored as typed: `field` is where the form says why."""

    def __init__(self, field: Field, error: QuizError) -> None:
        super().__init__(error.key, **error.params)
        self.field = field


Tallies = Callable[[str, str], Awaitable[Sequence[QuestionTally]]]
"""The answer tallies of a deck's questions in a server (the store's `question_tallies`)."""


class Suggestions:
    def __init__(
        self,
        store: SuggestionStore,
        library: Callable[[], DeckLibrary],
        clock: Clock,
        deliveries: Deliveries | Mapping[str, Delivery],
        outcome_text: Callable[[Suggestion, Deck | None], str],
        tallies: Tallies | None = None,
    ) -> None:
        self.store = store
        self._library = library
        self._clock = clock
        self._deliveries = deliveries
        self._outcome_text = outcome_text
        self._tallies = tallies
        self._stamp: str | None = None

    # -- the author ---------------------------------------------------------------------

    async def draft(self, actor: Actor) -> Draft | None:
        """What the form opens with: the author's draft, if they left one."""
        found = await self.store.draft_of(actor.server_id, actor.user_id)
        return None if found is None else found.draft

    async def check(self, actor: Actor, author_name: str, fields: dict[Field, str]) -> Checked:
        """The form sent: stored as the author's draft (nothing typed is lost), linted; a
        draft the lint finds nothing in goes to the queue at once."""
        draft = Draft.typed(fields, _language(fields))
        refused = draft.refusal()
        if refused is not None:
            raise FormRefused(*refused)
        now = self._clock.now()
        saved = await self.store.save_draft(actor.server_id, actor.user_id, author_name, draft, now)
        findings = await self.findings_of(actor.server_id, draft)
        if findings:
            return Checked(saved, findings)
        return Checked(saved, findings, await self._send(actor, saved.id, findings))

    async def keep(self, actor: Actor, author_name: str, fields: dict[Field, str]) -> Suggestion:
        """A form closed unsent: what was typed is kept as the draft, unchecked (the form
        holds each field to its limit), so it opens filled in next time."""
        draft = Draft.typed(fields, _language(fields))
        return await self.store.save_draft(
            actor.server_id, actor.user_id, author_name, draft, self._clock.now()
        )

    async def send_anyway(self, actor: Actor, suggestion_id: int) -> Sent:
        """ "Submit anyway": the draft goes to the queue with what the lint found."""
        found = await self.store.suggestion(suggestion_id)
        if found is None or found.author_id != actor.user_id or found.status is not Status.DRAFT:
            return Sent.GONE
        return await self._send(
            actor, suggestion_id, await self.findings_of(actor.server_id, found.draft)
        )

    async def _send(self, actor: Actor, suggestion_id: int, findings: Sequence[Finding]) -> Sent:
        now = self._clock.now()
        day_start = datetime.combine(now.date(), time(0), now.tzinfo)
        return await self.store.send(
            suggestion_id, actor.user_id, findings, now, day_start, PER_DAY, WAITING_CAP
        )

    async def findings_of(self, server_id: str, draft: Draft) -> list[Finding]:
        decks = self._library().for_server(server_id)
        return await asyncio.to_thread(coach, draft, decks)

    # -- the admins ---------------------------------------------------------------------

    async def queue(self, actor: Actor) -> Queue:
        """What waits, oldest first, each with what the lint found (admins)."""
        _admin(actor)
        waiting = await self.store.waiting(actor.server_id, QUEUE_PAGE)
        shown = [(s, await self.store.findings(s.id)) for s in waiting]
        return Queue(shown, await self.store.waiting_count(actor.server_id))

    async def waiting_one(self, actor: Actor, suggestion_id: int) -> Suggestion:
        """A waiting suggestion of the admin's server (the form an admin edits)."""
        _admin(actor)
        found = await self.store.suggestion(suggestion_id)
        if (
            found is None
            or found.server_id != actor.server_id
            or found.status is not Status.WAITING
        ):
            raise QuizError("suggestion_gone")
        return found

    async def rewrite(self, actor: Actor, suggestion_id: int, fields: dict[Field, str]) -> Checked:
        """An admin's edit of a waiting suggestion: checked and linted like the author's."""
        before = await self.waiting_one(actor, suggestion_id)
        draft = Draft.typed(fields, _language(fields))
        refused = draft.refusal()
        if refused is not None:
            raise FormRefused(*refused)
        findings = await self.findings_of(actor.server_id, draft)
        done = await self.store.rewrite(before.id, draft, findings, self._clock.now())
        if done is None:
            raise QuizError("suggestion_gone")
        return Checked(done, findings)

    async def approve(self, actor: Actor, suggestion_id: int) -> Suggestion:
        """It joins the server's own deck, playable at once; its author is told."""
        return await self._decide(actor, suggestion_id, Status.APPROVED, None)

    async def reject(self, actor: Actor, suggestion_id: int, reason: str) -> Suggestion:
        reason = reason.strip()
        if not reason:
            raise QuizError("suggest_missing_reason")
        return await self._decide(actor, suggestion_id, Status.REJECTED, reason[:REASON_LIMIT])

    async def _decide(
        self, actor: Actor, suggestion_id: int, status: Status, reason: str | None
    ) -> Suggestion:
        _admin(actor)
        done = await self.store.decide(
            suggestion_id, actor.server_id, status, actor.user_id, reason, self._clock.now()
        )
        if done is None:
            raise QuizError("suggestion_gone")
        if status is Status.APPROVED:
            await self.refresh()
        await self._tell(done)
        return done

    async def _tell(self, done: Suggestion) -> None:
        delivery = self._deliveries.get(done.server_id.partition(":")[0])
        if delivery is None or done.author_id is None:
            return
        try:
            deck = self._library().own.of(done.server_id)
            await delivery.tell(done.server_id, done.author_id, self._outcome_text(done, deck))
        except Exception:  # best effort: the decision stands
            log.exception("the author of suggestion %d could not be told", done.id)

    # -- everyone -----------------------------------------------------------------------

    async def written(self, actor: Actor, user_id: str | None = None) -> list[Written]:
        """The questions `user_id` (else the actor) wrote, newest first, with how the approved
        ones play; others see only approved ones (nothing is shown before approval)."""
        who = user_id or actor.user_id
        found = [
            s
            for s in await self.store.authored(actor.server_id, who)
            if s.status is Status.APPROVED or (who == actor.user_id and s.status is Status.WAITING)
        ]
        deck = self._library().own.of(actor.server_id)
        health: dict[str, QuestionHealth] = {}
        if deck is not None and self._tallies is not None and found:
            counted = await self._tallies(actor.server_id, deck.id)
            questions = {(deck.id, q.id): (len(q.choices), q.answer) for q in deck}
            health = {row.question_id: row for row in health_of(counted, questions)}
        return [Written(s, health.get(s.question_id)) for s in found]

    async def forget(self, server_id: str, user_id: str) -> int:
        """`quizbot forget`: their drafts and suggestions go, their credit too."""
        touched = await self.store.forget_author(server_id, user_id, self._clock.now())
        await self.refresh()
        return touched

    # -- the servers' own decks ---------------------------------------------------------

    async def refresh(self) -> None:
        """Builds every server's own deck from the approved suggestions now stored."""
        stamp = await self.store.approved_stamp()
        approved = await self.store.approved()
        servers = {s.server_id for s in approved}
        decks = {server: team_deck(server, approved) for server in servers}
        self._library().own.replace({k: v for k, v in decks.items() if v is not None})
        self._stamp = stamp

    async def sync(self) -> None:
        """Rebuilds the own decks if the approved suggestions changed since the last look."""
        if await self.store.approved_stamp() != self._stamp:
            await self.refresh()

    async def run(self) -> None:
        """Keeps the own decks as the database has them (another process approves too),
        supervised: a database that cannot be read is logged once, then once a minute, and
        looked at again (`bot.service.supervision`)."""
        supervisor = Supervisor(self._clock, Faults(self._clock, log))
        await supervisor.loop("the servers' own decks", self.sync, POLL_SECONDS, BACKOFF)


def _admin(actor: Actor) -> None:
    if not actor.is_admin:
        raise QuizError("admin_only")


def _language(fields: dict[Field, str]) -> str:
    """The language the form is written in, found as `quizbot import` finds a file's."""
    found = detect_language(v for k, v in fields.items() if k is not Field.WHYS)
    return found.locale if found is not None else "en"
