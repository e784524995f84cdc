"""The bot as `quizbot run` in a subprocess, on each way a click can reach it: Slack over
HTTP, Slack over Socket Mode, Discord over its gateway, each against the local fake of that
platform in this process.

A `Transport` posts the reliability deck's question, sends one click and tells what the
clicker saw: whether the click was acknowledged (Slack's HTTP 200, the Socket Mode ack of
its envelope, any Discord interaction callback), the private reply, and the "N answered"
count on the public question.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bot.testing.fake_slack import APP_TOKEN
from bot.testing.slack_requests import SlackTester
from tests.reliability.conftest import (
    DECK,
    LETTERS,
    QUESTION,
    BotProcess,
    Database,
    FaultySlack,
    eventually,
    post_id_of,
    reply_text,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "platform" / "discord"))

from discord_harness import GUILD_1, DiscordBot, Person

from bot.testing.fake_discord import TOKEN as DISCORD_TOKEN
from bot.testing.fake_discord import FakeDiscord, Interaction

ANSWERED = re.compile(r"(\d+) answered")


@dataclass
class Click:
    """One person's click and what became of it."""

    user: str
    shown: int
    key: str
    sent_at: float = 0.0
    acked: bool = False
    """Acknowledged, as the platform would have told the clicker the click arrived."""
    record: Any = None
    """The platform's own record of it (a Discord `Interaction`)."""


class Transport:
    """One platform's way in; subclasses fill in the four verbs."""

    name = ""

    def __init__(self, folder: Path, decks: Path) -> None:
        self.folder = folder
        self.decks = decks
        self.bot: BotProcess | None = None
        self.post_id = 0

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    def process(self, db: Database) -> BotProcess:
        raise NotImplementedError

    async def start(self, db: Database) -> BotProcess:
        self.bot = self.process(db)
        await self.bot.start()
        return self.bot

    async def post(self) -> int:
        raise NotImplementedError

    async def click(self, shot: Click) -> None:
        raise NotImplementedError

    def reply(self, shot: Click) -> str | None:
        raise NotImplementedError

    def shown_count(self) -> int | None:
        """The "N answered" the channel sees on the question now."""
        raise NotImplementedError

    def stored_as(self, shot: Click) -> str:
        """The user id the clicker's answers are stored under."""
        return shot.user


class SlackHttp(Transport):
    name = "slack-http"

    async def open(self) -> None:
        self.fake = FaultySlack()
        await self.fake.start()
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=60)
        )

    async def close(self) -> None:
        await self.session.close()
        await self.fake.stop()

    def process(self, db: Database) -> BotProcess:
        folder = self.folder / uuid.uuid4().hex[:8]
        return BotProcess(folder, self.fake.api_url, self.decks, db=db)

    @property
    def tester(self) -> SlackTester:
        assert self.bot is not None
        return SlackTester(self.bot.events_url, self.fake, self.session)

    async def post(self) -> int:
        before = len(self.fake.successful("chat.postMessage"))
        await self.send_command(f"post {DECK} {QUESTION}")
        await eventually(lambda: len(self.fake.successful("chat.postMessage")) > before)
        self.message = self.fake.successful("chat.postMessage")[-1]
        self.post_id = post_id_of(self.message.params)
        return self.post_id

    async def send_command(self, text: str) -> None:
        assert (await self.tester.command(text)).status == 200

    def payload(self, shot: Click) -> dict[str, Any]:
        return self.tester.action_payload(
            f"quiz_answer_{LETTERS[shot.shown]}",
            f"p:{self.post_id}:{shot.shown}",
            user=shot.user,
            key=shot.key,
        )

    async def click(self, shot: Click) -> None:
        body = urlencode({"payload": json.dumps(self.payload(shot))})
        with contextlib.suppress(aiohttp.ClientError, TimeoutError):
            sent = await self.tester.send(body, "application/x-www-form-urlencoded", key=shot.key)
            shot.acked = sent.status == 200

    def reply(self, shot: Click) -> str | None:
        replies = self.fake.replies(shot.key)
        return reply_text(replies[0]) if replies else None

    def shown_count(self) -> int | None:
        ts = self.message.answer["ts"] if self.message.answer else None
        updates = [c for c in self.fake.successful("chat.update") if c.params.get("ts") == ts]
        if not updates:
            return 0
        found = ANSWERED.search(json.dumps(updates[-1].params["blocks"]))
        return int(found[1]) if found else None


