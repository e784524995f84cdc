"""What a callback reaches through `interaction.client`: the services and this client's parts.

Callbacks type the client by this protocol, not by `QuizClient`, so the modules that
register them do not import the client that imports them.
"""

from __future__ import annotations

from typing import Protocol, cast

import aiohttp
import discord

from bot.observability.metrics import Metrics
from bot.service.delivery import Delivery
from bot.service.intake import Intake
from bot.service.live_posts import LivePosts, MessageEditor
from bot.service.services import Services


class Bot(Protocol):
    services: Services
    metrics: Metrics
    posts: LivePosts
    """The open question messages: their count redraws and reveals."""
    messages: MessageEditor
    """Edits of the bot's own channel messages."""
    delivery: Delivery
    """The daily question's way onto Discord (`schedule now` posts through it too)."""
    intake: Intake
    """Every click: admitted, committed, answered and recorded (`bot.discord.clicks`)."""

    @property
    def reply_session(self) -> aiohttp.ClientSession:
        """Where clicks' private replies are posted (`replies.reply_privately`)."""
        ...


def client_of(interaction: discord.Interaction) -> Bot:
    return cast(Bot, interaction.client)
