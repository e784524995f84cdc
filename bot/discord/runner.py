"""`quizbot run` with `[discord] enabled`: the bot until it is cancelled; and
`quizbot discord sync`, the slash commands synced now."""

from __future__ import annotations

import discord

from bot.config import Config, SetupError
from bot.discord.client import QuizClient, login, login_token, use_endpoints
from bot.discord.sync import meta_key, payload_hash, tree_payload
from bot.service.services import Services


def check_setup(config: Config) -> None:
    """Raises SetupError before anything starts when the Discord token is missing."""
    if not config.secrets.discord_token:
        raise SetupError(
            "[discord] enabled = true needs DISCORD_TOKEN in the environment "
            "(Developer Portal -> your application -> Bot -> Reset Token)"
        )


async def run_discord(services: Services) -> None:
    """Logs in, syncs the commands if they changed, and serves until cancelled."""
    token = login_token(services)
    use_endpoints(services.config.file.discord)
    client = QuizClient(services)
    try:
        await login(client, token)
        await client.connect()
    finally:
        await client.close()


async def sync_commands(services: Services, guild_id: int | None) -> str:
    """`quizbot discord sync [--guild ID]`: logs in over REST (no gateway) and syncs now.

    A guild sync shows up at once (for trying changes); the commands are then there twice
    in that guild until the guild's copy is cleared with a guild sync of an empty tree.
    """
    use_endpoints(services.config.file.discord)
    client = QuizClient(services, auto_sync=False)
    async with client:
        await login(client, login_token(services))
        assert client.application_id is not None  # login fetched the application
        if guild_id is None:
            synced = await client.tree.sync()
            await services.set_meta(
                meta_key(client.application_id), payload_hash(await tree_payload(client.tree))
            )
            where = "globally (reload Discord with Ctrl+R if they do not show yet)"
        else:
            guild = discord.Object(id=guild_id)
            client.tree.copy_global_to(guild=guild)
            synced = await client.tree.sync(guild=guild)
            where = f"to guild {guild_id}"
    names = ", ".join(f"/{c.name}" for c in synced)
    return f"Synced {len(synced)} commands {where}: {names}"
