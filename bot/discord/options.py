"""Slash-command options: who may, which channel, which deck, and what autocomplete offers.

Autocomplete answers within Discord's 3 s and its 25 choices, from memory only (the loaded
decks, the zoneinfo database), never the store.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from zoneinfo import available_timezones

import discord
from discord import app_commands

from bot.decks.model import pick
from bot.discord import embeds as render
from bot.discord.context import client_of
from bot.discord.identity import NotInGuild, actor
from bot.domain.actor import Actor
from bot.domain.errors import QuizError

CHOICE_NAME = 100
MAX_CHOICES = 25
COMMON_ZONES = (
    "UTC",
    "Asia/Dhaka",
    "Asia/Kolkata",
    "Asia/Singapore",
    "Asia/Tokyo",
    "Europe/London",
    "Europe/Berlin",
    "America/New_York",
    "America/Chicago",
    "America/Los_Angeles",
    "Australia/Sydney",
)
"""What the time zone option offers before anything is typed."""


def admin(interaction: discord.Interaction) -> Actor:
    """The caller, if they have Manage Server here; else `admin_only`. The bot decides this
    for every admin command: /quizadmin's `default_permissions` only hides it by default."""
    who = actor(interaction)
    if not who.is_admin:
        raise QuizError("admin_only")
    return who


def here(interaction: discord.Interaction) -> int:
    """The channel the command was typed in."""
    if interaction.channel_id is None:
        raise NotInGuild
    return interaction.channel_id


def deck_option(value: str | None) -> str | None:
    """Deck ids are lowercase; what Discord's client lets someone type is taken either way."""
    value = (value or "").strip().lower()
    return value or None


def _matches(needle: str, *haystack: str) -> bool:
    return not needle or any(needle in h.casefold() for h in haystack)


async def deck_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    needle = current.casefold().strip()
    return [
        app_commands.Choice(
            name=render.clip(f"{d.id} · {pick(d.title, d.fallback_locale)}", CHOICE_NAME),
            value=d.id,
        )
        for d in client_of(interaction).services.catalog.decks
        if _matches(needle, d.id, *d.title.values())
    ][:MAX_CHOICES]


async def question_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The questions of the deck already chosen in this command (or the server's default, as
    this process last knew it: autocomplete reads no store)."""
    try:
        chosen = deck_option(getattr(interaction.namespace, "deck", None))
        services = client_of(interaction).services
        deck = (
            services.catalog.deck(chosen)
            if chosen
            else services.catalog.known_default(actor(interaction).server_id)
        )
    except QuizError:
        return []
    needle = current.casefold().strip()
    return [
        app_commands.Choice(
            name=render.clip(f"{q.position}. {pick(q.text, deck.fallback_locale)}", CHOICE_NAME),
            value=q.id,
        )
        for q in deck
        if _matches(needle, q.id, str(q.position), *q.text.values())
    ][:MAX_CHOICES]


def topic_option(interaction: discord.Interaction, value: str | None) -> str | None:
    """A topic (a tag of the loaded decks) as typed, in any case; one no deck has is passed
    on as typed, for the core to refuse by name."""
    typed = (value or "").strip()
    if not typed:
        return None
    topics = client_of(interaction).services.catalog.topics()
    return next((t for t in topics if t.casefold() == typed.casefold()), typed)


async def topic_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The loaded decks' tags that hold what is typed (a choice's value is at most 100
    characters too: a longer tag can still be typed in full)."""
    needle = current.casefold().strip()
    return [
        app_commands.Choice(name=t, value=t)
        for t in client_of(interaction).services.catalog.topics()
        if _matches(needle, t) and len(t) <= CHOICE_NAME
    ][:MAX_CHOICES]


@cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(available_timezones()))


def zones_matching(typed: str) -> list[str]:
    """IANA zones whose name holds the typed text (any case; a space counts as "_"), those
    that start with it, or whose city does, first; at most 25."""
    needle = typed.strip().casefold().replace(" ", "_")
    if not needle:
        return list(COMMON_ZONES)

    def rank(zone: str) -> tuple[int, str]:
        lower = zone.casefold()
        starts = lower.startswith(needle) or lower.rsplit("/", 1)[-1].startswith(needle)
        return (0 if starts else 1, zone)

    return sorted((z for z in _zones() if needle in z.casefold()), key=rank)[:MAX_CHOICES]


async def zone_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=z, value=z) for z in zones_matching(current)]


class TextChannelOption(app_commands.Transformer):
    """A text or announcement channel as Discord resolved it in the interaction
    (`AppCommandChannel`): only its id is used, so no cached guild is needed."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.channel

    @property
    def channel_types(self) -> list[discord.ChannelType]:
        return [discord.ChannelType.text, discord.ChannelType.news]

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> Any:
        return value


Channel = app_commands.Transform[app_commands.AppCommandChannel, TextChannelOption]


def channel_or_here(
    interaction: discord.Interaction, channel: app_commands.AppCommandChannel | None
) -> int:
    return channel.id if channel is not None else here(interaction)
