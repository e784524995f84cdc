"""The public question messages after they are sent: their count and their reveal.

Both are edits of the channel message (by the id stored with the post), since an
interaction token expires after 15 minutes and a question stays open for a day. When to
redraw, and the turns of redraws and the reveal, are `bot.service.live_posts`'. discord.py
waits out rate limits and retries 5xx itself; a redraw that still failed for a reason that
passes is tried again later (`TryLater`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import aiohttp
import discord

from bot.discord import buttons
from bot.discord import embeds as render
from bot.domain.post import PostView, Reveal
from bot.presentation.messages import post_message, reveal_message
from bot.service.refresh import TryLater

log = logging.getLogger("quizbot.discord")
NO_PINGS = discord.AllowedMentions.none()  # edits do not inherit the client's default


def message_ref(channel_id: int, message_id: int) -> str:
    return f"{channel_id}:{message_id}"


def parse_ref(ref: str | None) -> tuple[int, int] | None:
    channel, _, message = (ref or "").partition(":")
    if not (channel.isascii() and channel.isdigit() and message.isascii() and message.isdigit()):
        return None
    return int(channel), int(message)


class Messages:
    """`MessageEditor` for Discord: edits through the channel, with the bot's token."""

    def __init__(self, client: discord.Client) -> None:
        self._client = client

    async def redraw(self, view: PostView) -> None:
        ref = parse_ref(view.post.message_ref)
        if ref is not None:
            await self._edit(ref, [render.question(post_message(view))], buttons.post_view(view))

    async def reveal(self, reveal: Reveal) -> str | None:
        ref = parse_ref(reveal.view.post.message_ref)
        if ref is None:
            return "no_message"
        try:
            return await self._edit(
                ref, [render.reveal(reveal_message(reveal))], buttons.reveal_view(reveal.view)
            )
        except TryLater as later:
            return later.reason

    async def _edit(
        self, ref: tuple[int, int], embeds: Sequence[discord.Embed], view: discord.ui.View
    ) -> str | None:
        """None when edited, else why not (the message is gone, or out of the bot's reach).
        Raises `TryLater` for what passes: a rate limit longer than discord.py waits, a
        5xx after its retries, no connection."""
        channel_id, message_id = ref
        message = self._client.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            await message.edit(embeds=render.fit(embeds), view=view, allowed_mentions=NO_PINGS)
        except discord.NotFound:
            log.info("message %s in channel %s is gone; not redrawn", message_id, channel_id)
            return "gone"
        except discord.Forbidden as e:  # a private channel the bot was never added to, say
            log.warning(
                "no access to channel %s (%s %s); message %s not redrawn",
                channel_id,
                e.status,
                e.text,
                message_id,
            )
            return "forbidden"
        except discord.RateLimited as e:
            raise TryLater("rate_limited", e.retry_after) from e
        except discord.HTTPException as e:
            log.warning(
                "Discord refused the edit of message %s in channel %s (%s %s); not redrawn",
                message_id,
                channel_id,
                e.status,
                e.text,
            )
            if e.status == 429 or e.status >= 500:
                raise TryLater(f"http_{e.status}") from e
            return f"http_{e.status}"
        except (aiohttp.ClientError, OSError, TimeoutError) as e:
            raise TryLater(type(e).__name__) from e
        return None
