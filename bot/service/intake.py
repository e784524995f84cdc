"""One click's life on every platform: admitted, decided, committed, acknowledged, answered,
recorded. Written once here; an adapter only parses (value -> `Intent`), hands over its ack
and reply, and renders the `Outcome`.

An ack is a promise (`bot.service.admission`): the click's core call has committed before
`ack` is called, and a click that arrives while stopping is not acknowledged at all. Where a
platform's ack carries the reply (Discord's first callback, a Slack form's response), there
is no separate ack: the reply is sent after the commit all the same. A game's answer is
"locked in" (no verdict, no count until the reveal); any other new answer touches its post's
"N answered" count. Each click is then recorded (`bot.observability.clicklog`), timed from
its arrival.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.records import AnswerStatus
from bot.observability import clicklog
from bot.observability.clicklog import DONE, Handled, failed
from bot.observability.metrics import Metrics
from bot.service.admission import Admission, Closing
from bot.service.answering import Answering
from bot.service.authoring import Authoring
from bot.service.catalog import Catalog
from bot.service.clicks import (
    Act,
    Acted,
    Answer,
    Answered,
    CancelReset,
    Forget,
    Hide,
    Intent,
    Keep,
    Locked,
    OpenReport,
    Outcome,
    Refused,
    Report,
    Reported,
    ReportForm,
    Reset,
    ReviewAnswer,
    Reviewed,
    ReviewStarted,
    RunAnswer,
    RunFed,
    Said,
    Stale,
    StartReview,
    Switched,
    SwitchLanguage,
)
from bot.service.live_posts import LivePosts, MessageEditor
from bot.service.membership import Membership
from bot.service.review import Review
from bot.service.runs import Runs

Ack = Callable[[], Awaitable[object]]
"""Tells the platform the click arrived (Slack's HTTP 200 or Socket Mode ack)."""
Reply = Callable[[Outcome], Awaitable[None]]
"""Renders and sends what the click's reply says; raises if it could not be sent."""
Vouch = Callable[[Actor], Awaitable[Actor]]
"""The clicker with their admin rights checked again, the platform's way."""


@dataclass(frozen=True)
class Click:
    """One click as its adapter read it."""

    actor: Actor | None
    """Who clicked; None: nobody the bot serves (`nobody` says why)."""
    intent: Intent
    arrived: float
    """When its request arrived (`time.monotonic()`)."""
    post_id: int | None = None
    """The post its button names, for the log line of a click that failed."""
    editor: MessageEditor | None = None
    """How this platform redraws a post's "N answered" count."""
    vouch: Vouch | None = None
    """For an intent that needs an admin (`Reset`): None trusts `actor.is_admin`."""
    nobody: Exception | None = None
    """What to tell a clicker who is nobody (None: the click is stale)."""


class Capable(Protocol):
    """The capabilities a click may call (`Services` and `Capabilities` have them)."""

    @property
    def catalog(self) -> Catalog: ...
    @property
    def answering(self) -> Answering: ...
    @property
    def membership(self) -> Membership: ...
    @property
    def runs(self) -> Runs: ...
    @property
    def review(self) -> Review: ...
    @property
    def authoring(self) -> Authoring: ...


class Intake:
    """The clicks of one platform (`platform`: its name in metrics and its logger's)."""

    def __init__(
        self, core: Capable, admission: Admission, posts: LivePosts, metrics: Metrics, platform: str
    ) -> None:
        self._core = core
        self._admission = admission
        self._posts = posts
        self._metrics = metrics
        self._platform = platform
        self._log = logging.getLogger(f"quizbot.{platform}")

    async def handle(self, click: Click, reply: Reply, ack: Ack | None = None) -> Handled | None:
        """The click, admitted, decided and committed, then acknowledged (`ack`; None where
        the reply is the ack), answered and recorded. What it did; None when it arrived while
        stopping (it is not acknowledged: the platform tells its clicker it failed)."""
        actor = click.actor
        who = None if actor is None else (actor.server_id, actor.user_id)
        try:
            async with self._admission.admit(who, click.arrived) as ticket:
                outcome, handled = await self._decide(click, ticket.deadline)
                if ack is not None:
                    await ack()  # the click's work is stored: now the platform may be told
                handled = await self._reply(reply, outcome, handled, click)
                clicklog.record(self._metrics, self._platform, actor, handled, click.arrived)
                return handled
        except Closing:
            self._log.info("a click arrived while stopping; not acknowledged")
            return None

    async def _reply(
        self, reply: Reply, outcome: Outcome, handled: Handled, click: Click
    ) -> Handled:
        try:
            await reply(outcome)
        except Exception:
            self._log.exception("the reply to a click could not be sent")
            return Handled(failed(None), click.post_id)
        return handled

    async def _decide(self, click: Click, deadline: float) -> tuple[Outcome, Handled]:
        """The click's work, up to its commit; a refusal or a failure becomes what to say."""
        try:
            if click.actor is None:
                raise click.nobody or QuizError("stale_click")
            return await self._work(click.actor, click, deadline)
        except Exception as error:
            if isinstance(error, QuizError):
                outcome = failed(error.key)
            else:  # a clicker who is nobody is refused; anything else is a bug
                outcome = failed("nobody" if error is click.nobody else None)
            return Refused(error, click.actor), Handled(outcome, click.post_id)

    async def _work(self, actor: Actor, click: Click, deadline: float) -> tuple[Outcome, Handled]:
        """Decides by the click's kind."""
        core, intent = self._core, click.intent
        if isinstance(intent, Answer):
            return await self._answer(actor, intent, click.editor, deadline)
        if isinstance(intent, SwitchLanguage):
            result = await core.answering.my_answer(actor, intent.post_id, intent.locale)
            return Switched(result), Handled("done", intent.post_id)
        if isinstance(intent, RunAnswer):
            fed = await core.runs.run_answer(
                actor, intent.run_id, intent.question_id, intent.shown, deadline=deadline
            )
            return RunFed(fed), _fed(fed.duplicate, fed.answer.correct)
        if isinstance(intent, ReviewAnswer):
            reviewed = await core.review.review_answer(
                actor, intent.key, intent.number, intent.shown, intent.tag, deadline=deadline
            )
            return Reviewed(reviewed), _fed(reviewed.duplicate, reviewed.correct)
        if isinstance(intent, StartReview):
            return ReviewStarted(await core.review.start_review(actor, intent.tag)), DONE
        if isinstance(intent, OpenReport):
            deck, question = await core.authoring.may_report(actor, intent.key)
            locale = await core.catalog.reply_locale(actor, deck)
            return ReportForm(locale, intent.key, question), DONE
        if isinstance(intent, Report):
            await core.authoring.report_problem(actor, intent.key, intent.reason, intent.details)
            return Reported(await core.catalog.ui_locale(actor)), DONE
        if isinstance(intent, Act):
            return Acted(), await intent.work(deadline)
        if isinstance(intent, Stale):
            raise QuizError("stale_click")
        return await self._confirm(actor, intent, click, deadline), DONE

    async def _answer(
        self, actor: Actor, intent: Answer, editor: MessageEditor | None, deadline: float
    ) -> tuple[Outcome, Handled]:
        """A choice on a posted question; the first click stands."""
        answering = self._core.answering
        result = await answering.answer(actor, intent.post_id, intent.shown, deadline=deadline)
        new = result.status is AnswerStatus.NEW
        handled = Handled(result.status.value, intent.post_id, result.correct if new else None)
        if result.view.post.game_id is not None:  # a game's: no count, no verdict till the reveal
            return Locked(result), handled
        if new and editor is not None:
            self._posts.answered(intent.post_id, editor)
        return Answered(result), handled

    async def _confirm(self, actor: Actor, intent: Intent, click: Click, deadline: float) -> Said:
        """The confirms of a new season and of privacy, in the clicker's language as it was
        when they clicked."""
        membership = self._core.membership
        locale = await self._core.catalog.ui_locale(actor)
        if isinstance(intent, Reset):
            who = await click.vouch(actor) if click.vouch is not None else actor
            season = await membership.reset(who, intent.season, deadline=deadline)
            return Said(locale, "reset.done", {"season": season})
        if isinstance(intent, Forget):
            return Said(locale, "privacy.done", {"answers": await membership.forget_me(actor)})
        if isinstance(intent, Hide):
            await membership.set_hidden(actor, intent.hidden)
            return Said(locale, "privacy.hidden" if intent.hidden else "privacy.shown")
        if isinstance(intent, Keep):
            return Said(locale, "privacy.cancelled")
        if isinstance(intent, CancelReset):
            return Said(locale, "reset.cancelled")
        raise AssertionError(f"a click of no known kind: {intent!r}")


def _fed(duplicate: bool, correct: bool) -> Handled:
    return Handled("duplicate") if duplicate else Handled("new", correct=correct)
