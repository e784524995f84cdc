"""The soak's hands on each platform: post a question, have many people click it, close it,
through the real bot in a child process and the test suite's fake Slack or Discord.

Each driver keeps the fake platform's own records short (it keeps every call for tests), so
the load generator stays as fast at the end of a long run as at its start.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlencode

import aiohttp
from slack_sdk.signature import SignatureVerifier

from bench.discord_bench import TimedFakeDiscord
from bench.procs import Child, child
from bench.slack_bench import Wire
from bot.testing.discord_users import GUILD_1, DiscordUsers, Person
from bot.testing.fake_slack import FakeSlack
from bot.testing.slack_requests import SIGNING_SECRET, SlackTester, buttons

DECK = "model-pipeline-parallelism"
CHUNK = 100
"""Clicks in flight at once: a burst, as when a channel answers together (small enough
that on a busy 2-core machine none waits past the bot's deadline and is refused)."""
QUIET = 5.0
"""Seconds without a new reply after which a chunk's missing replies are given up on."""


class Driver(Protocol):
    proc: Child

    async def post(self, poster: int) -> Any:
        """Posts a question as `poster`; a handle on it."""
        ...

    async def click(self, post: Any, people: list[int]) -> int:
        """Each person clicks the post (the same person twice is a duplicate); how many
        were answered (Slack: acknowledged)."""
        ...

    async def close(self, post: Any, poster: int) -> None: ...


async def heap(proc: Child, command: str) -> dict[str, Any]:
    """A heap reading from the bot (`bench.heap`)."""
    await proc.say(command)
    while True:
        line = await proc.line(120)
        if line.startswith("HEAP "):
            return dict(json.loads(line.removeprefix("HEAP ")))


async def _settled(count: Callable[[], int], expected: int) -> None:
    """Waits until `count()` reaches `expected`, or stops growing for `QUIET` seconds (a
    click refused as busy is answered in its ack, not by a reply)."""
    seen, since = -1, time.monotonic()
    while (now := count()) < expected:
        if now != seen:
            seen, since = now, time.monotonic()
        elif time.monotonic() - since > QUIET:
            return
        await asyncio.sleep(0.05)


def _env(database: str | None) -> dict[str, str]:
    return {} if database is None else {"QUIZBOT_BENCH_DATABASE_URL": database}


@dataclass
class SlackPost:
    ts: str
    choices: list[dict[str, Any]]


class SlackDriver:
    def __init__(self, proc: Child, fake: FakeSlack, tester: SlackTester, wire: Wire) -> None:
        self.proc = proc
        self.fake = fake
        self.tester = tester
        self.wire = wire
        self.verifier = SignatureVerifier(SIGNING_SECRET)

    async def post(self, poster: int) -> SlackPost:
        self.fake.calls.clear()
        self.fake.responses.clear()
        sent = await self.tester.command(f"post {DECK}", user=f"U{poster}")
        assert sent.status == 200, sent
        await self.fake.until(lambda: bool(self.fake.api("chat.postMessage")), 30)
        call = self.fake.api("chat.postMessage")[-1]
        await self.fake.until(lambda: call.answer is not None, 30)
        assert call.answer is not None
        return SlackPost(call.answer["ts"], buttons(call.params["blocks"]))

    async def click(self, post: SlackPost, people: list[int]) -> int:
        answered = 0
        for start in range(0, len(people), CHUNK):
            answered += await self._chunk(post, people[start : start + CHUNK])
        return answered

    async def _chunk(self, post: SlackPost, people: list[int]) -> int:
        self.fake.responses.clear()
        requests = []
        for i, person in enumerate(people):
            key = self.tester.new_key()
            button = post.choices[(person + i) % len(post.choices)]
            payload = self.tester.action_payload(
                button["action_id"],
                button["value"],
                user=f"U{person}",
                key=key,
                message_ts=post.ts,
            )
            body = urlencode({"payload": json.dumps(payload)})
            stamp = str(int(time.time()))
            headers = {
                "Content-Type": "application/x-www-form-urlencoded",
                "X-Slack-Request-Timestamp": stamp,
                "X-Slack-Signature": self.verifier.generate_signature(timestamp=stamp, body=body),
            }
            requests.append(self.wire.request(body, headers))
        await self.wire.open(len(requests))
        results = await asyncio.gather(*(self.wire.post(r) for r in requests))
        acked = sum(1 for _, _, status in results if status == 200)
        await _settled(lambda: len(self.fake.responses), acked)
        return acked  # a click refused as busy is told so in its ack

    async def close(self, post: SlackPost, poster: int) -> None:
        self.fake.calls.clear()
        sent = await self.tester.command("close", user=f"U{poster}")
        assert sent.status == 200, sent

        def revealed() -> bool:
            return any(
                c.params.get("ts") == post.ts and not buttons(c.params.get("blocks") or [])
                for c in self.fake.api("chat.update")
            )

        await self.fake.until(revealed, 30)


@asynccontextmanager
async def slack(folder: Path, database: str | None) -> AsyncIterator[SlackDriver]:
    fake = FakeSlack()
    await fake.start()
    try:
        async with (
            child(
                "bench.slack_app",
                "quiz",
                fake.api_url,
                str(folder),
                log=folder / "bot.log",
                env=_env(database),
            ) as proc,
            aiohttp.ClientSession() as session,
        ):
            url = f"http://127.0.0.1:{proc.ready}/slack/events"
            wire = Wire(url)
            try:
                yield SlackDriver(proc, fake, SlackTester(url, fake, session), wire)
            finally:
                await wire.close()
    finally:
        await fake.stop()


@dataclass
class DiscordPost:
    message: dict[str, Any]
    custom_ids: list[str]


class DiscordDriver:
    def __init__(self, proc: Child, fake: TimedFakeDiscord) -> None:
        self.proc = proc
        self.fake = fake
        self.bot = DiscordUsers(fake)

    def _forget(self) -> None:
        """The test server keeps every call, interaction and dispatch; a soak needs none."""
        self.fake.calls.clear()
        self.fake.interactions.clear()
        self.fake.channel_edits.clear()
        self.fake.followed.clear()
        for session in self.fake.gateway_sessions.values():
            frames = session.dispatches
            for i in range(max(0, len(frames) - 10)):
                frames[i] = {}  # kept in place: a frame's index is its sequence number

    async def post(self, poster: int) -> DiscordPost:
        self._forget()
        self.fake.messages.clear()
        reply = await self.bot.run("quiz", "post", deck=DECK, by=Person(poster, f"p{poster}"))
        assert reply.message_id is not None, reply
        message = self.fake.messages[reply.message_id]
        ids = [c["custom_id"] for row in message["components"] for c in row["components"]]
        return DiscordPost(message, ids)

    async def click(self, post: DiscordPost, people: list[int]) -> int:
        answered = 0
        for start in range(0, len(people), CHUNK):
            answered += await self._chunk(post, people[start : start + CHUNK])
        return answered

    async def _chunk(self, post: DiscordPost, people: list[int]) -> int:
        self._forget()
        payloads = [
            self.bot.click_payload(
                post.message,
                post.custom_ids[(person + i) % len(post.custom_ids)],
                by=Person(person, f"user{person}"),
            )
            for i, person in enumerate(people)
        ]
        records = await asyncio.gather(*(self.fake.dispatch_interaction(p) for p in payloads))

        def answered() -> int:
            return sum(1 for r in records if self.fake.replied_at(r) is not None)

        await _settled(answered, len(records))
        return answered()

    async def close(self, post: DiscordPost, poster: int) -> None:
        self._forget()
        await self.bot.run("quiz", "close", by=Person(poster, f"p{poster}"))


@asynccontextmanager
async def discord(folder: Path, database: str | None) -> AsyncIterator[DiscordDriver]:
    fake = TimedFakeDiscord([GUILD_1])
    await fake.start()
    try:
        async with child(
            "bench.discord_app",
            "quiz",
            fake.api_url,
            fake.gateway_url,
            str(folder),
            log=folder / "bot.log",
            env=_env(database),
        ) as proc:
            yield DiscordDriver(proc, fake)
    finally:
        await fake.stop()
