"""The real discord.py client against a local Discord (fake_discord.py) over loopback.

`make_bot()` starts a bot: an App on a SQLite file in the test's folder and a `QuizClient`
that logs in over the fake's REST API and connects to its gateway (discord.http.Route.BASE
and DiscordWebSocket.DEFAULT_GATEWAY point there). After each test, every message the bot
sent or edited is checked against Discord's limits, and for `allowed_mentions:
{"parse": []}` (mentions never ping).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import discord
import pytest
import yarl
from discord_harness import (
    GUILD_1,
    GUILD_2,
    BotFactory,
    DiscordBot,
    check_limits,
    make_app,
)
from fake_discord import TOKEN, FakeDiscord

from bot.decks.model import DeckLibrary
from bot.discord.client import QuizClient
from bot.domain.clock import Clock


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord([GUILD_1, GUILD_2])
    await server.start()
    monkeypatch.setattr(discord.http.Route, "BASE", server.api_url)
    monkeypatch.setattr(
        discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(server.gateway_url)
    )
    yield server
    check_limits(server)
    await server.stop()


@pytest.fixture
async def make_bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[BotFactory]:
    running: list[DiscordBot] = []

    async def make(
        *,
        db: str = "quiz.db",
        decks: DeckLibrary | None = None,
        shard_count: int | None = None,
        shard_ids: list[int] | None = None,
        refresh_interval: float = 0.3,
        prepare: Callable[[QuizClient], None] | None = None,
        clock: Clock | None = None,
    ) -> DiscordBot:
        app = await make_app(
            tmp_path,
            db=db,
            decks=decks,
            shard_count=shard_count,
            shard_ids=shard_ids,
            clock=clock,
        )
        client = QuizClient(app.services, refresh_interval=refresh_interval)
        if prepare is not None:
            prepare(client)
        seen = len(fake.identifies)
        task = asyncio.create_task(client.start(TOKEN))
        await fake.until(lambda: len(fake.identifies) > seen or task.done())
        assert not task.done(), task.exception()
        bot = DiscordBot(fake, app, client, task)
        running.append(bot)
        return bot

    yield make
    for bot in running:
        if not bot.task.done():
            await bot.stop()


@pytest.fixture
async def bot(make_bot: BotFactory) -> DiscordBot:
    return await make_bot()
