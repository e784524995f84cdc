"""What the bot may do in a channel, as Discord tells each interaction (`app_permissions`).

Replies to commands and clicks need no permission; what happens later through the channel
does (the count and reveal edits, the daily question), so the caller is told, privately,
when the bot lacks what that needs, instead of it failing hours later without a word.
"""

from __future__ import annotations

import discord

from bot.discord.context import client_of
from bot.discord.identity import actor
from bot.discord.replies import send
from bot.presentation.locales import text

Need = tuple[tuple[str, str], ...]
"""(discord.Permissions attribute, the name Discord's settings show)."""

EDITS: Need = (("view_channel", "View Channel"), ("embed_links", "Embed Links"))
"""What the bot needs in a channel to redraw its question there after the interaction token
has expired (the count, the reveal): edits through the channel, embeds and all."""
POSTS: Need = (
    ("view_channel", "View Channel"),
    ("send_messages", "Send Messages"),
    ("embed_links", "Embed Links"),
)
"""What it needs to post there with no interaction behind it (the daily question): the
invite's permissions (`sync.PERMISSIONS`)."""


def missing_permissions(have: discord.Permissions, need: Need) -> list[str]:
    """The names of the permissions in `need` that `have` lacks."""
    return [name for attr, name in need if not getattr(have, attr)]


async def warn_permissions(interaction: discord.Interaction, need: Need, key: str) -> None:
    """A private note to the caller when the bot lacks `need` in this channel (Discord tells
    each interaction what the bot may do where it came from)."""
    lacking = missing_permissions(interaction.app_permissions, need)
    if lacking:
        locale = await client_of(interaction).services.catalog.ui_locale(actor(interaction))
        await send(interaction, content=text(locale, key, permissions=", ".join(lacking)))
