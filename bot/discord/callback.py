"""A click's private reply posted as the interaction's first response (the callback), over
the bot's own connections, and what happens when Discord does not take it.

discord.py always asks Discord to send the new message back (`with_response`) and parses it;
the answer to a click needs nothing back, and in a burst that echo was an eighth of a
click's time on the event loop. So the callback is posted here, as Discord documents it (204,
no body), and the interaction marked answered (`bot.discord.fastpath.answered`, the one
write of discord.py's internals).

By then the click is stored. A callback Discord fails (a 5xx, a 429, no answer, a dropped
connection) is tried again while the interaction's 3 s last; discord.py would retry a 500
too. A try answered "already acknowledged" (40060) means an earlier one was taken: if its
message is there, that is the reply. Otherwise the player is told in a follow-up (the
interaction's webhook, valid 15 minutes) that the answer was saved, with the reply itself.
The first response is never sent twice, and a click whose answer is stored is never told
"something went wrong".
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass

import aiohttp
import discord

from bot.discord import embeds as render
from bot.discord.fastpath import answered
from bot.presentation.locales import text

log = logging.getLogger("quizbot.discord")

DEADLINE = 3.0
"""Discord's limit for the first response, counted from the interaction's creation."""
SPARE = 0.5
"""Kept of the window for a retried callback to arrive."""
FIRST_WAIT = 0.1
"""The wait before the first retry; it doubles for each next one."""
ALREADY_ACKNOWLEDGED = 40060
TIMEOUT = aiohttp.ClientTimeout(total=DEADLINE)
"""A callback is given at most the interaction's whole window."""
_JSON = {"Content-Type": "application/json"}


@dataclass(frozen=True)
class _Failed:
    """One try that Discord did not take: its status (None: no answer), Discord's error
    code, its Retry-After, and the error to raise if nothing else can be done."""

    status: int | None
    code: int | None
    retry_after: float
    error: Exception

    @property
    def passing(self) -> bool:
        return self.status is None or self.status == 429 or self.status >= 500

    @property
    def acknowledged(self) -> bool:
        return self.status == 400 and self.code == ALREADY_ACKNOWLEDGED


async def post_private_reply(
    interaction: discord.Interaction, session: aiohttp.ClientSession, body: str, locale: str
) -> None:
    """Posts `body` (`fastpath.private_reply`'s) as the interaction's first response, over
    `session`; `locale`: the player's, for the follow-up if one is needed."""
    url = f"{discord.http.Route.BASE}/interactions/{interaction.id}/{interaction.token}/callback"
    failed = await _try(session, url, body)
    if failed is None:
        answered(interaction)
        return
    await _not_taken(interaction, session, url, body, locale, failed)


async def _try(
    session: aiohttp.ClientSession,
    url: str,
    body: str,
    within: aiohttp.ClientTimeout | None = None,
) -> _Failed | None:
    """One try; None when Discord took it. `within`: what is left of the window."""
    try:
        async with session.post(
            url, data=body.encode(), headers=_JSON, timeout=within or TIMEOUT
        ) as sent:
            if sent.status < 300:
                return None
            said = await sent.text()
            error = discord.HTTPException(sent, said)
            return _Failed(sent.status, _code(said), _seconds(sent), error)
    except (aiohttp.ClientError, TimeoutError) as error:
        return _Failed(None, None, 0.0, error)


async def _not_taken(
    interaction: discord.Interaction,
    session: aiohttp.ClientSession,
    url: str,
    body: str,
    locale: str,
    failed: _Failed,
) -> None:
    """The slow path: retries within the window, then the follow-up. Raises only a plain
    refusal (a body Discord will not take, an interaction it does not know)."""
    wait, tries = FIRST_WAIT, 1
    while failed.passing:
        wait = max(wait, failed.retry_after)
        left = DEADLINE - _age(interaction) - wait
        if left < SPARE:
            break
        await asyncio.sleep(wait)
        retried = await _try(session, url, body, aiohttp.ClientTimeout(total=left))
        tries += 1
        if retried is None:
            answered(interaction)
            log.info("interaction %s: the reply was taken on try %d", interaction.id, tries)
            return
        failed, wait = retried, wait * 2
    if not (failed.passing or failed.acknowledged):
        raise failed.error
    answered(interaction)  # taken or not, no second first response is sent
    if failed.acknowledged and await _original_shown(interaction, session):
        log.info("interaction %s: an earlier try of the reply was taken", interaction.id)
        return
    await _follow_up(interaction, session, body, locale, failed)


async def _original_shown(interaction: discord.Interaction, session: aiohttp.ClientSession) -> bool:
    """Whether the interaction's first response is a message Discord shows."""
    url = _webhook(interaction) + "/messages/@original"
    try:
        async with session.get(url) as found:
            return found.status == 200
    except (aiohttp.ClientError, TimeoutError):
        return False


async def _follow_up(
    interaction: discord.Interaction,
    session: aiohttp.ClientSession,
    body: str,
    locale: str,
    failed: _Failed,
) -> None:
    """The reply as a follow-up, saying the answer was saved. Best effort: a callback that
    never reached Discord left no webhook to post to (Discord told the player it failed;
    clicking again shows the stored answer)."""
    data = json.loads(body)["data"]
    note = text(locale, "discord.reply_late")
    data["content"] = render.clip(f"{note}\n\n{data.get('content') or ''}".strip(), render.CONTENT)
    try:
        async with session.post(
            _webhook(interaction), params={"wait": "1"}, json=data, timeout=TIMEOUT
        ) as sent:
            if sent.status < 300:
                log.warning(
                    "interaction %s: Discord did not take the reply (%s); sent as a follow-up",
                    interaction.id,
                    failed.status or type(failed.error).__name__,
                )
                return
            said = f"{sent.status} {await sent.text()}"
    except (aiohttp.ClientError, TimeoutError) as error:
        said = type(error).__name__
    log.warning(
        "interaction %s: Discord did not take the reply (%s) nor its follow-up (%s); the "
        "answer is stored",
        interaction.id,
        failed.status or type(failed.error).__name__,
        said,
    )


def _webhook(interaction: discord.Interaction) -> str:
    return f"{discord.http.Route.BASE}/webhooks/{interaction.application_id}/{interaction.token}"


def _age(interaction: discord.Interaction) -> float:
    return max(0.0, (discord.utils.utcnow() - interaction.created_at).total_seconds())


def _code(said: str) -> int | None:
    try:
        code = json.loads(said).get("code")
    except (ValueError, AttributeError):
        return None
    return code if isinstance(code, int) else None


def _seconds(sent: aiohttp.ClientResponse) -> float:
    try:
        return max(0.0, float(sent.headers.get("Retry-After", "0")))
    except ValueError:
        return 0.0
