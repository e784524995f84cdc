"""Answering an interaction in time, and telling the user about refusals and failures.

Discord wants a first response within 3 s of the interaction. A click answers in that first
response once its write is committed (`bot.discord.clicks`); a command's core call runs in
`in_time`, which acknowledges first (a deferral) only if the call is still busy when the time
budget is spent. `send` and `update` then use the response or, once acknowledged, a
follow-up / an edit of the original. Every refusal (`QuizError`) becomes a private reply in
the user's language; anything else is logged and gets the generic apology, never Discord's
"interaction failed".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

import aiohttp
import discord
from discord.utils import MISSING

from bot.discord import embeds as render
from bot.discord.callback import DEADLINE, post_private_reply
from bot.discord.context import client_of
from bot.discord.fastpath import private_reply
from bot.discord.identity import NotInGuild, actor
from bot.domain.errors import QuizError
from bot.presentation.locales import FALLBACK, catalog, text
from bot.presentation.messages import error_text

log = logging.getLogger("quizbot.discord")

T = TypeVar("T")

SPARE = 1.0
"""Kept for the deferral request itself."""
BUDGET = 1.0
"""The longest a command's core call may run before the interaction is acknowledged first."""

_THINKING = "quizbot.thinking"
"""Set while a "thinking…" deferral is unresolved: whether it is ephemeral. The first
follow-up replaces that message and keeps its visibility, whatever the follow-up asks."""


def budget(interaction: discord.Interaction) -> float:
    """What is left of BUDGET, after the time the interaction took to reach us."""
    age = max(0.0, (discord.utils.utcnow() - interaction.created_at).total_seconds())
    return max(0.0, min(BUDGET, DEADLINE - SPARE - age))


async def in_time(
    interaction: discord.Interaction,
    work: Awaitable[T],
    *,
    ephemeral: bool = True,
    update: bool = False,
) -> T:
    """Awaits a command's `work`, acknowledging the interaction first if it takes too long.

    `update`: the reply will replace the clicked message (deferred update), else it will be
    a new message (thinking, private unless `ephemeral` is False).
    """
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=budget(interaction))
        if not done:
            await acknowledge(interaction, ephemeral=ephemeral, update=update)
    except BaseException:
        task.cancel()
        raise
    return await task


async def acknowledge(interaction: discord.Interaction, *, ephemeral: bool, update: bool) -> None:
    if interaction.response.is_done():
        return
    try:
        if update:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)
            interaction.extras[_THINKING] = ephemeral
    except discord.HTTPException:
        log.warning("could not acknowledge interaction %s", interaction.id, exc_info=True)


async def send(
    interaction: discord.Interaction,
    *,
    content: str | None = None,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
    ephemeral: bool = True,
) -> int | None:
    """Sends a new message as the reply; returns its id when Discord says it."""
    shown = render.fit(embeds)
    body: Any = MISSING if content is None else render.clip(content, render.CONTENT)
    items: Any = MISSING if view is None else view
    if interaction.response.is_done():
        thinking_ephemeral = interaction.extras.pop(_THINKING, None)
        if thinking_ephemeral is not None and thinking_ephemeral != ephemeral:
            # Not a private reply in a public "thinking…" (or the reverse): drop it first,
            # so this follow-up is a message of its own, as visible as asked.
            await interaction.delete_original_response()
        message = await interaction.followup.send(
            content=body, embeds=shown, view=items, ephemeral=ephemeral, wait=True
        )
        return message.id
    response = await interaction.response.send_message(
        content=body, embeds=shown, view=items, ephemeral=ephemeral
    )
    return response.message_id


async def reply_privately(
    interaction: discord.Interaction,
    session: aiohttp.ClientSession,
    *,
    content: str | None = None,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
    locale: str = FALLBACK,
) -> None:
    """A click's private reply, as the interaction's first response, over `session`
    (`bot.discord.callback`: posted directly, retried, else a follow-up in `locale`). Once
    answered, this is `send`."""
    if interaction.response.is_done():
        await send(interaction, content=content, embeds=embeds, view=view)
        return
    await post_private_reply(interaction, session, private_reply(content, embeds, view), locale)


async def update(
    interaction: discord.Interaction,
    *,
    content: str | None = None,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
) -> None:
    """Replaces the message the clicked button is on (its buttons too; None removes them)."""
    shown = render.fit(embeds)
    body = None if content is None else render.clip(content, render.CONTENT)
    if interaction.response.is_done():
        await interaction.edit_original_response(content=body, embeds=shown, view=view)
    else:
        await interaction.response.edit_message(content=body, embeds=shown, view=view)


async def locale_of(interaction: discord.Interaction) -> str:
    """The caller's UI language; English when even that cannot be looked up."""
    try:
        return await client_of(interaction).services.catalog.ui_locale(actor(interaction))
    except Exception:
        return FALLBACK


def refusal_text(error: QuizError, locale: str) -> str:
    """The core's words for a refusal, in Discord's terms: `discord.error.<key>` replaces a
    string that names Slack's command syntax, and "admin" gets what it means here."""
    override = f"discord.error.{error.key}"
    if override in catalog(FALLBACK):
        return text(locale, override, **error.params)
    said = error_text(error, locale)
    if error.key == "admin_only":
        said = f"{said} {text(locale, 'discord.admin_hint')}"
    return said


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Tells the caller, privately, why nothing happened. Never raises."""
    try:
        if isinstance(error, NotInGuild):
            message = text(FALLBACK, "discord.guild_only")
        elif isinstance(error, QuizError):
            message = refusal_text(error, await locale_of(interaction))
        else:
            log.error("interaction %s failed", interaction.id, exc_info=error)
            message = text(await locale_of(interaction), "error.generic")
        await send(interaction, content=message, ephemeral=True)  # never public "thinking…"
    except Exception:
        log.exception("could not tell the caller of interaction %s what went wrong", interaction.id)
