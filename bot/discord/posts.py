"""The public question messages after they are sent: their count and their reveal.

Both are edits of the channel message (by the id stored with the post), since an
interaction token expires after 15 minutes and a question stays open for a day. Count
redraws are coalesced by `Refresher` (Discord rate-limits edits per channel); a per-post
lock keeps a late count redraw from overwriting the reveal.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import discord

from bot.discord import buttons
from bot.discord import embeds as render
from bot.domain.clock import Clock
from bot.domain.post import Reveal
from bot.presentation.messages import post_message, reveal_message
from bot.service.quiz import Quiz
from bot.service.refresh import Refresher

log = logging.getLogger("quizbot.discord")
NO_PINGS = discord.AllowedMentions.none()  # edits do not inherit the client's default


def message_ref(channel_id: int, message_id: int) -> str:
    return f"{channel_id}:{message_id}"


def parse_ref(ref: str | None) -> tuple[int, int] | None:
    channel, _, message = (ref or "").partition(":")
    if not (channel.isdigit() and message.isdigit()):
        return None
    return int(channel), int(message)


class PostMessages:
    def __init__(self, client: discord.Client, quiz: Quiz, clock: Clock, interval: float) -> None:
        self._client = client
        self._quiz = quiz
        self._refresher: Refresher[int] = Refresher(self._redraw, clock, interval)
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}

    async def posted(self, post_id: int, channel_id: int, message_id: int) -> None:
        await self._quiz.set_message(post_id, message_ref(channel_id, message_id))

    def answered(self, post_id: int) -> None:
        """A click counted: the count is redrawn soon, once for many clicks."""
        self._refresher.touch(post_id)

    async def reveal(self, reveal: Reveal) -> bool:
        """Redraws a closed post as its reveal; False if its message is unknown, gone, or
        not the bot's to edit any more (no access to its channel)."""
        post = reveal.view.post
        self._refresher.cancel(post.id)
        ref = parse_ref(post.message_ref)
        if ref is None:
            return False
        async with self._lock(post.id):
            return await self._edit(
                ref, [render.reveal(reveal_message(reveal))], buttons.reveal_view(reveal.view)
            )

    async def flush(self) -> None:
        await self._refresher.flush()

    async def _redraw(self, post_id: int) -> None:
        async with self._lock(post_id):
            view = await self._quiz.view(post_id)
            ref = parse_ref(view.post.message_ref)
            if view.post.is_open and ref is not None:
                await self._edit(
                    ref, [render.question(post_message(view))], buttons.post_view(view)
                )

    async def _edit(
        self, ref: tuple[int, int], embeds: Sequence[discord.Embed], view: discord.ui.View
    ) -> bool:
        channel_id, message_id = ref
        message = self._client.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            await message.edit(embeds=render.fit(embeds), view=view, allowed_mentions=NO_PINGS)
        except discord.NotFound:
            log.info("message %s in channel %s is gone; not redrawn", message_id, channel_id)
            return False
        except discord.Forbidden as e:  # a private channel the bot was never added to, say
            log.warning(
                "no access to channel %s (%s %s); message %s not redrawn",
                channel_id,
                e.status,
                e.text,
                message_id,
            )
            return False
        except discord.HTTPException as e:
            log.warning(
                "Discord refused the edit of message %s in channel %s (%s %s); not redrawn",
                message_id,
                channel_id,
                e.status,
                e.text,
            )
            return False
        return True

    @asynccontextmanager
    async def _lock(self, post_id: int) -> AsyncIterator[None]:
        lock, users = self._locks.get(post_id, (asyncio.Lock(), 0))
        self._locks[post_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[post_id]
            if users == 1:
                del self._locks[post_id]
            else:
                self._locks[post_id] = (lock, users - 1)
