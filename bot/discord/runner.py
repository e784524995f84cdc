"""`quizbot run` with `[discord] enabled`: the bot until it is cancelled; and
`quizbot discord sync`, the slash commands synced now."""

from __future__ import annotations

import re

import discord

from bot.config import Config, SetupError
from bot.discord.client import QuizClient, login, login_token
from bot.discord.fastpath import use_endpoints
from bot.discord.sync import application_id_from_token, meta_key, payload_hash, tree_payload
from bot.service.services import Services


def check_setup(config: Config) -> None:
    """Raises SetupError before anything starts when the Discord token is missing, or is not
    shaped as a bot token (a client secret, a public key or a "Bot " prefix pasted instead):
    said here in a sentence naming the variable, not by Discord as a 401 after a connect."""
    token = config.secrets.discord_token
    if not token:
        raise SetupError(
            "[discord] enabled = true needs DISCORD_TOKEN in the environment "
            "(Developer Portal -> your application -> Bot -> Reset Token)"
        )
    problem = token_problem(token)
    if problem:
        raise SetupError(problem)


TOKEN_PART = re.compile(r"[A-Za-z0-9_-]+")


def token_problem(token: str) -> str | None:
    """What is wrong with the shape of DISCORD_TOKEN, in a sentence; None when it looks like
    a bot token: three base64 parts separated by dots, the first the bot's id."""
    where = "copy the bot's token from Developer Portal -> your application -> Bot -> Reset Token"
    if token.lower().startswith("bot "):
        return f'DISCORD_TOKEN starts with "Bot ": set the token alone, without it ({where})'
    parts = token.split(".")
    try:
        shaped = len(parts) == 3 and all(TOKEN_PART.fullmatch(p) for p in parts)
        shaped = shaped and bool(application_id_from_token(token))
    except ValueError:
        shaped = False
    if shaped:
        return None
    return (
        "DISCORD_TOKEN does not look like a Discord bot token (three parts separated by dots, "
        f"the first the bot's id; not the client secret or the public key): {where}"
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
            await services.state.set_meta(
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
