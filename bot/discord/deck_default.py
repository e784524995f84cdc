"""/quizadmin deck default [deck:]: the deck a command that names none uses in this server.

Without `deck:` it says which deck that is and where it comes from; with a deck (offered by
autocomplete, with `none` to clear the server's own) it sets it. The bot checks Manage
Server itself, as for every /quizadmin command; the core checks again.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.discord.context import client_of
from bot.discord.options import MAX_CHOICES, admin, deck_choices
from bot.discord.replies import in_time, send
from bot.discord.translator import catalog_string as _
from bot.domain.default_deck import CLEAR
from bot.presentation.deck_messages import default_deck_text
from bot.presentation.locales import FALLBACK, text

HOW = "discord.deck_default_how"


async def default_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The loaded decks holding what is typed, and `none` (clear the server's own default)."""
    decks = await deck_choices(interaction, current)
    if current.strip().casefold() not in CLEAR:
        return decks
    name = text(FALLBACK, "discord.choice.no_default")
    return [app_commands.Choice(name=name, value=CLEAR), *decks][:MAX_CHOICES]


class DeckCommands(app_commands.Group, name="deck", description=_("discord.cmd.deck")):
    @app_commands.command(name="default", description=_("discord.cmd.deck_default"))
    @app_commands.describe(deck=_("discord.opt.default_deck"))
    @app_commands.autocomplete(deck=default_choices)
    async def default(self, interaction: discord.Interaction, deck: str | None = None) -> None:
        services = client_of(interaction).services
        who = admin(interaction)
        typed = (deck or "").strip()
        work = (
            services.catalog.set_default_deck(who, typed)
            if typed
            else services.catalog.default_view(who)
        )
        view = await in_time(interaction, work)
        await send(interaction, content=default_deck_text(view, HOW))
