"""Button clicks: a value read back into one core call, and a private reply; then one metrics
sample and one log line per click.

Values are parsed by `actions`; one that names no open post and choice is a stale click.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.actor import Actor
from bot.core.errors import QuizError
from bot.core.quiz import Quiz
from bot.core.store import AnswerStatus
from bot.locales import text
from bot.metrics import Metrics
from bot.slack import actions, blocks
from bot.slack.posts import Posts
from bot.slack.replies import BUG, private

log = logging.getLogger("quizbot.slack")


@dataclass(frozen=True)
class Click:
    actor: Actor
    value: object
    """The button's `value` as sent: untrusted."""
    client: AsyncWebClient
    respond: AsyncRespond | None


@dataclass(frozen=True)
class Handled:
    """What a click that went through did: `new`, `duplicate` or `closed` for an answer (and
    whether a new one was right), `done` for the other buttons."""

    outcome: str
    post_id: int | None = None
    correct: bool | None = None


DONE = Handled("done")
FAILED = {"stale_click": "stale", "try_again": "busy", BUG: "error"}
"""`guarded`'s failures as click outcomes; any other refusal is `refused`."""


def record(
    metrics: Metrics, actor: Actor | None, value: object, result: Handled | str, arrived: float
) -> None:
    """One click, from its request's arrival (`time.monotonic()`) to its reply being sent:
    the metrics (count by outcome, latency, a new answer's correctness) and a log line.
    `result`: what the click did, or the failure `guarded` reported."""
    seconds = time.monotonic() - arrived
    if isinstance(result, str):
        result = Handled(FAILED.get(result, "refused"), actions.post_id_of(value))
    metrics.click("slack", result.outcome, seconds, result.correct)
    if result.outcome == "error":
        metrics.error("slack", "click")
    log.info(
        "click: %s",
        result.outcome,
        extra={
            "event": "click",
            "server": actor.server_id if actor else None,
            "post": result.post_id,
            "user": actor.user_id if actor else None,
            "outcome": result.outcome,
            "latency_ms": round(seconds * 1000, 1),
        },
    )


class Clicks:
    def __init__(self, quiz: Quiz, posts: Posts) -> None:
        self._quiz = quiz
        self._posts = posts

    async def answer(self, click: Click) -> Handled:
        """A choice on a posted question: right or wrong, privately; the first click stands."""
        parsed = actions.parse_post(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        result = await self._quiz.answer(click.actor, parsed.post_id, parsed.shown)
        new = result.status is AnswerStatus.NEW
        if new:
            self._posts.answered(click.client, parsed.post_id)
        await private(click.respond, blocks.answer_reply(result))
        return Handled(result.status.value, parsed.post_id, result.correct if new else None)

    async def switch_locale(self, click: Click) -> Handled:
        """The reply to a click again, in the deck's other language (replaces the reply)."""
        parsed = actions.parse_locale(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        result = await self._quiz.my_answer(click.actor, parsed.post_id, parsed.locale)
        await private(click.respond, blocks.answer_reply(result), replace=True)
        return Handled("done", parsed.post_id)

    async def run_answer(self, click: Click) -> Handled:
        """A choice in a private run: feedback, then the next question or the summary."""
        parsed = actions.parse_run(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        feedback = await self._quiz.run_answer(
            click.actor, parsed.run_id, parsed.question_id, parsed.shown
        )
        await private(click.respond, blocks.feedback_reply(feedback), replace=True)
        if feedback.duplicate:
            return Handled("duplicate")
        return Handled("new", correct=feedback.answer.correct)

    async def reset(self, click: Click) -> Handled:
        """The confirm button of `/quiz reset`: a new season, once (the button carries the
        season it was shown for; the actor's admin flag is checked again for this click)."""
        confirms = actions.parse_reset(click.value)
        if confirms is None:
            raise QuizError("stale_click")
        season = await self._quiz.reset(click.actor, confirms)
        message = text(await self._quiz.ui_locale(click.actor), "reset.done", season=season)
        await private(click.respond, blocks.text_reply(message), replace=True)
        return DONE

    async def cancel_reset(self, click: Click) -> Handled:
        message = text(await self._quiz.ui_locale(click.actor), "reset.cancelled")
        await private(click.respond, blocks.text_reply(message), replace=True)
        return DONE

    async def unknown(self, click: Click) -> Handled:
        """A button this bot does not know (an old version's, or a forged one)."""
        raise QuizError("stale_click")
