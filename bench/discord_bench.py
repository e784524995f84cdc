"""3. The same through the Discord adapter: INTERACTION_CREATE in over the gateway of the
test server (bot/testing/fake_discord.py, run here), the bot's first interaction callback
(its ack) and its private reply (the callback's message, or the follow-up after a deferral)
out over REST. 200 and 1,000 clicks at once, each by a different member.

The bot runs in a child process (`bench.discord_app quiz`); the baseline is a bare
discord.py client in an identical child (`bench.discord_app bare`) whose every interaction
gets a fixed private message at once: its ack is its reply. The two run side by side and
take their bursts in turns, so a figure and its baseline are measured seconds apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from bench.latency import Burst, answers_stored, burst_figures, take_turns
from bench.procs import child
from bench.report import Figure, failed
from bot.testing.discord_users import GUILD_1, DiscordUsers, Person
from bot.testing.fake_discord import FakeDiscord, Interaction

SECTION = "3 discord"
DECK = "model-pipeline-parallelism"


class TimedFakeDiscord(FakeDiscord):
    def __init__(self, guilds: list[int]) -> None:
        super().__init__(guilds)
        self.followed: dict[str, float] = {}
        """interaction token -> when its first follow-up arrived (monotonic)."""
        self._unanswered: set[str] = set()
        self._answered = asyncio.Event()

    def expect(self, tokens: list[str]) -> None:
        """The interactions of the next burst, whose replies `answered` waits for."""
        self._unanswered = set(tokens)
        self._answered.clear()

    async def answered(self, within: float) -> None:
        """Waits until every interaction expected has its private reply, or `within`
        seconds. The test server's own `until` re-checks every click after each request (n
        squared checks a burst, in the load generator that shares the apps' two cores);
        this counts them off as they arrive."""
        await asyncio.wait_for(self._answered.wait(), within)

    def _counted(self, token: str) -> None:
        if token in self._unanswered and self.replied_at(self.interactions[token]) is not None:
            self._unanswered.discard(token)
            if not self._unanswered:
                self._answered.set()

    async def _callback(self, request: web.Request) -> web.Response:
        response = await super()._callback(request)
        self._counted(request.match_info["token"])
        return response

    async def _followup(self, request: web.Request) -> web.Response:
        self.followed.setdefault(request.match_info["token"], time.monotonic())
        response = await super()._followup(request)
        self._counted(request.match_info["token"])
        return response

    def replied_at(self, record: Interaction) -> float | None:
        if not record.callbacks:
            return None
        at, body = record.callbacks[0]
        if body["type"] in (4, 7):
            return at
        return self.followed.get(record.token)


def _copied_message(fake: FakeDiscord, question: dict[str, Any]) -> dict[str, Any]:
    """The quiz's question message, as the bare client's test server holds it: the bare
    client's clicks carry the same message (its embed and buttons), so discord.py parses the
    same payload for both."""
    message = fake._message(
        {
            "content": question.get("content"),
            "embeds": question.get("embeds", []),
            "components": question["components"],
        },
        "333333333333333333",
    )
    fake.messages[message["id"]] = message
    return message


async def burst(
    bot: DiscordUsers,
    fake: TimedFakeDiscord,
    message: dict[str, Any],
    clicks: int,
    first_person: int,
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
    fake.expect([p["token"] for p in payloads])
    records = await asyncio.gather(*(fake.dispatch_interaction(p) for p in payloads))
    with contextlib.suppress(TimeoutError):
        await fake.answered(60)
    acks = [r.callbacks[0][0] - r.sent_at for r in records if r.callbacks]
    replies = [at - r.sent_at for r in records if (at := fake.replied_at(r)) is not None]
    failures = sum(1 for r in records if fake.replied_at(r) is None)
    return Burst(clicks, acks, replies, failures)


@dataclass
class Target:
    """One client under load: its child process, the test server it talks to, a question."""

    kind: str
    fake: TimedFakeDiscord
    bot: DiscordUsers
    message: dict[str, Any]
    post_id: int | None
    folder: Path
    person: int = 10_000

    async def burst(self, clicks: int, tag: str = "") -> Burst:
        self.person += clicks
        return await burst(self.bot, self.fake, self.message, clicks, self.person - clicks)

    async def stored(self) -> int | None:
        return await answers_stored(self.folder, self.post_id)


@asynccontextmanager
async def started(kind: str, question: dict[str, Any] | None = None) -> AsyncIterator[Target]:
    """`question`: for the bare client, the quiz's question message its clicks are on."""
    fake = TimedFakeDiscord([GUILD_1])
    await fake.start()
    folder = Path(tempfile.mkdtemp(prefix="quizbench-discord-"))
    try:
        async with child(
            "bench.discord_app",
            kind,
            fake.api_url,
            fake.gateway_url,
            str(folder),
            log=folder / "bot.log",
        ):
            bot = DiscordUsers(fake)
            post_id = None
            if kind == "quiz":
                reply = await bot.run("quiz", "post", deck=DECK)
                post_id = int(reply.buttons[0]["custom_id"].split(":")[2])
                assert reply.message_id is not None
                message = fake.messages[reply.message_id]
            else:
                assert question is not None
                message = _copied_message(fake, question)
            yield Target(kind, fake, bot, message, post_id, folder)
    finally:
        await fake.stop()


WARM_UP = 20


async def run_apps(sizes: list[int]) -> dict[str, dict[int, Burst]]:
    async with AsyncExitStack() as stack:
        quiz = await stack.enter_async_context(started("quiz"))
        bare = await stack.enter_async_context(started("bare", quiz.message))
        return await take_turns([bare, quiz], sizes, WARM_UP)


async def run(quick: bool) -> list[Figure]:
    sizes = [200, 1000]
    try:
        out = await run_apps(sizes)
    except Exception as error:
        return [failed(SECTION, "clicks", repr(error))]
    return burst_figures(SECTION, out["quiz"], out["bare"], out["bare"], ack_name="first response")