class SlackSocket(SlackHttp):
    name = "slack-socket"

    def process(self, db: Database) -> BotProcess:
        folder = self.folder / uuid.uuid4().hex[:8]
        return BotProcess(
            folder,
            self.fake.api_url,
            self.decks,
            db=db,
            mode="socket",
            env={"SLACK_APP_TOKEN": APP_TOKEN},
            ready="Slack Socket Mode connected",
        )

    async def start(self, db: Database) -> BotProcess:
        connections = len(self.fake.api("apps.connections.open"))
        bot = await super().start(db)
        await self.fake.until(lambda: len(self.fake.api("apps.connections.open")) > connections, 30)
        await self.fake.until(lambda: bool(self.fake._sockets), 30)
        return bot

    async def send_command(self, text: str) -> None:
        key = self.tester.new_key()
        payload = {
            "token": "verification",
            "team_id": "T1",
            "team_domain": "t1",
            "channel_id": "C1",
            "channel_name": "general",
            "user_id": "U1",
            "user_name": "u1",
            "command": "/quiz",
            "text": text,
            "api_app_id": "A1",
            "is_enterprise_install": "false",
            "response_url": self.fake.response_url(key),
            "trigger_id": "1.2.3",
        }
        envelope = f"cmd-{key}"
        await self.fake.socket_send(
            {
                "envelope_id": envelope,
                "type": "slash_commands",
                "accepts_response_payload": True,
                "payload": payload,
            }
        )
        await self.fake.until(lambda: self._acked(envelope), 10)

    def _acked(self, envelope: str) -> bool:
        return any(m.get("envelope_id") == envelope for m in self.fake.socket_received)

    async def click(self, shot: Click) -> None:
        with contextlib.suppress(Exception):  # the socket is gone when the bot is killed
            await self.fake.socket_send(
                {
                    "envelope_id": f"env-{shot.key}",
                    "type": "interactive",
                    "accepts_response_payload": False,
                    "payload": self.payload(shot),
                }
            )

    def settle_acks(self, shots: list[Click]) -> None:
        acked = {m.get("envelope_id") for m in self.fake.socket_received}
        for shot in shots:
            shot.acked = f"env-{shot.key}" in acked


class DiscordGateway(Transport):
    name = "discord"

    async def open(self) -> None:
        self.fake = FakeDiscord([GUILD_1])
        await self.fake.start()
        self.harness = DiscordBot(self.fake, None, None, None)  # type: ignore[arg-type]

    async def close(self) -> None:
        await self.fake.stop()

    def process(self, db: Database) -> BotProcess:
        folder = self.folder / uuid.uuid4().hex[:8]
        return BotProcess(
            folder,
            "",
            self.decks,
            db=db,
            env={"DISCORD_TOKEN": DISCORD_TOKEN},
            discord_urls=(self.fake.api_url, self.fake.gateway_url),
            ready=self._readied(),
        )

    def _readied(self) -> Callable[[], bool]:
        """Ready once the fake has sent the new connection READY and its guilds, as the
        platform tests wait (not for the bot's `on_ready`, which discord.py holds back 2 s)."""
        seen = self.fake.readied
        return lambda: self.fake.readied > seen

    async def post(self) -> int:
        reply = await self.harness.run("quiz", "post", deck=DECK, question=QUESTION)
        assert reply.message_id is not None, reply
        self.message_id = reply.message_id
        self.post_id = int(reply.buttons[0]["custom_id"].split(":")[2])
        return self.post_id

    async def click(self, shot: Click) -> None:
        message = self.fake.messages[self.message_id]
        payload = self.harness.click_payload(
            message, f"quiz:a:{self.post_id}:{shot.shown}", by=Person(_snowflake(shot), shot.user)
        )
        shot.record = await self.fake.dispatch_interaction(payload)

    def settle_acks(self, shots: list[Click]) -> None:
        for shot in shots:
            record: Interaction | None = shot.record
            shot.acked = record is not None and bool(record.callbacks)

    def reply(self, shot: Click) -> str | None:
        record: Interaction | None = shot.record
        if record is None or not record.callbacks:
            return None
        data = record.callbacks[0][1].get("data") or {}
        parts = [data.get("content") or ""] + [
            f"{e.get('title', '')}\n{e.get('description', '')}" for e in data.get("embeds", [])
        ]
        return "\n".join(parts)

    def stored_as(self, shot: Click) -> str:
        return str(_snowflake(shot))

    def shown_count(self) -> int | None:
        footer = self.fake.messages[self.message_id]["embeds"][0].get("footer", {}).get("text", "")
        found = ANSWERED.search(footer)
        return int(found[1]) if found else 0


def _snowflake(shot: Click) -> int:
    return 500_000 + int(shot.user.removeprefix("U"))


TRANSPORTS = {t.name: t for t in (SlackHttp, SlackSocket, DiscordGateway)}


@dataclass
class Paced:
    """Clicks sent at a steady rate (`per_second`), each without waiting for the one before,
    until all are sent or `stop` is set (the bot is gone)."""

    transport: Transport
    shots: list[Click]
    per_second: float
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        started = time.monotonic()
        tasks = []
        for i, shot in enumerate(self.shots):
            delay = started + i / self.per_second - time.monotonic()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), delay)
            if self.stop.is_set():
                break
            shot.sent_at = time.monotonic()
            tasks.append(asyncio.create_task(self.transport.click(shot)))
        sent = asyncio.gather(*tasks, return_exceptions=True)
        stopped = asyncio.create_task(self.stop.wait())
        await asyncio.wait({sent, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if not sent.done():
            # The bot has exited: what was on the wire lands within a moment, and a click still
            # waiting for it (a Socket Mode envelope waits up to 60 s for a connection) never
            # reaches it; it counts as not acknowledged, as it is.
            await asyncio.wait(tasks, timeout=1.0)
            sent.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sent
        stopped.cancel()
