"""The promise behind every acknowledged click, held the same way on every platform: what a
click stores is committed before the platform is told the click arrived
(`bot.service.intake`). Neither Slack nor Discord sends an acknowledged interaction again, so
an ack before the commit would be an answer a crash could lose.

Each test runs on Slack (real slack-bolt over HTTP, against tests/slack/fake_slack.py) and on
Discord (real discord.py over its gateway, against tests/discord/fake_discord.py), with
payloads shaped as each platform sends them. The store's write is slowed (a commit taking a
second, well within a click's deadline), and the time the platform received the ack (Slack's
HTTP 200, Discord's interaction callback) is held against the time the commit ended.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlencode

import pytest

from bot.domain.review import card_key
from bot.service.ports import QuizStore
from bot.testing.slack_requests import report_submission
from tests.platform.slack.conftest import Slack, make_slack

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "platform" / "discord"))

from discord_harness import ALICE, BotFactory, DiscordBot

from tests.platform.discord.conftest import fake, make_bot

__all__ = ["fake", "make_bot", "make_slack"]  # the platforms' own fixtures, used here

COMMIT = 1.0
"""How long each write takes here, in seconds."""


@dataclass(frozen=True)
class Acked:
    """What the clicker saw: when the platform got the ack (`time.monotonic()`) and the reply
    (or the form's answer)."""

    at: float
    said: str


class Platform(Protocol):
    store: QuizStore

    async def post(self) -> tuple[int, str]:
        """A question posted: its post id and the card key of its question."""
        ...

    async def answer(self, post_id: int) -> Acked:
        """The right choice clicked, as the platform sends the click."""
        ...

    async def report(self, key: str) -> Acked:
        """The "Report a problem" form sent back about `key`, reason `typo`."""
        ...


class OnSlack:
    def __init__(self, slack: Slack) -> None:
        self.slack = slack
        self.store = slack.app.store

    async def post(self) -> tuple[int, str]:
        post_id = await self.slack.post("basics capital", channel="C1", user="UADMIN")
        return post_id, card_key("basics", "capital")

    async def answer(self, post_id: int) -> Acked:
        shown = await self.slack.right_shown(post_id)
        letter = "ABCDE"[shown]
        sent = await self.slack.tester.click(f"quiz_answer_{letter}", f"p:{post_id}:{shown}")
        at = time.monotonic()
        assert sent.status == 200
        reply = await self.slack.fake.reply(sent.key)
        return Acked(at, json.dumps(reply["blocks"], ensure_ascii=False))

    async def report(self, key: str) -> Acked:
        body = urlencode({"payload": json.dumps(report_submission(key, "typo", "", user="U1"))})
        sent = await self.slack.tester.send(body, "application/x-www-form-urlencoded")
        at = time.monotonic()
        assert sent.status == 200
        return Acked(at, sent.body)


class OnDiscord:
    def __init__(self, bot: DiscordBot) -> None:
        self.bot = bot
        self.store = bot.app.store

    async def post(self) -> tuple[int, str]:
        post_id, posted = await self.bot.post(deck="basics", question="bubble")
        self.message_id = posted.message_id
        return post_id, card_key("basics", "bubble")

    async def answer(self, post_id: int) -> Acked:
        assert self.message_id is not None
        right = await self.bot.right_label(post_id)
        record = await self.bot.click(self.message_id, right, by=ALICE)
        reply = await self.bot.reply(record)
        return Acked(record.callbacks[0][0], f"{reply.embed.get('title')}")

    async def report(self, key: str) -> Acked:
        reason = {"type": 3, "custom_id": "reason", "values": ["typo"]}
        payload = self.bot.submit_payload(
            f"quiz:report:{key}", [{"type": 18, "component": reason}], by=ALICE
        )
        record = await self.bot.fake.dispatch_interaction(payload)
        reply = await self.bot.reply(record)
        return Acked(record.callbacks[0][0], reply.text)


Opening = Callable[[], Awaitable[Platform]]


@pytest.fixture(params=["slack", "discord"])
def opening(request: pytest.FixtureRequest) -> Opening:
    """Starts the bot on the platform (each platform's own fixture, torn down by it)."""
    if request.param == "slack":
        make: Callable[[], Awaitable[Slack]] = request.getfixturevalue("make_slack")

        async def on_slack() -> Platform:
            return OnSlack(await make())

        return on_slack
    make_discord: BotFactory = request.getfixturevalue("make_bot")

    async def on_discord() -> Platform:
        return OnDiscord(await make_discord())

    return on_discord


def slowed(store: QuizStore, method: str, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """`store.<method>` taking COMMIT seconds; when each call's commit ended."""
    ended: list[float] = []
    real = getattr(store, method)

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(COMMIT)
        done = await real(*args, **kwargs)
        ended.append(time.monotonic())
        return done

    monkeypatch.setattr(store, method, slow)
    return ended


async def test_an_answer_is_stored_before_the_click_is_acknowledged(
    opening: Opening, monkeypatch: pytest.MonkeyPatch
) -> None:
    platform = await opening()
    post_id, _ = await platform.post()
    committed = slowed(platform.store, "answer_post", monkeypatch)
    clicked = time.monotonic()
    acked = await platform.answer(post_id)
    assert "Right" in acked.said
    (ended,) = committed
    assert clicked + COMMIT <= ended <= acked.at
    assert await platform.store.answer_count(post_id) == 1


async def test_a_problem_report_is_stored_before_the_form_is_acknowledged(
    opening: Opening, monkeypatch: pytest.MonkeyPatch
) -> None:
    platform = await opening()
    _, key = await platform.post()
    committed = slowed(platform.store, "report_problem", monkeypatch)
    sent = time.monotonic()
    acked = await platform.report(key)
    assert "Thank you" in acked.said
    (ended,) = committed
    assert sent + COMMIT <= ended <= acked.at
    (stored,) = await platform.store.problem_reports()
    assert (stored.reason.value, stored.question_id) == ("typo", key_question(key))


def key_question(key: str) -> str:
    return next(q for q in ("capital", "bubble") if card_key("basics", q) == key)
