"""A click's life on Discord: its button's work, the clicker told of a failure, then one
metrics sample and one log line (`bot.clicklog`, as on Slack), timed from its arrival."""

from __future__ import annotations

import time
from collections.abc import Awaitable

import discord

from bot.clicklog import Handled, failed, record
from bot.core.actor import Actor
from bot.core.errors import QuizError
from bot.discord.identity import NotInGuild, actor
from bot.discord.replies import client_of, report

PLATFORM = "discord"
_ARRIVED = "quizbot.arrived"


def arrival(interaction: discord.Interaction) -> float:
    """When the interaction arrived (`time.monotonic()`): the first call notes it. The client
    calls this as the gateway hands the interaction over, before any callback runs, so the
    wait for a turn on a busy event loop counts too."""
    arrived: float = interaction.extras.setdefault(_ARRIVED, time.monotonic())
    return arrived


def outcome(error: BaseException) -> str:
    """A failure as a click outcome (`stale`, `busy`, `refused`, `error`), judged as `report`
    judges it: a `QuizError` or a direct message is a refusal, anything else a bug."""
    if isinstance(error, NotInGuild):
        return failed("not_in_guild")
    return failed(error.key if isinstance(error, QuizError) else None)


def clicker(interaction: discord.Interaction) -> Actor | None:
    """Who clicked, for the log line (None in a direct message)."""
    try:
        return actor(interaction)
    except NotInGuild:
        return None


async def clicked(
    interaction: discord.Interaction, work: Awaitable[Handled], post_id: int | None = None
) -> None:
    """Runs a button's work (which replies and says what the click did); whatever it raises
    is reported to the clicker. Then the click is recorded; `post_id`: the post the button
    names, for the log line of a failed click."""
    arrived = arrival(interaction)
    try:
        result = await work
    except Exception as error:
        await report(interaction, error)
        result = Handled(outcome(error), post_id)
    record(client_of(interaction).metrics, PLATFORM, clicker(interaction), result, arrived)
