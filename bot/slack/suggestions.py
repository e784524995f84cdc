"""`/quiz suggest` and `/quiz suggestions` on Slack: the form, its coaching, the admins' queue.

The form is a modal. Sent, it is checked at once (a field over its limit or missing is said
under that field) and the form turns into "checking" within Slack's 3 s; the lint takes a
second or two, then the same modal shows what it found, with Edit (the form again, filled
in) and Submit anyway. Closing the form keeps what was typed (`notify_on_close`): it opens
filled in next time. The admins' queue is a private reply; Approve, Edit (the form, filled
in) and Reject (a form for the reason) act on it, and the author is told by DM.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.models.blocks import Block
from slack_sdk.web.async_client import AsyncWebClient

from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.suggestion import Draft, Field
from bot.presentation import suggestion_messages as say
from bot.presentation.locales import text
from bot.service.ports import StoreUnavailable
from bot.service.services import Services
from bot.slack import actions
from bot.slack import suggestion_blocks as show
from bot.slack.blocks import Reply
from bot.slack.commands import Command, Commands, Request
from bot.slack.fastpath import Acks
from bot.slack.identity import Admins, actor_of
from bot.slack.replies import Sessions, failure, guarded, private

log = logging.getLogger("quizbot.slack")


def typed(view: dict[str, Any]) -> dict[Field, str]:
    """The form's fields as typed (a payload is never trusted: what is not text is empty)."""
    values = actions.dig(view, "state", "values")
    found: dict[Field, str] = {}
    for f in Field:
        value = actions.dig(values, f.value, f.value, "value")
        found[f] = value if isinstance(value, str) else ""
    return found


def _name(body: dict[str, Any]) -> str:
    user = body.get("user")
    for key in ("name", "username"):
        value = actions.dig(user, key)
        if isinstance(value, str) and value:
            return value
    return str(actions.dig(user, "id") or "?")


def _edits(meta: object) -> int | None:
    """The suggestion an admin's form edits (`{"e": id}`), or None: the author's own form."""
    try:
        found = json.loads(meta) if isinstance(meta, str) and meta.startswith("{") else None
    except ValueError:
        return None
    edits = actions.dig(found, "e")
    return edits if isinstance(edits, int) and not isinstance(edits, bool) else None


def _id(value: object) -> int | None:
    return int(value) if isinstance(value, str) and value.isdecimal() and len(value) < 18 else None


