"""`/quiz schedule set|show|off|now`: the daily question, one `Schedules` call each.

Replies are `bot.presentation.schedule_messages`' texts with channels as links. The question
`now` posts goes out through the Slack delivery, like the daily one.
"""

from __future__ import annotations

import logging

from bot.domain.errors import QuizError
from bot.domain.schedule import parse_set_args
from bot.presentation.schedule_messages import (
    schedule_list_message,
    schedule_now_text,
    schedule_off_message,
    schedule_set_message,
)
from bot.service.schedules import Schedules
from bot.slack import blocks
from bot.slack.commands import Command, Request
from bot.slack.delivery import SlackDelivery, now_failed_text
from bot.slack.mrkdwn import channel_placeholder as channel
from bot.slack.replies import private

log = logging.getLogger("quizbot.slack")


class ScheduleCommands:
    def __init__(self, schedules: Schedules, delivery: SlackDelivery) -> None:
        self._schedules = schedules
        self._delivery = delivery

    async def run(self, req: Request, cmd: Command) -> None:
        """`cmd` is `schedule ...`; its first word picks the subcommand."""
        if not req.actor.is_admin:  # before the words are read: a non-admin learns no usage
            raise QuizError("admin_only")
        sub = (cmd.arg(0) or "").lower()
        words = cmd.args[1:]
        if sub == "set":
            await self._set(req, words)
        elif sub == "show" and not words:
            result = await self._schedules.show(req.actor)
            await private(
                req.respond, blocks.schedule_reply(schedule_list_message(result, channel))
            )
        elif sub == "off" and not words:
            off = await self._schedules.off(req.actor, req.channel_id)
            await private(req.respond, blocks.notice_reply(schedule_off_message(off, channel)))
        elif sub == "now" and not words:
            await self._now(req)
        else:
            raise QuizError("schedule_usage")

    async def _set(self, req: Request, words: tuple[str, ...]) -> None:
        args = parse_set_args(words)
        deck = args.deck_id.lower() if args.deck_id else None
        result = await self._schedules.set(
            req.actor, req.channel_id, args.time, args.zone, deck, args.days
        )
        await private(req.respond, blocks.schedule_reply(schedule_set_message(result, channel)))

    async def _now(self, req: Request) -> None:
        """The schedule's next question at once (the earlier one revealed first)."""
        result = await self._schedules.now(req.actor, req.channel_id, self._delivery)
        if result.failure is not None:
            said = now_failed_text(result.locale, result.view.post.channel_id, result.failure)
            await private(req.respond, blocks.notice_reply(said))
            return
        await private(req.respond, blocks.text_reply(schedule_now_text(result)))
