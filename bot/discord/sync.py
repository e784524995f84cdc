"""Registering the slash commands with Discord, only when they changed; the invite link.

Discord allows 200 command creates a day per guild, and a global sync takes a while to
reach every client, so the bot never syncs blindly on start: it hashes the payload it would
send (translations included) and syncs only when the hash differs from the one stored with
the last sync (`store.get_meta`). `quizbot discord sync [--guild ID]` syncs on demand.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from bot.service.services import Services

log = logging.getLogger("quizbot.discord")

SCOPES = ("bot", "applications.commands")
PERMISSIONS = discord.Permissions(view_channel=True, send_messages=True, embed_links=True)
"""19456. Replies to commands and clicks need no permission at all (they go through the
interaction webhook), but a question stays open longer than an interaction token lives
(15 minutes), so its count and reveal are edits through the channel, which needs View
Channel. Send Messages and Embed Links are for the daily question, which the bot posts with
no interaction behind it. Read Message History is not needed: the bot edits its own
messages by id and never reads a channel."""


def meta_key(application_id: int) -> str:
    """Per application: a new token for another application must sync again."""
    return f"discord.commands.{application_id}"


async def tree_payload(tree: app_commands.CommandTree) -> list[dict[str, Any]]:
    """What `tree.sync()` sends for the global commands."""
    commands = tree.get_commands()
    translator = tree.translator
    if translator is None:
        return [c.to_dict(tree) for c in commands]
    return [await c.get_translated_payload(tree, translator) for c in commands]


def payload_hash(payload: list[dict[str, Any]]) -> str:
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


async def sync_if_changed(
    tree: app_commands.CommandTree, services: Services, application_id: int
) -> bool:
    """Syncs the global commands if they differ from the last sync; True if it synced."""
    digest = payload_hash(await tree_payload(tree))
    key = meta_key(application_id)
    if await services.state.get_meta(key) == digest:
        log.info("slash commands unchanged since the last sync; not syncing")
        return False
    synced = await tree.sync()
    await services.state.set_meta(key, digest)
    log.info("synced %d slash commands: %s", len(synced), ", ".join(c.name for c in synced))
    return True


def invite_url(application_id: str) -> str:
    """The link that adds the bot to a server, with its slash commands."""
    return discord.utils.oauth_url(application_id, permissions=PERMISSIONS, scopes=SCOPES)


def application_id_from_token(token: str) -> str:
    """The bot's user id, which a bot token starts with (base64); for every application made
    since 2019 it is also the application id the invite link needs."""
    head = token.strip().split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError):
        decoded = ""
    if not decoded.isdigit():
        raise ValueError("DISCORD_TOKEN does not look like a bot token (no application id in it)")
    return decoded
