"""Question messages in channels: posting, the coalesced "N answered" redraw, the reveal."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass, field

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.domain.clock import Clock
from bot.domain.post import PostView, Reveal
from bot.service.quiz import Quiz
from bot.service.refresh import Refresher
from bot.slack import blocks

log = logging.getLogger("quizbot.slack")
CANNOT_POST = frozenset({"not_in_channel", "channel_not_found", "is_archived", "restricted_action"})
SENDING_FAILED = (SlackApiError, aiohttp.ClientError, TimeoutError)
"""What a Web API call raises when Slack refuses it or cannot be reached (after retries)."""


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


@dataclass
class _Live:
    """A post this process draws: the lock its redraws and its reveal take turns with, and
    the client (with the post's workspace token) of the request that last answered it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    client: AsyncWebClient | None = None


class Posts:
    """Draws posts; many clicks on one post become one chat.update per `interval` seconds.

    A redraw and the reveal of one post never interleave: both hold the post's lock, and a
    redraw that gets the lock after the post closed draws nothing. Otherwise a redraw whose
    chat.update waits out a rate limit could land after the reveal and bring the buttons back.
    At most `keep` posts are remembered; the oldest idle ones are forgotten first.
    """

    def __init__(self, quiz: Quiz, clock: Clock, interval: float = 3.0, keep: int = 1000) -> None:
        self._quiz = quiz
        self._refresher: Refresher[int] = Refresher(self._redraw, clock, interval)
        self._live: OrderedDict[int, _Live] = OrderedDict()
        self._keep = keep

    async def send(self, client: AsyncWebClient, view: PostView) -> str:
        """Sends the question message; its `channel:ts` ref. Raises CannotPost when Slack
        refuses the channel, and whatever else the call raised otherwise."""
        reply = blocks.question_post(view)
        try:
            response = await client.chat_postMessage(
                channel=view.post.channel_id, **reply.payload()
            )
        except SlackApiError as error:
            code = error_code(error)
            if code in CANNOT_POST:
                raise CannotPost(code) from error
            raise
        return message_ref(str(response["channel"]), str(response["ts"]))

    async def publish(self, client: AsyncWebClient, view: PostView) -> None:
        """Posts the question message and stores its ref; a post that could not be sent is
        closed at once (it must not stay the channel's open post)."""
        try:
            ref = await self.send(client, view)
        except Exception:
            await self._quiz.close_by_system(view.post.id)
            raise
        await self._quiz.set_message(view.post.id, ref)

    def answered(self, client: AsyncWebClient, post_id: int) -> None:
        """A new answer: the count is redrawn soon, together with any others that follow."""
        self._entry(post_id).client = client
        self._refresher.touch(post_id)

    def _entry(self, post_id: int) -> _Live:
        entry = self._live.get(post_id)
        if entry is None:
            entry = self._live[post_id] = _Live()
            idle = [k for k, e in self._live.items() if not e.lock.locked()]
            for old in idle[: max(0, len(self._live) - self._keep)]:
                del self._live[old]
        self._live.move_to_end(post_id)
        return entry

    async def _redraw(self, post_id: int) -> None:
        entry = self._live.get(post_id)
        if entry is None or entry.client is None:
            return
        async with entry.lock:
            view = await self._quiz.view(post_id)  # read inside the lock: closed since?
            if not view.post.is_open or not view.post.message_ref:
                return
            channel, ts = split_ref(view.post.message_ref)
            payload = blocks.question_post(view).payload()
            try:
                await entry.client.chat_update(channel=channel, ts=ts, **payload)
            except SENDING_FAILED as error:  # deleted, or the bot left: the reveal will tell
                log.warning("redraw of post %s failed: %s", post_id, error_code(error))

    async def reveal(self, client: AsyncWebClient, reveal: Reveal) -> str | None:
        """Replaces the question message with its reveal (buttons gone). None when done;
        else why not (`message_not_found`, `not_in_channel`...), so the caller can show the
        reveal some other way."""
        post = reveal.view.post
        self._refresher.cancel(post.id)
        payload = blocks.reveal_post(reveal).payload()
        entry = self._entry(post.id)
        async with entry.lock:
            try:
                if not post.message_ref:
                    return "no_message"
                channel, ts = split_ref(post.message_ref)
                await client.chat_update(channel=channel, ts=ts, **payload)
                return None
            except SENDING_FAILED as error:
                log.warning("chat.update of post %s failed: %s", post.id, error_code(error))
                return error_code(error)
            finally:
                self._live.pop(post.id, None)

    async def flush(self) -> None:
        """Waits for the redraws still pending (shutdown, tests)."""
        await self._refresher.flush()
