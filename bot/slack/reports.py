"""Review started from a button, and "Report a problem": the button opens a form (a modal,
which needs the click's trigger_id within 3 s, so the click is acknowledged first: it stores
nothing), and the form's submission is stored before it is acknowledged (an ack is a promise).

A review started from App Home is sent as a DM: a click on the Home tab has no response_url.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.domain.errors import QuizError
from bot.service.services import Services
from bot.slack import actions, review_blocks
from bot.slack.identity import actor_of
from bot.slack.replies import Sessions, failure, guarded, private

log = logging.getLogger("quizbot.slack")
ERROR_LIMIT = 150
"""Characters of an error Slack shows under a form's field."""


def _dig(node: object, *keys: str) -> object:
    """`node[k1][k2]...`, or None where a payload lacks a level (forms are never trusted)."""
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


class ReportListeners:
    def __init__(self, services: Services, sessions: Sessions) -> None:
        self._services = services
        self._sessions = sessions

    async def review_start(
        self,
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        context: AsyncBoltContext,
        respond: AsyncRespond,
    ) -> None:
        """App Home's "Review now", `/quiz stats`' weakest-topic button."""
        await ack()
        actor, topic = actor_of(context), actions.parse_topic(action.get("value"))
        to = self._sessions.reply_to(respond)

        async def work() -> None:
            if actor is None or topic is None:
                raise QuizError("stale_click")
            reply = review_blocks.review_reply(
                await self._services.review.start_review(actor, topic or None)
            )
            if _dig(body, "container", "type") == "view":
                await context.client.chat_postMessage(channel=actor.user_id, **reply.payload())
            else:
                await private(to, reply)

        await guarded(self._services, to, actor, work)

    async def report_button(
        self,
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        context: AsyncBoltContext,
        respond: AsyncRespond,
    ) -> None:
        """Opens the "Report a problem" form about the question the button names."""
        await ack()
        actor, key = actor_of(context), actions.parse_key(action.get("value"))

        async def work() -> None:
            if actor is None or key is None:
                raise QuizError("stale_click")
            deck, question = await self._services.authoring.may_report(actor, key)
            locale = await self._services.catalog.reply_locale(actor, deck)
            form = review_blocks.report_form(locale, key, question)
            await context.client.views_open(
                trigger_id=str(body.get("trigger_id") or ""), view=form.to_dict()
            )

        await guarded(self._services, self._sessions.reply_to(respond), actor, work)

    async def report_form(
        self, ack: AsyncAck, view: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        """The form sent: stored, then the form says thanks; a refusal (a forged reason, a
        question no longer loaded, the database busy) is shown on the form, nothing stored."""
        actor = actor_of(context)
        key = actions.parse_key(view.get("private_metadata"))
        values = _dig(view, "state", "values")
        reason = _dig(values, "reason", "reason", "selected_option", "value")
        details = _dig(values, "details", "details", "value")
        try:
            if actor is None or key is None:
                raise QuizError("stale_click")
            await self._services.authoring.report_problem(
                actor, key, reason, details if isinstance(details, str) else ""
            )
        except Exception as error:
            _, message = await failure(self._services, actor, error)
            await ack(response_action="errors", errors={"reason": message[:ERROR_LIMIT]})
            return
        locale = await self._services.catalog.ui_locale(actor)
        await ack(response_action="update", view=review_blocks.report_thanks(locale).to_dict())
