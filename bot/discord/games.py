"""`/quiz game start|stop` on Discord: the game itself is played by the core's game loop,
which posts through `DiscordDelivery`; the caller is told privately that it starts or stops
(or why it will not: a channel where the bot may not post is refused at once)."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.discord.context import client_of
from bot.discord.identity import actor
from bot.discord.options import deck_choices, deck_option, here
from bot.discord.permissions import POSTS, missing_permissions
from bot.discord.replies import in_time, send
from bot.discord.translator import catalog_string as _
from bot.domain.game import FEWEST_SECONDS, MOST_QUESTIONS, MOST_SECONDS
from bot.presentation.locales import text


class GameCommands(app_commands.Group, name="game", description=_("discord.cmd.game")):
    @app_commands.command(name="start", description=_("discord.cmd.game_start"))
    @app_commands.describe(
        deck=_("discord.opt.deck"),
        questions=_("discord.opt.questions"),
        seconds=_("discord.opt.seconds"),
    )
    @app_commands.autocomplete(deck=deck_choices)
    async def start(
        self,
        interaction: discord.Interaction,
        deck: str | None = None,
        questions: app_commands.Range[int, 1, MOST_QUESTIONS] | None = None,
        seconds: app_commands.Range[int, FEWEST_SECONDS, MOST_SECONDS] | None = None,
    ) -> None:
        services = client_of(interaction).services
        lacking = missing_permissions(interaction.app_permissions, POSTS)
        if lacking:  # its messages could not be posted: refuse now, not fail in silence later
            locale = await in_time(interaction, services.catalog.ui_locale(actor(interaction)))
            said = text(locale, "discord.game_cannot_post", permissions=", ".join(lacking))
            await send(interaction, content=said)
            return
        games = services.games
        work = games.start(
            actor(interaction), str(here(interaction)), deck_option(deck), questions, seconds
        )
        game = await in_time(interaction, work)
        await send(interaction, content=text(game.locale, "game.starting"))

    @app_commands.command(name="stop", description=_("discord.cmd.game_stop"))
    async def stop(self, interaction: discord.Interaction) -> None:
        services = client_of(interaction).services
        who = actor(interaction)
        await in_time(interaction, services.games.stop(who, str(here(interaction))))
        await send(
            interaction, content=text(await services.catalog.ui_locale(who), "game.stopping")
        )
