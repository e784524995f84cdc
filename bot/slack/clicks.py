"""Button clicks: a value read back into one core call, whose reply is sent once the click is
acknowledged; then one metrics sample and one log line per click.

Values are parsed by `actions`; one that names no open post and choice is a stale click.
Each handler decides (and commits) before the ack and returns what to say (`Said`); the
listener acks, then sends it at once (see `bot.slack.app`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.records import AnswerStatus
from bot.observability import clicklog
from bot.observability.clicklog import DONE, failed
from bot.observability.clicklog import (
    Handled as Handled,  # re-exported: the listeners type their results
)
from bot.observability.metrics import Metrics
from bot.presentation.locales import text
from bot.service.live_posts import LivePosts
from bot.service.services import Services
from bot.slack import actions, blocks, review_blocks
from bot.slack.blocks import Reply
from bot.slack.posts import Editor
from bot.slack.replies import BUG, ReplyTo, private


@dataclass(frozen=True)
class Click:
    actor: Actor
    value: object
    """The button's `value` as sent: untrusted."""
    client: AsyncWebClient
    deadline: float
    """By when its write must have begun (`time.monotonic()`; see `bot.service.admission`)."""


@dataclass(frozen=True)
class Said:
    """What a click's private reply says, and what the click did."""

    reply: Reply
    handled: Handled | str
    """What the click did, or the failure it met (a refusal's key, or `BUG`)."""
    replace: bool = False
    """Whether the reply replaces the ephemeral message clicked (a run, a confirm)."""

    async def send(self, to: ReplyTo) -> None:
        await private(to, self.reply, replace=self.replace)


def record(
    metrics: Metrics, actor: Actor | None, value: object, result: Handled | str, arrived: float
) -> None:
    """One click, from its request's arrival (`time.monotonic()`) to its reply being sent:
    the metrics and a log line (`clicklog.record`). `result`: what the click did, or the
    failure it met (its post read off the button's value)."""
    if isinstance(result, str):
        result = Handled(failed(None if result == BUG else result), actions.post_id_of(value))
    clicklog.record(metrics, "slack", actor, result, arrived)


class Clicks:
    def __init__(self, services: Services, posts: LivePosts) -> None:
        self._services = services
        self._posts = posts

    async def answer(self, click: Click) -> Said:
        """A choice on a posted question: right or wrong, privately; the first click stands."""
        parsed = actions.parse_post(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        result = await self._services.answering.answer(
            click.actor, parsed.post_id, parsed.shown, deadline=click.deadline
        )
        new = result.status is AnswerStatus.NEW
        handled = Handled(result.status.value, parsed.post_id, result.correct if new else None)
        if result.view.post.game_id is not None:  # a game's: no count, no verdict till the reveal
            return Said(blocks.locked_reply(result), handled)
        if new:
            self._posts.answered(parsed.post_id, Editor(click.client))
        return Said(blocks.answer_reply(result), handled)

    async def switch_locale(self, click: Click) -> Said:
        """The reply to a click again, in the deck's other language (replaces the reply)."""
        parsed = actions.parse_locale(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        result = await self._services.answering.my_answer(
            click.actor, parsed.post_id, parsed.locale
        )
        return Said(blocks.answer_reply(result), Handled("done", parsed.post_id), replace=True)

    async def run_answer(self, click: Click) -> Said:
        """A choice in a private run: feedback, then the next question or the summary."""
        parsed = actions.parse_run(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        feedback = await self._services.runs.run_answer(
            click.actor, parsed.run_id, parsed.question_id, parsed.shown, deadline=click.deadline
        )
        handled = (
            Handled("duplicate")
            if feedback.duplicate
            else Handled("new", correct=feedback.answer.correct)
        )
        return Said(blocks.feedback_reply(feedback), handled, replace=True)

    async def review_answer(self, click: Click) -> Said:
        """A choice in review: feedback and when it comes back, then the next due question
        (replaces the message clicked). Never scores."""
        parsed = actions.parse_review(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        feedback = await self._services.review.review_answer(
            click.actor,
            parsed.key,
            parsed.number,
            parsed.shown,
            parsed.tag,
            deadline=click.deadline,
        )
        handled = (
            Handled("duplicate") if feedback.duplicate else Handled("new", correct=feedback.correct)
        )
        return Said(review_blocks.review_feedback_reply(feedback), handled, replace=True)

    async def reset(self, click: Click) -> Said:
        """The confirm button of `/quiz reset`: a new season, once (the button carries the
        season it was shown for; the actor's admin flag is checked again for this click)."""
        confirms = actions.parse_reset(click.value)
        if confirms is None:
            raise QuizError("stale_click")
        season = await self._services.membership.reset(
            click.actor, confirms, deadline=click.deadline
        )
        message = text(
            await self._services.catalog.ui_locale(click.actor), "reset.done", season=season
        )
        return Said(blocks.text_reply(message), DONE, replace=True)

    async def cancel_reset(self, click: Click) -> Said:
        message = text(await self._services.catalog.ui_locale(click.actor), "reset.cancelled")
        return Said(blocks.text_reply(message), DONE, replace=True)

    async def forget(self, click: Click) -> Said:
        """The confirm of `/quiz privacy`: the clicker's data in this server, deleted."""
        answers = await self._services.membership.forget_me(click.actor)
        message = text(
            await self._services.catalog.ui_locale(click.actor), "privacy.done", answers=answers
        )
        return Said(blocks.text_reply(message), DONE, replace=True)

    async def hide(self, click: Click) -> Said:
        return await self._hidden(click, True)

    async def show(self, click: Click) -> Said:
        return await self._hidden(click, False)

    async def _hidden(self, click: Click, hidden: bool) -> Said:
        """The hide (or show) button of `/quiz privacy`."""
        await self._services.membership.set_hidden(click.actor, hidden)
        locale = await self._services.catalog.ui_locale(click.actor)
        message = text(locale, "privacy.hidden" if hidden else "privacy.shown")
        return Said(blocks.text_reply(message), DONE, replace=True)

    async def keep(self, click: Click) -> Said:
        message = text(await self._services.catalog.ui_locale(click.actor), "privacy.cancelled")
        return Said(blocks.text_reply(message), DONE, replace=True)

    async def unknown(self, click: Click) -> Any:
        """A button this bot does not know (an old version's, or a forged one)."""
        raise QuizError("stale_click")
