"""A child process running a Discord bot against the test server, for latency and memory.

`python -m bench.discord_app quiz API_URL GATEWAY_URL FOLDER [DECKS]`: the real bot (what
`quizbot run` does with `[discord] enabled`: `build_app`, `use_endpoints`, `QuizClient`) on
a SQLite file in FOLDER, with the decks in DECKS (default: questions/).
`python -m bench.discord_app bare ...`: a bare discord.py `AutoShardedClient`, same intents,
that answers every interaction at once with a fixed private message.

Prints `READY` once the client is ready (every guild received), serves until stdin closes;
answers `bench.heap`'s commands on stdin. `QUIZBOT_BENCH_DATABASE_URL`: as in `bench.slack_app`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from dataclasses import astuple
from pathlib import Path

import discord

from bench.heap import Heap
from bench.procs import database_url, stdin_closed
from bench.report import ROOT
from bot.bootstrap import build_app, settle_heap
from bot.config import parse_config
from bot.discord.client import INTENTS, QuizClient
from bot.discord.fastpath import use_endpoints
from bot.observability.logs import configure
from bot.testing.fake_discord import TOKEN


class BareClient(discord.AutoShardedClient):
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Right!", ephemeral=True)


async def main(kind: str, api_url: str, gateway_url: str, folder: Path, decks: Path) -> None:
    logging.basicConfig(level=logging.WARNING)
    text = f"""
[ops]
enabled = false

[database]
url = "{database_url(folder)}"

[questions]
paths = ["{decks}"]
shipped = false

[discord]
enabled = true
api_url = "{api_url}"
gateway_url = "{gateway_url}"
"""
    config = parse_config(text, "bench.toml", folder, {"DISCORD_TOKEN": TOKEN})
    use_endpoints(config.file.discord)
    app = None
    client: discord.AutoShardedClient
    if kind == "quiz":
        # Logs as `quizbot run` writes them (a JSON line per click): that is part of the cost.
        configure("INFO", astuple(config.secrets), json_lines=True)
        app = await build_app(config)
        settle_heap()  # as `quizbot run` does
        client = QuizClient(app.services)
    else:
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        client = BareClient(
            intents=INTENTS, allowed_mentions=discord.AllowedMentions.none(), max_messages=None
        )
    task = asyncio.create_task(client.start(TOKEN))
    games = (
        asyncio.create_task(app.services.games.run()) if app is not None else None
    )  # as `quizbot run`
    try:
        while not client.is_ready():  # wait_until_ready() refuses before login
            if task.done():
                task.result()
                raise RuntimeError("the client stopped before it was ready")
            await asyncio.sleep(0.05)
        print(f"READY {len(client.guilds)}", flush=True)
        await stdin_closed(Heap().answer)
    finally:
        if games is not None:
            games.cancel()
        await client.close()
        await asyncio.wait_for(task, 10)
        if app is not None:
            await app.close()


if __name__ == "__main__":
    decks = Path(sys.argv[5]) if len(sys.argv) > 5 else ROOT / "questions"
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4]), decks))
