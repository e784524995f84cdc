"""Replies through response_url, and the one place errors become polite text.

A QuizError is a refusal the user should read in their language; anything else is a bug:
it is logged, and the user gets `error.generic`, never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.presentation.locales import FALLBACK, text
from bot.presentation.messages import error_text
from bot.service.ports import StoreUnavailable
from bot.service.services import Services
from bot.slack import client as web_api
from bot.slack.blocks import Reply, text_reply
from bot.slack.posts import CannotPost

log = logging.getLogger("quizbot.slack")


class Sessions:
    """One keep-alive HTTP session for every reply this bot posts to a response_url: bolt's
    `respond` opens (and closes) a session and a connection per reply, which in a burst of
    clicks costs more than the reply itself."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None

    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=web_api.TIMEOUT)  # per request and try
            )
        return self._session

    def reply_to(self, respond: AsyncRespond | None) -> ReplyTo:
        """Where a request's replies go: its response_url, over this session."""
        url = respond.response_url if respond is not None else None
        return ReplyTo(url, self.session(), respond.proxy if respond else None)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


@dataclass(frozen=True)
class ReplyTo:
    """A request's response_url (as the payload carried it: untrusted) and the session its
    replies are posted over."""

    url: object
    session: aiohttp.ClientSession | None = None
    proxy: str | None = None


async def _send(to: ReplyTo | None, body: dict[str, Any]) -> bool:
    """Posts `body` to the request's response_url, retrying rate limits and dropped
    connections (bolt's own `respond` retries neither); False if Slack did not take it.

    A payload's response_url is whatever JSON it carried: anything but a URL is no reply."""
    url = to.url if to is not None else None
    if to is None or not isinstance(url, str) or not url.startswith(("https:", "http:")):
        log.warning("no response_url to reply to")
        return False
    client = AsyncWebhookClient(
        url=url,
        timeout=web_api.TIMEOUT,
        proxy=to.proxy,
        session=to.session,
        retry_handlers=web_api.retry_handlers(),
    )
    response = await client.send_dict(body)
    if response.status_code != 200:
        log.warning("response_url refused a reply: %s %s", response.status_code, response.body)
        return False
    return True


async def private(to: ReplyTo | None, reply: Reply, *, replace: bool = False) -> bool:
    """An ephemeral reply only the caller sees; `replace` swaps the ephemeral message clicked."""
    body = {**reply.payload(), "response_type": "ephemeral", "replace_original": replace}
    return await _send(to, body)


async def in_channel(to: ReplyTo | None, reply: Reply) -> bool:
    """A message everyone in the request's channel sees (a slash command's response_url can
    post there even when the bot is not a member)."""
    body = {**reply.payload(), "response_type": "in_channel", "replace_original": False}
    return await _send(to, body)


async def locale_of(services: Services, actor: Actor | None) -> str:
    if actor is None:
        return FALLBACK
    try:
        return await services.catalog.ui_locale(actor)
    except StoreUnavailable:  # the caller is about to say "try again": no traceback per click
        return FALLBACK
    except Exception:
        log.exception("could not read the language of %s", actor.user_id)
        return FALLBACK


def refusal_text(error: QuizError, locale: str) -> str:
    """A QuizError as Slack shows it: the shared text, plus who counts as an admin here."""
    message = error_text(error, locale)
    if error.key == "admin_only":
        message = f"{message} {text(locale, 'slack.admin_hint')}"
    return message


BUG = "bug"
"""What `guarded` returns for an unexpected exception."""


async def failure(services: Services, actor: Actor | None, error: Exception) -> tuple[str, str]:
    """What went wrong, as (the refusal's key, or `cannot_post`, or `BUG`; the words the
    user reads). A bug is logged here, with its traceback."""
    if isinstance(error, QuizError):
        return error.key, refusal_text(error, await locale_of(services, actor))
    if isinstance(error, CannotPost):
        return "cannot_post", text(await locale_of(services, actor), error.hint)
    log.error("a Slack request failed", exc_info=error)
    return BUG, text(await locale_of(services, actor), "error.generic")


async def guarded(
    services: Services,
    to: ReplyTo | None,
    actor: Actor | None,
    work: Callable[[], Awaitable[None]],
) -> str | None:
    """Runs one request's work; a refusal or a failure becomes a private reply.

    What went wrong: None when the work was done, else the refusal's key (`stale_click`,
    `try_again`, ...; `cannot_post`), or `BUG`."""
    try:
        await work()
        return None
    except Exception as error:
        key, message = await failure(services, actor, error)
    try:
        await private(to, text_reply(message))
    except Exception:
        log.exception("the error reply could not be sent either")
    return key
