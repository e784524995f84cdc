"""Question messages in channels: posting, the coalesced "N answered" redraw, the reveal."""

from __future__ import annotations

import logging
from collections import OrderedDict

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.clock import Clock
from bot.core.post import PostView, Reveal
from bot.core.quiz import Quiz
from bot.refresh import Refresher
from bot.slack import blocks

log = logging.getLogger("quizbot.slack")
CANNOT_POST = frozenset({"not_in_channel", "channel_not_found", "is_archived", "restricted_action"})


class CannotPost(Exception):
    """chat.postMessage refused the channel (the bot is not in it, or it is archived)."""


def message_ref(channel: str, ts: str) -> str:
    return f"{channel}:{ts}"


def split_ref(ref: str) -> tuple[str, str]:
    channel, _, ts = ref.partition(":")
    return channel, ts


class Posts:
    """Draws posts; many clicks on one post become one chat.update per `interval` seconds.

    The redraw needs a client with the post's workspace token, so the last clicking request's
    client is kept per post (at most `keep` posts; the oldest are forgotten first).
    """

    def __init__(self, quiz: Quiz, clock: Clock, interval: float = 3.0, keep: int = 1000) -> None:
        self._quiz = quiz
        self._refresher: Refresher[int] = Refresher(self._redraw, clock, interval)
        self._clients: OrderedDict[int, AsyncWebClient] = OrderedDict()
        self._keep = keep

    async def publish(self, client: AsyncWebClient, view: PostView) -> None:
        """Posts the question message and stores its `channel:ts`."""
        reply = blocks.question_post(view)
        try:
            response = await client.chat_postMessage(
                channel=view.post.channel_id, **reply.payload()
            )
        except Exception as error:
            await self._quiz.close_by_system(view.post.id)  # never this channel's open post
            code = error.response.get("error") if isinstance(error, SlackApiError) else None
            if code in CANNOT_POST:
                raise CannotPost(code) from error
            raise
        ref = message_ref(str(response["channel"]), str(response["ts"]))
        await self._quiz.set_message(view.post.id, ref)

    def answered(self, client: AsyncWebClient, post_id: int) -> None:
        """A new answer: the count is redrawn soon, together with any others that follow."""
        self._clients[post_id] = client
        self._clients.move_to_end(post_id)
        while len(self._clients) > self._keep:
            self._clients.popitem(last=False)
        self._refresher.touch(post_id)

    async def _redraw(self, post_id: int) -> None:
        client = self._clients.get(post_id)
        view = await self._quiz.view(post_id)
        if client is None or not view.post.is_open or not view.post.message_ref:
            return
        channel, ts = split_ref(view.post.message_ref)
        await client.chat_update(channel=channel, ts=ts, **blocks.question_post(view).payload())

    async def reveal(self, client: AsyncWebClient, reveal: Reveal) -> None:
        """Replaces the question message with its reveal (buttons gone)."""
        post = reveal.view.post
        self._refresher.cancel(post.id)
        self._clients.pop(post.id, None)
        if not post.message_ref:
            return
        channel, ts = split_ref(post.message_ref)
        try:
            await client.chat_update(channel=channel, ts=ts, **blocks.reveal_post(reveal).payload())
        except SlackApiError as error:
            log.warning("chat.update of post %s failed: %s", post.id, error.response.get("error"))

    async def flush(self) -> None:
        """Waits for the redraws still pending (shutdown, tests)."""
        await self._refresher.flush()
