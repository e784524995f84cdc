"""Review started from a button, and "Report a problem", through the click intake
(`bot.service.intake`) like every click: the button opens a form (a modal, which needs the
click's trigger_id within 3 s), and the form's submission is stored before it is
acknowledged (an ack is a promise); its acknowledgement is its reply (the thanks, or the
refusal shown on the form).

A review started from App Home is sent as a DM: a click on the Home tab has no response_url.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.service.clicks import OpenReport, Outcome, Refused, Report, Reported, ReportForm, Stale
from bot.service.intake import Click, Intake
from bot.service.services import Services
from bot.slack import actions, clicks, review_blocks
from bot.slack.identity import actor_of
from bot.slack.replies import Sessions, failure, private

log = logging.getLogger("quizbot.slack")


class ReportListeners:
    def __init__(self, services: Services, sessions: Sessions, intake: Intake) -> None:
        self._services = services
        self._sessions = sessions
        self._intake = intake

    async def review_start(
        self,
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        context: AsyncBoltContext,
        respond: AsyncRespond,
    ) -> None:
        """App Home's "Review now", `/quiz stats`' weakest-topic button."""
        actor, to = actor_of(context), self._sessions.reply_to(respond)
        from_home = actions.dig(body, "container", "type") == "view"

        async def reply(outcome: Outcome) -> None:
            said, _ = await clicks.rendered(self._services, outcome)
            if from_home and actor is not None and not isinstance(outcome, Refused):
                await context.client.chat_postMessage(channel=actor.user_id, **said.payload())
            else:
                await private(to, said)

        intent = clicks.review_start(action.get("value"))
        await self._intake.handle(Click(actor, intent, clicks.arrival(context)), reply, ack)

    async def report_button(
        self,
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        context: AsyncBoltContext,
        respond: AsyncRespond,
    ) -> None:
        """Opens the "Report a problem" form about the question the button names."""
        key = actions.parse_key(action.get("value"))
        to = self._sessions.reply_to(respond)

        async def reply(outcome: Outcome) -> None:
            if isinstance(outcome, ReportForm):
                form = review_blocks.report_form(outcome.locale, outcome.key, outcome.question)
                trigger = str(body.get("trigger_id") or "")
                await context.client.views_open(trigger_id=trigger, view=form.to_dict())
            else:
                await clicks.send(self._services, to, outcome)

        intent = Stale() if key is None else OpenReport(key)
        click = Click(actor_of(context), intent, clicks.arrival(context))
        await self._intake.handle(click, reply, ack)

    async def report_form(
        self, ack: AsyncAck, view: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        """The form sent: stored, then the form says thanks; a refusal (a forged reason, a
        question no longer loaded, the database busy) is shown on the form, nothing stored.
        The form's acknowledgement is its reply."""
        key = actions.parse_key(view.get("private_metadata"))
        values = actions.dig(view, "state", "values")
        reason = actions.dig(values, "reason", "reason", "selected_option", "value")
        details = actions.dig(values, "details", "details", "value")
        text = details if isinstance(details, str) else ""
        intent = Stale() if key is None else Report(key, reason, text)

        async def reply(outcome: Outcome) -> None:
            if isinstance(outcome, Reported):
                thanks = review_blocks.report_thanks(outcome.locale).to_dict()
                await ack(response_action="update", view=thanks)
                return
            error = outcome.error if isinstance(outcome, Refused) else None
            _, message = await failure(self._services, click.actor, error or RuntimeError(outcome))
            await ack(
                response_action="errors", errors={"reason": message[: actions.FORM_ERROR_LIMIT]}
            )

        click = Click(actor_of(context), intent, clicks.arrival(context))
        await self._intake.handle(click, reply)
