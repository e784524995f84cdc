"""/quizadmin schedule set|show|off|now. Until the daily-question issue lands, every
subcommand, admin-checked, says it is coming."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.core.errors import QuizError
from bot.discord.options import admin, deck_choices
from bot.discord.translator import catalog_string as _

DAYS = [app_commands.Choice(name=_(f"discord.choice.{d}"), value=d) for d in ("daily", "weekdays")]


class ScheduleCommands(app_commands.Group, name="schedule", description=_("discord.cmd.schedule")):
    @app_commands.command(name="set", description=_("discord.cmd.schedule_set"))
    @app_commands.describe(
        time=_("discord.opt.time"),
        timezone=_("discord.opt.timezone"),
        channel=_("discord.opt.channel"),
        deck=_("discord.opt.deck"),
        days=_("discord.opt.days"),
    )
    @app_commands.choices(days=DAYS)
    @app_commands.autocomplete(deck=deck_choices)
    async def set(
        self,
        interaction: discord.Interaction,
        time: str,
        timezone: str,
        channel: discord.TextChannel | None = None,
        deck: str | None = None,
        days: str | None = None,
    ) -> None:
        admin(interaction)
        raise QuizError("schedule_soon")

    @app_commands.command(name="show", description=_("discord.cmd.schedule_show"))
    async def show(self, interaction: discord.Interaction) -> None:
        admin(interaction)
        raise QuizError("schedule_soon")

    @app_commands.command(name="off", description=_("discord.cmd.schedule_off"))
    async def off(self, interaction: discord.Interaction) -> None:
        admin(interaction)
        raise QuizError("schedule_soon")

    @app_commands.command(name="now", description=_("discord.cmd.schedule_now"))
    async def now(self, interaction: discord.Interaction) -> None:
        admin(interaction)
        raise QuizError("schedule_soon")
