"""A click's life on Discord: admitted (`bot.service.admission`), its button's work (which
commits, then answers in the interaction's first callback), the clicker told of a failure,
then one metrics sample and one log line (`bot.observability.clicklog`, as on Slack), timed from its
arrival."""

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
from bot.observability.clicklog import Handled, failed, record
from bot.service.admission import Closing

log = logging.getLogger("quizbot.discord")
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


Work = Callable[[float], Awaitable[Handled]]
"""A button's work, given the deadline by which its write must have begun."""


async def clicked(interaction: discord.Interaction, work: Work, post_id: int | None = None) -> None:
    """Runs a button's work (which commits, replies and says what the click did) as an
    admitted click; whatever it raises is reported to the clicker. Then the click is
    recorded; `post_id`: the post the button names, for the log line of a failed click."""
    arrived = arrival(interaction)
    bot = client_of(interaction)
    who = clicker(interaction)
    try:
        async with bot.services.admission.admit(
            None if who is None else (who.server_id, who.user_id), arrived
        ) as ticket:
            try:
                result = await work(ticket.deadline)
            except Exception as error:
                await report(interaction, error)
                result = Handled(outcome(error), post_id)
    except Closing:  # unacknowledged: Discord tells the clicker it failed
        log.info("a click arrived while stopping; not acknowledged")
        return
    record(bot.metrics, PLATFORM, who, result, arrived)
