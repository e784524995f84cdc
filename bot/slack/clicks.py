"""Slack's side of a click (the rest is `bot.service.intake`): a button's value read back into
an `Intent`, and an `Outcome` rendered as Block Kit and sent to the click's response_url.

Values are parsed by `actions`, never trusted: one that names no open post and choice (or
that does not parse) is a stale click.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.domain.actor import Actor
from bot.presentation.locales import text
from bot.service.clicks import (
    Answer,
    Answered,
    CancelReset,
    Forget,
    Hide,
    Intent,
    Keep,
    Locked,
    Outcome,
    Refused,
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
from bot.service.intake import Click, Intake
from bot.service.services import Services
from bot.slack import actions, blocks, review_blocks
from bot.slack.blocks import Reply
from bot.slack.identity import Admins, actor_of
from bot.slack.posts import Editor
from bot.slack.replies import ReplyTo, Sessions, failure, private

Parse = Callable[[object], Intent]
"""A button's value (as sent: untrusted) read into what the click asks for."""


def arrival(context: AsyncBoltContext) -> float:
    """When the request arrived (`time.monotonic()`): HTTP mode notes it in the context as it
    comes in; otherwise (Socket Mode) it is now."""
    arrived = context.get("arrived")
    return arrived if isinstance(arrived, float) else time.monotonic()


def answer(value: object) -> Intent:
    parsed = actions.parse_post(value)
    return Stale() if parsed is None else Answer(parsed.post_id, parsed.shown)


def switch_locale(value: object) -> Intent:
    parsed = actions.parse_locale(value)
    return Stale() if parsed is None else SwitchLanguage(parsed.post_id, parsed.locale)


def run_answer(value: object) -> Intent:
    parsed = actions.parse_run(value)
    if parsed is None:
        return Stale()
    return RunAnswer(parsed.run_id, parsed.question_id, parsed.shown)


def review_answer(value: object) -> Intent:
    parsed = actions.parse_review(value)
    if parsed is None:
        return Stale()
    return ReviewAnswer(parsed.key, parsed.number, parsed.shown, parsed.tag)


def review_start(value: object) -> Intent:
    """App Home's "Review now", `/quiz stats`' weakest-topic button (`""`: every topic)."""
    topic = actions.parse_topic(value)
    return Stale() if topic is None else StartReview(topic or None)


def reset(value: object) -> Intent:
    """The confirm of `/quiz reset`: the button carries the season it was shown for."""
    season = actions.parse_reset(value)
    return Stale() if season is None else Reset(season)


def always(intent: Intent) -> Parse:
    """A button whose value says nothing more: a confirm's cancel, privacy's choices."""
    return lambda value: intent


cancel_reset, forget, keep = always(CancelReset()), always(Forget()), always(Keep())
hide, show = always(Hide(True)), always(Hide(False))
unknown = always(Stale())
"""A button this bot does not know (an old version's, or a forged one)."""


async def rendered(services: Services, outcome: Outcome) -> tuple[Reply, bool]:
    """The private reply saying `outcome`, and whether it replaces the ephemeral message
    clicked (a run, a review, a confirm, the other language)."""
    if isinstance(outcome, Answered):
        return blocks.answer_reply(outcome.result), False
    if isinstance(outcome, Locked):
        return blocks.locked_reply(outcome.result), False
    if isinstance(outcome, Switched):
        return blocks.answer_reply(outcome.result), True
    if isinstance(outcome, RunFed):
        return blocks.feedback_reply(outcome.feedback), True
    if isinstance(outcome, Reviewed):
        return review_blocks.review_feedback_reply(outcome.feedback), True
    if isinstance(outcome, ReviewStarted):
        return review_blocks.review_reply(outcome.step), False
    if isinstance(outcome, Said):
        return blocks.text_reply(text(outcome.locale, outcome.key, **outcome.params)), True
    if isinstance(outcome, Refused):
        _, message = await failure(services, outcome.actor, outcome.error)
        return blocks.text_reply(message), False
    raise AssertionError(f"no private reply says {outcome!r}")


async def send(services: Services, to: ReplyTo, outcome: Outcome) -> None:
    """`outcome` as the click's private reply."""
    reply, replace = await rendered(services, outcome)
    await private(to, reply, replace=replace)


Listener = Callable[..., Awaitable[None]]


class Buttons:
    """bolt's listeners for the buttons whose value a `Parse` reads: each click is read,
    then handed to the intake with its ack and its reply."""

    def __init__(
        self, services: Services, intake: Intake, sessions: Sessions, admins: Admins
    ) -> None:
        self._services = services
        self._intake = intake
        self._sessions = sessions
        self._admins = admins

    def listener(self, parse: Parse, *, admin: bool = False) -> Listener:
        """`admin`: the clicker's admin rights are checked again for the click."""

        async def listener(
            ack: AsyncAck, action: dict[str, Any], context: AsyncBoltContext, respond: AsyncRespond
        ) -> None:
            await self._take(parse, action.get("value"), admin, ack, context, respond)

        return listener

    async def _take(
        self,
        parse: Parse,
        value: object,
        admin: bool,
        ack: AsyncAck,
        context: AsyncBoltContext,
        respond: AsyncRespond,
    ) -> None:
        client, to = context.client, self._sessions.reply_to(respond)

        async def reply(outcome: Outcome) -> None:
            await send(self._services, to, outcome)

        async def vouch(actor: Actor) -> Actor:
            return await self._admins.check(client, actor)

        click = Click(
            actor_of(context),
            parse(value),
            arrival(context),
            actions.post_id_of(value),
            Editor(client),
            vouch if admin else None,
        )
        await self._intake.handle(click, reply, ack)
