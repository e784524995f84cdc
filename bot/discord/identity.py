"""Who is asking, read off a Discord interaction: the server, the user, and admin rights.

Admin means Manage Server in the interaction's resolved permissions (Discord computes them
for the member in that channel, overwrites included). The bot decides this itself for every
admin action: `default_permissions` on /quizadmin is only what Discord shows by default, and
a server can override it.
"""

from __future__ import annotations

import discord

from bot.domain.actor import Actor

PREFIX = "discord:"


class NotInGuild(Exception):
    """An interaction from a direct message: there is no server to keep scores for."""


def server_id(guild_id: int) -> str:
    return f"{PREFIX}{guild_id}"


def is_admin(permissions: discord.Permissions) -> bool:
    return permissions.manage_guild or permissions.administrator


def actor(interaction: discord.Interaction) -> Actor:
    if interaction.guild_id is None:
        raise NotInGuild
    return Actor(
        server_id=server_id(interaction.guild_id),
        user_id=str(interaction.user.id),
        is_admin=is_admin(interaction.permissions),
    )


def mention(user_id: str) -> str:
    """A mention as text; every send uses AllowedMentions.none(), so it never pings."""
    return f"<@{user_id}>"
