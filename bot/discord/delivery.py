"""The scheduler's and the game loop's way onto Discord: a question posted and revealed, a
game's messages, a failure told.

Everything goes over REST by channel id (a `PartialMessageable`), so it needs no gateway
cache and works from any shard's process. What an admin must fix (the bot removed from the
channel, the channel gone, a permission missing: Forbidden, NotFound) is a `ChannelRefused`;
discord.py itself retries rate limits and Discord's own 5xx, and whatever still escapes (a
5xx, a connection that failed, a timeout) is a plain `DeliveryError`, recorded by the
scheduler as that date's failure and tried again by a game.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

import aiohttp
import discord

from bot.discord import buttons
from bot.discord import embeds as render
from bot.discord.posts import NO_PINGS, Messages, message_ref
from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.game import GameNews
from bot.domain.post import PostView, Reveal
from bot.domain.schedule import Schedule
from bot.presentation.game_messages import game_end_text, news_message
from bot.presentation.locales import text
from bot.presentation.messages import post_message
from bot.service.catalog import Catalog
from bot.service.delivery import ChannelRefused, DeliveryError
from bot.service.live_posts import LivePosts

log = logging.getLogger("quizbot.discord")


def channel_mention(channel_id: str) -> str:
    return f"<#{channel_id}>"


def refusal(error: discord.HTTPException) -> str:
    """Why Discord refused, for `schedule show` and the admin's DM (kept in English, as the
    platform said it, with what it usually means)."""
    said = f"Discord answered {error.status} {error.text or error.response.reason}".strip()
    if isinstance(error, discord.Forbidden):
        return f"{said}: the bot may not see or post in the channel"
    if isinstance(error, discord.NotFound):
        return f"{said}: the channel is gone, or the bot is no longer in the server"
    return said


def failed(error: Exception) -> DeliveryError:
    """The error for what a REST call raised: `ChannelRefused` when no retry helps."""
    if isinstance(error, discord.Forbidden | discord.NotFound):
        return ChannelRefused(refusal(error))
    if isinstance(error, discord.HTTPException):
        return DeliveryError(refusal(error))
    return DeliveryError(f"Discord could not be reached ({type(error).__name__}: {error})")


UNREACHABLE = (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError)
"""What a REST call raises when Discord refused it or could not be reached (after
discord.py's own retries)."""

_URL = re.compile(r"\w+://\S+")


def plain(message: str) -> str:
    """A DM's text shown as written: markdown escaped (a masked link shows its brackets and
    address), and every address in a code span, where Discord makes no link of it. Mentions
    (`<@id>`) stay mentions; the DM pings nobody either way."""
    escaped = discord.utils.escape_markdown(message)
    return _URL.sub(lambda m: "`" + m.group(0).replace("`", "'") + "`", escaped)


class DiscordDelivery:
    """`bot.service.delivery.Delivery` for Discord."""

    def __init__(
        self, client: discord.Client, catalog: Catalog, posts: LivePosts, messages: Messages
    ) -> None:
        self._client = client
        self._catalog = catalog
        self._posts = posts
        self._messages = messages

    async def post(self, view: PostView) -> str:
        """The question embed and its buttons, as a message of the bot's own; its ref is
        "channel:message", like a post made with /quiz post."""
        channel_id = int(view.post.channel_id)
        channel = self._client.get_partial_messageable(channel_id)
        try:
            closes = view.game.closes_at if view.game is not None else None
            message = await channel.send(
                embeds=render.fit([render.question(post_message(view), closes)]),
                view=buttons.post_view(view),
                allowed_mentions=NO_PINGS,
            )
        except UNREACHABLE as e:  # 5xx too, once discord.py's retries are spent
            raise failed(e) from e
        return message_ref(channel_id, message.id)

    async def reveal(self, reveal: Reveal) -> None:
        """Edits the closed post's message into its reveal. A message that is gone, or in a
        channel the bot lost, is logged and left (the scheduler goes on either way)."""
        failure = await self._posts.reveal(reveal, self._messages)
        if failure is not None:
            log.info("scheduled post %s: reveal not shown (%s)", reveal.view.post.id, failure)

    async def announce(self, news: GameNews) -> None:
        """A game's public message in its channel; it pings nobody."""
        title, lines = news_message(news, self.mention)
        channel = self._client.get_partial_messageable(int(news.game.channel_id))
        try:
            await channel.send(
                embeds=render.fit([render.game_news(title, lines)]), allowed_mentions=NO_PINGS
            )
        except UNREACHABLE as e:
            raise failed(e) from e

    async def admins(self, server_id: str) -> Sequence[str]:
        """The server's owner, as the gateway told it (members with Manage Server cannot be
        listed without the privileged members intent)."""
        guild = self._client.get_guild(int(server_id.partition(":")[2] or 0))
        return [str(guild.owner_id)] if guild is not None and guild.owner_id else []

    async def is_admin(self, server_id: str, user_id: str) -> bool:
        """The owner, or a member whose roles give Manage Server (or Administrator), read over
        REST (members cannot be listed without the privileged intent, and the gateway's cache
        may be another shard's); someone no longer in the server is not."""
        guild_id = int(server_id.partition(":")[2] or 0)
        guild = self._client.get_guild(guild_id)
        if guild is not None and guild.owner_id == int(user_id):
            return True
        try:
            member = await self._client.http.get_member(guild_id, int(user_id))
            roles = await self._client.http.get_roles(guild_id)
        except discord.NotFound:
            return False
        granted = {str(role["id"]): int(role["permissions"]) for role in roles}
        value = granted.get(str(guild_id), 0)  # @everyone has the guild's id
        for role_id in member.get("roles", []):
            value |= granted.get(str(role_id), 0)
        have = discord.Permissions(value)
        return have.administrator or have.manage_guild

    def mention(self, user_id: str) -> str:
        return f"<@{user_id}>"

    def fits(self, message: str) -> bool:
        return len(plain(message)) <= render.CONTENT

    async def tell(self, server_id: str, user_id: str, message: str) -> bool:
        """A DM; best effort (people may close their DMs to server members)."""
        try:
            dm = await self._client.create_dm(discord.Object(id=int(user_id)))
            shown = render.clip(plain(message), render.CONTENT)
            await dm.send(content=shown, allowed_mentions=NO_PINGS)
            return True
        except (discord.HTTPException, ValueError) as e:
            log.info("could not DM user %s of %s (%s)", user_id, server_id, e)
            return False

    async def notify_game_end(self, news: GameNews) -> None:
        """A DM to the game's starter, in their language, saying why it ended early. Best
        effort: people may close their DMs to server members."""
        starter = Actor(news.game.server_id, news.game.starter_id)
        try:
            locale = await self._catalog.ui_locale(starter)
            said = game_end_text(news, locale, channel_mention)
            dm = await self._client.create_dm(discord.Object(id=int(starter.user_id)))
            await dm.send(content=render.clip(said, render.CONTENT), allowed_mentions=NO_PINGS)
        except (*UNREACHABLE, QuizError, ValueError) as e:
            log.info("could not DM user %s about game %s (%s)", starter.user_id, news.game.id, e)

    async def notify_failure(self, schedule: Schedule, reason: str) -> None:
        """A DM to the admin who set the schedule, in their language. Best effort: people
        may close their DMs to server members, and then only `schedule show` tells."""
        admin = Actor(schedule.server_id, schedule.created_by)
        locale = await self._catalog.ui_locale(admin)
        said = text(
            locale,
            "discord.schedule_notify",
            channel=channel_mention(schedule.channel_id),
            reason=reason,
        )
        try:
            dm = await self._client.create_dm(discord.Object(id=int(schedule.created_by)))
            await dm.send(content=render.clip(said, render.CONTENT), allowed_mentions=NO_PINGS)
        except discord.HTTPException as e:
            log.info(
                "could not DM user %s about schedule %s (%s)", schedule.created_by, schedule.id, e
            )
