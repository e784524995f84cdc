"""3. The same through the Discord adapter: INTERACTION_CREATE in over the gateway of the
test server (tests/discord/fake_discord.py, run here), the bot's first interaction callback
(its ack) and its private reply (the callback's message, or the follow-up after a deferral)
out over REST. 200 and 1,000 clicks at once, each by a different member.

The bot runs in a child process (`bench.discord_app quiz`); the baseline is a bare
discord.py client in an identical child (`bench.discord_app bare`) whose every interaction
gets a fixed private message at once: its ack is its reply.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from bench.latency import Burst, burst_figures
from bench.procs import child
from bench.report import ROOT, Figure, failed
from bot.storage.sql import open_store

sys.path.insert(0, str(ROOT / "tests" / "discord"))  # the harness imports its fake by name

import contextlib

from discord_harness import GUILD_1, DiscordBot, Person
from fake_discord import FakeDiscord, Interaction

SECTION = "3 discord"
DECK = "model-pipeline-parallelism"


class TimedFakeDiscord(FakeDiscord):
    def __init__(self, guilds: list[int]) -> None:
        super().__init__(guilds)
        self.followed: dict[str, float] = {}
        """interaction token -> when its first follow-up arrived (monotonic)."""

    async def _followup(self, request: web.Request) -> web.Response:
        self.followed.setdefault(request.match_info["token"], time.monotonic())
        return await super()._followup(request)

    def replied_at(self, record: Interaction) -> float | None:
        if not record.callbacks:
            return None
        at, body = record.callbacks[0]
        if body["type"] in (4, 7):
            return at
        return self.followed.get(record.token)


def _stub_message(fake: FakeDiscord) -> dict[str, Any]:
    """A question message for the bare client (which posts none)."""
    buttons = [
        {"type": 2, "style": 2, "label": c, "custom_id": f"quiz:a:1:{i}"}
        for i, c in enumerate("ABCD")
    ]
    message = fake._message(
        {"content": "Q", "components": [{"type": 1, "components": buttons}]}, "333333333333333333"
    )
    fake.messages[message["id"]] = message
    return message


async def burst(
    bot: DiscordBot, fake: TimedFakeDiscord, message: dict[str, Any], clicks: int, first_person: int
) -> Burst:
    custom_ids = [c["custom_id"] for row in message["components"] for c in row["components"]]
    payloads = [
        bot.click_payload(
            message,
            custom_ids[i % len(custom_ids)],
            by=Person(first_person + i, f"user{first_person + i}"),
        )
        for i in range(clicks)
    ]
    records = await asyncio.gather(*(fake.dispatch_interaction(p) for p in payloads))
    with contextlib.suppress(TimeoutError):
        await fake.until(lambda: all(fake.replied_at(r) is not None for r in records), 60)
    acks = [r.callbacks[0][0] - r.sent_at for r in records if r.callbacks]
    replies = [at - r.sent_at for r in records if (at := fake.replied_at(r)) is not None]
    failures = sum(1 for r in records if fake.replied_at(r) is None)
    return Burst(clicks, acks, replies, failures)


async def run_app(kind: str, sizes: list[int]) -> dict[int, Burst]:
    fake = TimedFakeDiscord([GUILD_1])
    await fake.start()
    folder = Path(tempfile.mkdtemp(prefix="quizbench-discord-"))
    out: dict[int, Burst] = {}
    try:
        async with child("bench.discord_app", kind, fake.api_url, fake.gateway_url, str(folder)):
            bot = DiscordBot(fake, None, None, None)  # type: ignore[arg-type]
            post_id = None
            if kind == "quiz":
                reply = await bot.run("quiz", "post", deck=DECK)
                post_id = int(reply.buttons[0]["custom_id"].split(":")[2])
                assert reply.message_id is not None
                message = fake.messages[reply.message_id]
            else:
                message = _stub_message(fake)
            person = 10_000
            for _ in range(2):  # warm-up
                await burst(bot, fake, message, 20, person)
                person += 20
            for size in sizes:
                await asyncio.sleep(0.5)
                out[size] = await burst(bot, fake, message, size, person)
                person += size
        if post_id is not None:
            store = await open_store(f"sqlite:///{folder / 'quiz.db'}")
            try:
                stored = await store.answer_count(post_id) - 2 * 20
            finally:
                await store.close()
            for b in out.values():
                b.stored = b.clicks if stored == sum(sizes) else stored
    finally:
        await fake.stop()
    return out


async def run(quick: bool) -> list[Figure]:
    sizes = [200, 1000]
    try:
        bare = await run_app("bare", sizes)
        quiz = await run_app("quiz", sizes)
    except Exception as error:
        return [failed(SECTION, "clicks", repr(error))]
    return burst_figures(SECTION, quiz, bare, bare, ack_name="first response")
