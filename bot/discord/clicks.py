"""Discord's side of a click (the rest is `bot.service.intake`): who clicked, when it arrived,
and its reply; the intake admits it, commits its work and records it (metrics and a log line,
as on Slack), timed from its arrival.

On Discord the reply is the acknowledgement: the interaction's first response is sent once
the click's work is committed. A refusal or a failure is told to the clicker privately.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

import discord

from bot.discord.context import client_of
from bot.discord.identity import NotInGuild, actor
from bot.discord.replies import report
from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.observability.clicklog import failed
from bot.service.clicks import Intent, Outcome, Refused
from bot.service.intake import Click

log = logging.getLogger("quizbot.discord")
PLATFORM = "discord"
_ARRIVED = "quizbot.arrived"

Show = Callable[[Outcome], Awaitable[None]]
"""Renders and sends a click's outcome (its button's own way)."""


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
    """Who clicked (None in a direct message)."""
    try:
        return actor(interaction)
    except NotInGuild:
        return None


async def take(
    interaction: discord.Interaction, intent: Intent, show: Show, post_id: int | None = None
) -> None:
    """The click, through the intake: `show` renders what it did; a refusal or a failure is
    reported to the clicker. `post_id`: the post the button names, for a failed click's log
    line."""
    bot = client_of(interaction)
    who = clicker(interaction)

    async def reply(said: Outcome) -> None:
        if isinstance(said, Refused):
            await report(interaction, said.error)
            return
        try:
            await show(said)
        except Exception as error:
            await report(interaction, error)  # the clicker is told; the intake records it
            raise

    nobody = NotInGuild() if who is None else None
    click = Click(who, intent, arrival(interaction), post_id, bot.messages, nobody=nobody)
    await bot.intake.handle(click, reply)
