"""Button clicks: a value read back into one core call, and a private reply.

Values are parsed by `actions`; one that names no open post and choice is a stale click.
"""

from __future__ import annotations

from dataclasses import dataclass

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.actor import Actor
from bot.core.errors import QuizError
from bot.core.quiz import Quiz
from bot.core.store import AnswerStatus
from bot.locales import text
from bot.slack import actions, blocks
from bot.slack.posts import Posts
from bot.slack.replies import private


@dataclass(frozen=True)
class Click:
    actor: Actor
    value: object
    """The button's `value` as sent: untrusted."""
    client: AsyncWebClient
    respond: AsyncRespond | None


class Clicks:
    def __init__(self, quiz: Quiz, posts: Posts) -> None:
        self._quiz = quiz
        self._posts = posts

    async def answer(self, click: Click) -> None:
        """A choice on a posted question: right or wrong, privately; the first click stands."""
        parsed = actions.parse_post(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        result = await self._quiz.answer(click.actor, parsed.post_id, parsed.shown)
        if result.status is AnswerStatus.NEW:
            self._posts.answered(click.client, parsed.post_id)
        await private(click.respond, blocks.answer_reply(result))

    async def switch_locale(self, click: Click) -> None:
        """The reply to a click again, in the deck's other language (replaces the reply)."""
        parsed = actions.parse_locale(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        result = await self._quiz.my_answer(click.actor, parsed.post_id, parsed.locale)
        await private(click.respond, blocks.answer_reply(result), replace=True)

    async def run_answer(self, click: Click) -> None:
        """A choice in a private run: feedback, then the next question or the summary."""
        parsed = actions.parse_run(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        feedback = await self._quiz.run_answer(
            click.actor, parsed.run_id, parsed.question_id, parsed.shown
        )
        await private(click.respond, blocks.feedback_reply(feedback), replace=True)

    async def reset(self, click: Click) -> None:
        """The confirm button of `/quiz reset`: a new season, once (the button carries the
        season it was shown for; the actor's admin flag is checked again for this click)."""
        confirms = actions.parse_reset(click.value)
        if confirms is None:
            raise QuizError("stale_click")
        season = await self._quiz.reset(click.actor, confirms)
        message = text(await self._quiz.ui_locale(click.actor), "reset.done", season=season)
        await private(click.respond, blocks.text_reply(message), replace=True)

    async def cancel_reset(self, click: Click) -> None:
        message = text(await self._quiz.ui_locale(click.actor), "reset.cancelled")
        await private(click.respond, blocks.text_reply(message), replace=True)

    async def unknown(self, click: Click) -> None:
        """A button this bot does not know (an old version's, or a forged one)."""
        raise QuizError("stale_click")