class SuggestionListeners:
    def __init__(
        self,
        services: Services,
        sessions: Sessions,
        admins: Admins,
        approvers: Iterable[str] = (),
    ) -> None:
        self._services = services
        self._box = services.suggestions
        self._quiz = services.catalog
        self._sessions = sessions
        self._admins = admins
        self._approvers = frozenset(approvers)

    async def _approver(self, client: AsyncWebClient, who: Actor) -> Actor:
        """The actor, an admin for suggestions if named in `[suggestions] approvers`."""
        if who.user_id in self._approvers:
            return Actor(who.server_id, who.user_id, True, who.locale)
        return await self._admins.check(client, who)

    def register(self, bolt: AsyncApp, commands: Commands, acks: Acks) -> None:
        commands.add("suggest", self.suggest)
        commands.add("suggestions", self.queue)
        commands.stats_extra = self.stats_blocks
        early = acks.early
        bolt.view(show.FORM)(early(self.form_sent))
        bolt.view_closed(show.FORM)(early(self.form_closed))
        bolt.view(show.REJECT_FORM)(early(self.reject_sent))
        bolt.action(show.EDIT)(early(self.edit))
        bolt.action(show.SEND)(early(self.send))
        bolt.action(show.APPROVE)(early(self.approve))
        bolt.action(show.ADMIN_EDIT)(early(self.admin_edit))
        bolt.action(show.REJECT)(early(self.reject))

    # -- the author ---------------------------------------------------------------------

    async def suggest(self, req: Request, cmd: Command) -> None:
        """`/quiz suggest`: the form, filled in with the author's draft if they left one."""
        locale = await self._quiz.ui_locale(req.actor)
        draft = await self._box.draft(req.actor)
        await req.client.views_open(
            trigger_id=req.trigger_id, view=show.form(locale, draft).to_dict()
        )

    async def form_sent(
        self, ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        actor = actor_of(context)
        fields = typed(view)
        edits = _edits(view.get("private_metadata"))
        locale = await self._quiz.ui_locale(actor) if actor else "en"
        refused = Draft.typed(fields).refusal()
        if actor is None or refused is not None:
            field, error = refused or (Field.QUESTION, QuizError("stale_click"))
            message = await self._said(actor, error)
            await ack(
                response_action="errors", errors={field.value: message[: actions.FORM_ERROR_LIMIT]}
            )
            return
        if edits is None:  # an ack is a promise: what was typed is stored before the form goes
            try:
                await self._box.keep(actor, _name(body), fields)
            except Exception as error:  # the form stays open, as typed, and says why
                message = await self._said(actor, error)
                await ack(
                    response_action="errors",
                    errors={Field.QUESTION.value: message[: actions.FORM_ERROR_LIMIT]},
                )
                return
        await ack(
            response_action="update",
            view=show.notice(locale, text(locale, "suggest.checking")).to_dict(),
        )
        view_id = str(view.get("id") or "")
        try:
            if edits is not None:
                who = await self._approver(context.client, actor)
                await self._box.rewrite(who, edits, fields)
                done = show.notice(locale, text(locale, "suggest.edited", id=edits))
            else:
                checked = await self._box.check(actor, _name(body), fields)
                if checked.sent is not None:
                    done = show.notice(locale, say.sent_text(locale, checked.sent, clean=True))
                else:
                    done = show.coaching(locale, checked)
        except Exception as error:
            _, message = await failure(self._services, actor, error)
            done = show.notice(locale, message)
        await context.client.views_update(view_id=view_id, view=done.to_dict())

    async def _said(self, actor: Actor | None, error: Exception) -> str:
        return (await failure(self._services, actor, error))[1]

    async def form_closed(
        self, ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        """Closed unsent: what was typed is kept as the author's draft, then Slack is answered
        (an ack is a promise). A draft the database cannot take has no one left to tell (the
        form is gone): Slack is answered all the same, and it is logged."""
        actor = actor_of(context)
        fields = typed(view)
        if actor is not None and any(fields.values()):
            try:
                await self._box.keep(actor, _name(body), fields)
            except StoreUnavailable:
                log.warning("a suggestion form closed unsent: its draft could not be kept")
        await ack()

    async def edit(self, ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext) -> None:
        """Edit, in the coaching: the form again, filled in with the draft."""
        await ack()
        actor = actor_of(context)
        if actor is None:
            return
        locale = await self._quiz.ui_locale(actor)
        draft = await self._box.draft(actor)
        view_id = str(actions.dig(body, "view", "id") or "")
        await context.client.views_update(view_id=view_id, view=show.form(locale, draft).to_dict())

    async def send(
        self, ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        """Submit anyway: the draft goes to the queue with what the lint found."""
        await ack()
        actor, suggestion = actor_of(context), _id(action.get("value"))
        if actor is None or suggestion is None:
            return
        locale = await self._quiz.ui_locale(actor)
        view_id = str(actions.dig(body, "view", "id") or "")
        await context.client.views_update(
            view_id=view_id, view=show.notice(locale, text(locale, "suggest.checking")).to_dict()
        )
        try:
            message = say.sent_text(locale, await self._box.send_anyway(actor, suggestion))
        except Exception as error:
            message = await self._said(actor, error)
        await context.client.views_update(
            view_id=view_id, view=show.notice(locale, message).to_dict()
        )

    async def stats_blocks(self, asker: Actor, user_id: str) -> list[Block]:
        """`/quiz stats`: the questions the person wrote and how they play."""
        written = await self._box.written(asker, user_id)
        lines = say.written_lines(await self._quiz.ui_locale(asker), written)
        return [show.said("\n".join(lines))] if lines else []

    # -- the admins ---------------------------------------------------------------------

    async def queue(self, req: Request, cmd: Command) -> None:
        """`/quiz suggestions` (admins): what waits, oldest first."""
        locale = await self._quiz.ui_locale(req.actor)
        who = req.actor
        if who.user_id in self._approvers:
            who = Actor(who.server_id, who.user_id, True, who.locale)
        shown = say.queue_message(locale, await self._box.queue(who))
        await private(req.respond, show.queue(shown))

    async def _admin_click(
        self,
        ack: AsyncAck,
        action: dict[str, Any],
        context: AsyncBoltContext,
        respond: AsyncRespond,
        work: Any,
    ) -> None:
        await ack()
        actor, suggestion = actor_of(context), _id(action.get("value"))
        to = self._sessions.reply_to(respond)

        async def run() -> None:
            if actor is None or suggestion is None:
                raise QuizError("stale_click")
            who = await self._approver(context.client, actor)
            await work(who, suggestion, to)

        await guarded(self._services, to, actor, run)

    async def approve(
        self,
        ack: AsyncAck,
        action: dict[str, Any],
        context: AsyncBoltContext,
        respond: AsyncRespond,
    ) -> None:
        async def work(who: Actor, suggestion: int, to: Any) -> None:
            done = await self._box.approve(who, suggestion)
            locale = await self._quiz.ui_locale(who)
            deck = self._quiz.decks.own.of(who.server_id)
            await self._requeue(who, to, say.decided_text(locale, done, deck))

        await self._admin_click(ack, action, context, respond, work)

    async def _requeue(self, who: Actor, to: Any, said: str) -> None:
        """The queue again in place of the one clicked, what was done above it."""
        locale = await self._quiz.ui_locale(who)
        shown = show.queue(say.queue_message(locale, await self._box.queue(who)))
        await private(to, Reply(said, [show.said(said), *shown.blocks][:50]), replace=True)

    async def admin_edit(
        self,
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        context: AsyncBoltContext,
        respond: AsyncRespond,
    ) -> None:
        """An admin's Edit: the author's form, filled in, to change before approving."""
        await self._admin_form(ack, body, action, context, respond, rejecting=False)

    async def reject(
        self,
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        context: AsyncBoltContext,
        respond: AsyncRespond,
    ) -> None:
        """An admin's Reject: a form for the reason the author will read."""
        await self._admin_form(ack, body, action, context, respond, rejecting=True)

    async def _admin_form(
        self,
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        context: AsyncBoltContext,
        respond: AsyncRespond,
        *,
        rejecting: bool,
    ) -> None:
        trigger = str(body.get("trigger_id") or "")

        async def work(who: Actor, suggestion: int, to: Any) -> None:
            found = await self._box.waiting_one(who, suggestion)
            locale = await self._quiz.ui_locale(who)
            form = (
                show.reject_form(locale, found.id, found.draft.question)
                if rejecting
                else show.form(locale, found.draft, edits=found.id)
            )
            await context.client.views_open(trigger_id=trigger, view=form.to_dict())

        await self._admin_click(ack, action, context, respond, work)

    async def reject_sent(
        self, ack: AsyncAck, view: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        """The reason sent: rejected, the author told; the form says it is done."""
        actor, suggestion = actor_of(context), _id(view.get("private_metadata"))
        reason = actions.dig(view, "state", "values", "reason", "reason", "value")
        try:
            if actor is None or suggestion is None:
                raise QuizError("stale_click")
            who = await self._approver(context.client, actor)
            done = await self._box.reject(
                who, suggestion, reason if isinstance(reason, str) else ""
            )
        except Exception as error:
            message = await self._said(actor, error)
            await ack(
                response_action="errors", errors={"reason": message[: actions.FORM_ERROR_LIMIT]}
            )
            return
        locale = await self._quiz.ui_locale(who)
        await ack(
            response_action="update",
            view=show.notice(locale, say.decided_text(locale, done, None)).to_dict(),
        )
