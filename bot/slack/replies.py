"""Private replies through response_url, and the one place errors become polite text.

A QuizError is a refusal the user should read in their language; anything else is a bug:
it is logged, and the user gets `error.generic`, never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.core.actor import Actor
from bot.core.errors import QuizError
from bot.core.quiz import Quiz
from bot.locales import FALLBACK, text
from bot.messages import error_text
from bot.slack.blocks import Reply, text_reply
from bot.slack.posts import CannotPost

log = logging.getLogger("quizbot.slack")


async def private(respond: AsyncRespond | None, reply: Reply, *, replace: bool = False) -> None:
    """An ephemeral reply only the caller sees; `replace` swaps the ephemeral message clicked."""
    if respond is None or respond.response_url is None:
        log.warning("no response_url to reply to")
        return
    await respond(**reply.payload(), response_type="ephemeral", replace_original=replace)


async def locale_of(quiz: Quiz, actor: Actor | None) -> str:
    if actor is None:
        return FALLBACK
    try:
        return await quiz.ui_locale(actor)
    except Exception:
        log.exception("could not read the language of %s", actor.user_id)
        return FALLBACK


async def guarded(
    quiz: Quiz,
    respond: AsyncRespond | None,
    actor: Actor | None,
    work: Callable[[], Awaitable[None]],
) -> None:
    """Runs one request's work; a refusal or a failure becomes a private reply."""
    try:
        await work()
        return
    except QuizError as error:
        message = error_text(error, await locale_of(quiz, actor))
    except CannotPost:
        message = text(await locale_of(quiz, actor), "slack.not_in_channel")
    except Exception:
        log.exception("a Slack request failed")
        message = text(await locale_of(quiz, actor), "error.generic")
    try:
        await private(respond, text_reply(message))
    except Exception:
        log.exception("the error reply could not be sent either")
