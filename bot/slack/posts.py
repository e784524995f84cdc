"""Question messages in Slack channels: sent, redrawn and revealed with chat.* calls."""

from __future__ import annotations

import logging

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.domain.post import PostView, Reveal
from bot.service.refresh import TryLater
from bot.slack import blocks

log = logging.getLogger("quizbot.slack")
CANNOT_POST = frozenset({"not_in_channel", "channel_not_found", "is_archived", "restricted_action"})
SENDING_FAILED = (SlackApiError, aiohttp.ClientError, TimeoutError)
"""What a Web API call raises when Slack refuses it or cannot be reached (after retries)."""
PASSING = frozenset(
    {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}
)
"""Refusals that say "not now" rather than "never": a redraw that meets one is tried again."""
UNCONFIRMED = "post_unconfirmed"
"""The code of a post Slack may or may not have made (a 5xx, a timeout, a dropped connection):
it is not sent again (`bot.slack.client.NOT_IDEMPOTENT`), and the poster is told."""


class CannotPost(Exception):
    """chat.postMessage refused the channel (the bot is not in it, or it is archived).

    `hint` is the catalog key of what the user is told (in a DM, /invite is no help)."""

    def __init__(self, code: str, hint: str = "slack.not_in_channel") -> None:
        super().__init__(code)
        self.code = code
        self.hint = hint


def message_ref(channel: str, ts: str) -> str:
    return f"{channel}:{ts}"


def split_ref(ref: str) -> tuple[str, str]:
    channel, _, ts = ref.partition(":")
    return channel, ts


def error_code(error: BaseException) -> str:
    """Slack's error code (`not_in_channel`), or the exception's name when there is none."""
    if isinstance(error, SlackApiError):
        return str(error.response.get("error") or error.response.status_code)
    return type(error).__name__


def retry_after(error: SlackApiError) -> float | None:
    """The seconds Slack asked to wait (`Retry-After`), if it said."""
    headers = error.response.headers or {}
    for name, value in headers.items():
        if str(name).lower() == "retry-after":
            said = value[0] if isinstance(value, list | tuple) and value else value
            try:
                return float(said)
            except (TypeError, ValueError):
                return None
    return None


async def send(client: AsyncWebClient, view: PostView) -> str:
    """Sends the question message; its `channel:ts` ref. Raises CannotPost when Slack refuses
    the channel, and whatever else the call raised otherwise."""
    reply = blocks.question_post(view)
    try:
        response = await client.chat_postMessage(channel=view.post.channel_id, **reply.payload())
    except SlackApiError as error:
        code = error_code(error)
        if code in CANNOT_POST:
            raise CannotPost(code) from error
        if error.response.status_code >= 500:
            raise CannotPost(UNCONFIRMED, hint="slack.post_unconfirmed") from error
        raise
    except aiohttp.ClientConnectorError:
        raise  # never reached Slack: nothing was posted
    except (aiohttp.ClientError, TimeoutError) as error:
        raise CannotPost(UNCONFIRMED, hint="slack.post_unconfirmed") from error
    return message_ref(str(response["channel"]), str(response["ts"]))


class Editor:
    """`MessageEditor` for Slack: edits with the client (the workspace's token) it was given."""

    def __init__(self, client: AsyncWebClient) -> None:
        self.client = client

    async def redraw(self, view: PostView) -> None:
        """The "N answered" count drawn again. A rate limit the client's retries did not
        outlast, a 5xx or no answer raises `TryLater` (honouring Retry-After), so the count
        is drawn once Slack takes it; a message deleted or a channel left is only logged (the
        reveal will tell)."""
        channel, ts = split_ref(view.post.message_ref or "")
        payload = blocks.question_post(view).payload()
        try:
            await self.client.chat_update(channel=channel, ts=ts, **payload)
        except SlackApiError as error:
            code = error_code(error)
            if code in PASSING or error.response.status_code >= 500:
                raise TryLater(code, retry_after(error)) from error
            log.warning("redraw of post %s failed: %s", view.post.id, code)
        except (aiohttp.ClientError, TimeoutError) as error:
            raise TryLater(error_code(error)) from error

    async def reveal(self, reveal: Reveal) -> str | None:
        post = reveal.view.post
        channel, ts = split_ref(post.message_ref or "")
        try:
            await self.client.chat_update(
                channel=channel, ts=ts, **blocks.reveal_post(reveal).payload()
            )
        except SENDING_FAILED as error:
            log.warning("chat.update of post %s failed: %s", post.id, error_code(error))
            return error_code(error)
        return None
