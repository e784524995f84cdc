"""/quizadmin schedule set|show|off|now: the daily question, one `Schedules` call each.

The bot checks Manage Server itself (the core checks again). Replies are private embeds
drawn from `bot.presentation.schedule_messages`; the few strings there written in Slack's syntax
("/quiz schedule set HH:MM ZONE") have a Discord wording under `[discord]` instead.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.discord import embeds as render
from bot.discord.context import Bot, client_of
from bot.discord.delivery import channel_mention
from bot.discord.options import (
    Channel,
    admin,
    channel_or_here,
    deck_choices,
    deck_option,
    zone_choices,
)
from bot.discord.permissions import POSTS, warn_permissions
from bot.discord.replies import in_time, send
from bot.discord.translator import catalog_string as _
from bot.domain.actor import Actor
from bot.domain.schedule_views import ScheduleList
from bot.presentation.locales import text
from bot.presentation.schedule_messages import (
    ScheduleMessage,
    schedule_list_message,
    schedule_set_message,
)

DAYS = [app_commands.Choice(name=_(f"discord.choice.{d}"), value=d) for d in ("daily", "weekdays")]


def list_message(result: ScheduleList) -> ScheduleMessage:
    if not result.items:
        none = text(result.locale, "discord.schedule_none")
        return ScheduleMessage(text(result.locale, "schedule.title"), [none])
    return schedule_list_message(result, channel_mention)


async def post_now(bot: Bot, who: Actor, channel_id: str) -> str:
    """The schedule's next question, sent through the channel like the daily one (so it
    lands where the schedule posts, wherever this was typed); what to tell the admin."""
    result = await bot.services.schedules.now(who, channel_id, bot.delivery)
    if result.failure is not None:
        return text(
            result.locale,
            "discord.schedule_now_failed",
            channel=channel_mention(result.view.post.channel_id),
            reason=result.failure,
        )
    return text(result.locale, "schedule.now")


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
    @app_commands.autocomplete(timezone=zone_choices, deck=deck_choices)
    async def set(
        self,
        interaction: discord.Interaction,
        time: str,
        timezone: str,
        channel: Channel | None = None,
        deck: str | None = None,
        days: str | None = None,
    ) -> None:
        where = channel_or_here(interaction, channel)
        service = client_of(interaction).services.schedules
        work = service.set(admin(interaction), str(where), time, timezone, deck_option(deck), days)
        result = await in_time(interaction, work)
        msg = schedule_set_message(result, channel_mention)
        await send(interaction, embeds=[render.schedule(msg, title_in_body=True)])
        if where == interaction.channel_id:  # Discord tells the bot's permissions here only
            await warn_permissions(interaction, POSTS, "discord.cannot_post")

    @app_commands.command(name="show", description=_("discord.cmd.schedule_show"))
    async def show(self, interaction: discord.Interaction) -> None:
        service = client_of(interaction).services.schedules
        result = await in_time(interaction, service.show(admin(interaction)))
        await send(interaction, embeds=[render.schedule(list_message(result))])

    @app_commands.command(name="off", description=_("discord.cmd.schedule_off"))
    @app_commands.describe(channel=_("discord.opt.channel"))
    async def off(self, interaction: discord.Interaction, channel: Channel | None = None) -> None:
        where = str(channel_or_here(interaction, channel))
        service = client_of(interaction).services.schedules
        result = await in_time(interaction, service.off(admin(interaction), where))
        channel_ref = channel_mention(result.schedule.channel_id)
        await send(
            interaction, content=text(result.locale, "discord.schedule_off", channel=channel_ref)
        )

    @app_commands.command(name="now", description=_("discord.cmd.schedule_now"))
    @app_commands.describe(channel=_("discord.opt.channel"))
    async def now(self, interaction: discord.Interaction, channel: Channel | None = None) -> None:
        where = str(channel_or_here(interaction, channel))
        bot = client_of(interaction)
        said = await in_time(interaction, post_now(bot, admin(interaction), where))
        await send(interaction, content=said)
