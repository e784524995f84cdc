"""`[ops]`: /healthz and /metrics on a listener of their own, here in a Discord-only bot
(which has no HTTP server of its own)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import aiohttp
import pytest

from bot.platforms import run_platforms
from bot.testing.fake_discord import FakeDiscord
from tests.platform.discord.discord_harness import ALICE, DiscordBot, make_app


async def test_a_discord_bot_serves_health_and_metrics_on_the_ops_port(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="quizbot.ops")
    extra = f'api_url = "{fake.api_url}"\ngateway_url = "{fake.gateway_url}"\n\n[ops]\nport = 0\n'
    app = await make_app(tmp_path, extra=extra)
    task = asyncio.create_task(run_platforms(app))
    try:
        await fake.until(lambda: bool(fake.identifies) or task.done())
        [ready] = [r for r in caplog.records if getattr(r, "event", None) == "ops_ready"]
        base = f"http://127.0.0.1:{ready.port}"
        bot = DiscordBot(fake, app, None, task)
        await bot.run("quiz", "help", by=ALICE)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{base}/healthz") as health:
                assert health.status == 200
                assert await health.json() == {"ok": True, "database": True}
            async with http.get(f"{base}/metrics") as metrics:
                assert metrics.status == 200
                body = await metrics.text()
        assert 'quizbot_commands_total{command="help",platform="discord"} 1.0' in body
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await app.close()


async def test_a_busy_ops_port_is_logged_and_the_bot_runs_on(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    taken = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = taken.sockets[0].getsockname()[1]
    extra = (
        f'api_url = "{fake.api_url}"\ngateway_url = "{fake.gateway_url}"\n\n[ops]\nport = {port}\n'
    )
    app = await make_app(tmp_path, extra=extra)
    task = asyncio.create_task(run_platforms(app))
    try:
        await fake.until(lambda: bool(fake.identifies) or task.done())
        assert not task.done()
        assert any("cannot listen on" in r.getMessage() for r in caplog.records)
        reply = await DiscordBot(fake, app, None, task).run("quiz", "help", by=ALICE)
        assert reply.embed["title"] == "quizbot: a question at a time"
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await app.close()
        taken.close()
