"""The real slack-bolt app served over HTTP on loopback, against a local fake of Slack.

`slack` is one workspace with a bot token in HTTP mode; `make_slack(...)` builds others
(OAuth distribution, Socket Mode). After each test, every Block Kit payload the app sent is
parsed back with slack_sdk's block models, which check Slack's limits.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from slack_sdk.models.blocks import Block

from bot.bootstrap import App, build_app
from bot.config import parse_config
from bot.decks.loading import load_decks
from bot.decks.model import Choice, Deck, DeckLibrary, Question
from bot.domain.clock import Clock
from bot.slack.app import SlackBot, build_slack
from bot.slack.http import EVENTS_PATH, web_app
from tests.slack.fake_slack import APP_TOKEN, BOT_TOKEN, FakeSlack
from tests.slack.harness import SIGNING_SECRET, SlackTester

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"
TEST_DECK = "basics"  # sorts first: the UI default is its first locale, en
SEED_DECK = "model-pipeline-parallelism"
TOKEN_KEY = "cXVpemJvdC10ZXN0cy10b2tlbi1rZXktMzItYnl0ZXM="
"""QUIZBOT_TOKEN_KEY of OAuth distribution in tests: fixed, as this module may be imported
twice (as pytest's conftest and as tests.slack.conftest)."""


def _q(qid: str, position: int, en: str, bn: str, choices: list[Choice], answer: int) -> Question:
    return Question(
        id=qid,
        text={"en": en, "bn": bn},
        choices=tuple(choices),
        answer=answer,
        explanation={"en": f"Explanation of {qid}.", "bn": f"{qid}-এর ব্যাখ্যা।"},
        position=position,
    )


def team_deck() -> Deck:
    """Three questions in English and Bengali; deck text carries mrkdwn to be escaped."""
    questions = (
        _q(
            "capital",
            1,
            "Which city is the capital of France? <!channel> & <@U999>",
            "ফ্রান্সের রাজধানী কোন শহর?",
            [
                Choice({"en": "Paris", "bn": "প্যারিস"}),
                Choice(
                    {"en": "Lyon", "bn": "লিয়ঁ"},
                    why={"en": "Lyon is the third city of France.", "bn": "লিয়ঁ তৃতীয় বড় শহর।"},
                ),
                Choice(
                    {"en": "Marseille", "bn": "মার্সেই"},
                    why={"en": "Marseille is a port.", "bn": "মার্সেই একটা বন্দর।"},
                ),
            ],
            0,
        ),
        _q(
            "sum",
            2,
            "2 + 2 = ?",
            "২ + ২ = ?",
            [
                Choice({"en": "3", "bn": "৩"}, why={"en": "One short.", "bn": "একটা কম।"}),
                Choice({"en": "4", "bn": "৪"}),
                Choice({"en": "5", "bn": "৫"}),
            ],
            1,
        ),
        _q(
            "sky",
            3,
            "What colour is a clear daytime sky?",
            "দিনের পরিষ্কার আকাশের রং কী?",
            [Choice({"en": "Blue", "bn": "নীল"}), Choice({"en": "Green", "bn": "সবুজ"})],
            0,
        ),
    )
    return Deck(
        id=TEST_DECK,
        title={"en": "Team <Quiz> & Co", "bn": "টিম কুইজ"},
        locales=("en", "bn"),
        questions=questions,
    )


def library() -> DeckLibrary:
    report = load_decks([QUESTIONS])
    assert report.ok, report.problems
    return DeckLibrary([team_deck(), *report.decks])


@dataclass
class Slack:
    fake: FakeSlack
    app: App
    bot: SlackBot
    tester: SlackTester
    url: str

    async def post_id(self) -> int:
        """The id of the newest post (the one just made)."""
        message = self.fake.api("chat.postMessage")[-1]
        value = next(
            e["value"]
            for b in message.params["blocks"]
            if b["type"] == "actions"
            for e in b["elements"]
        )
        return int(value.split(":")[1])

    async def post(self, text: str, **kwargs: Any) -> int:
        """Sends `/quiz post ...` and waits for its message to be sent and stored; its post id."""
        before = len(self.fake.api("chat.postMessage"))
        sent = await self.tester.command(f"post {text}", **kwargs)
        assert sent.status == 200
        await self.fake.until(lambda: len(self.fake.api("chat.postMessage")) > before)
        post_id = await self.post_id()
        await eventually(lambda: self._has_message(post_id))
        return post_id

    async def _has_message(self, post_id: int) -> bool:
        post = await self.app.store.post(post_id)
        return post is not None and post.message_ref is not None

    async def right_shown(self, post_id: int) -> int:
        post = await self.app.store.post(post_id)
        assert post is not None
        deck = self.app.services.catalog.decks.get(post.deck_id)
        assert deck is not None
        question = deck.question(post.question_id)
        assert question is not None
        return post.order.index(question.answer)


async def eventually(check: Callable[[], Awaitable[bool]], seconds: float = 5.0) -> None:
    """Waits until `check()` is true (work that runs after the ack, in the background)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


SlackFactory = Callable[..., Awaitable[Slack]]


MESSAGE_METHODS = ("chat.postMessage", "chat.update", "chat.postEphemeral")


def validate_blocks(fake: FakeSlack) -> int:
    """Checks every message the app sent: Block Kit that parses within Slack's limits, and
    a top-level `text` fallback on each (notifications and screen readers need it)."""
    for call in fake.calls:
        if call.method in MESSAGE_METHODS:
            assert isinstance(call.params.get("text"), str) and call.params["text"], call
    for posted in fake.responses:
        assert isinstance(posted.body.get("text"), str) and posted.body["text"], posted
    payloads: list[list[dict[str, Any]]] = []
    for call in fake.calls:
        if isinstance(call.params.get("blocks"), list):
            payloads.append(call.params["blocks"])
        view = call.params.get("view")
        if isinstance(view, dict):
            payloads.append(view["blocks"])
            assert len(view["blocks"]) <= 100
    for posted in fake.responses:
        if "blocks" in posted.body:
            payloads.append(posted.body["blocks"])
    for blocks in payloads:
        assert len(blocks) <= 50
        for raw in blocks:
            block = Block.parse(raw)
            assert block is not None, raw
            block.validate_json()
            assert block.to_dict() == raw
    return len(payloads)


@pytest.fixture
async def make_slack(tmp_path: Path) -> AsyncIterator[SlackFactory]:
    made: list[tuple[Slack, web.AppRunner, aiohttp.ClientSession]] = []
    counter = iter(range(1000))

    async def make(
        *,
        oauth: bool = False,
        mode: str = "http",
        admins: tuple[str, ...] = ("UCONFIGADMIN",),
        refresh_interval: float = 0.3,
        port: int = 3000,
        clock: Clock | None = None,
        token_key: str = TOKEN_KEY,
    ) -> Slack:
        fake = FakeSlack()
        await fake.start()
        folder = tmp_path / f"slack{next(counter)}"
        folder.mkdir()
        env = {"SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_APP_TOKEN": APP_TOKEN}
        if oauth:
            env |= {
                "SLACK_CLIENT_ID": "111.222",
                "SLACK_CLIENT_SECRET": "client-secret",
                "QUIZBOT_TOKEN_KEY": token_key,
            }
        else:
            env["SLACK_BOT_TOKEN"] = BOT_TOKEN
        config = parse_config(
            f"""
[database]
url = "sqlite:///quiz.db"

[slack]
enabled = true
mode = "{mode}"
host = "127.0.0.1"
port = {port}
api_url = "{fake.api_url}"
admins = {list(admins)!r}
""".replace("'", '"'),
            "test.toml",
            folder,
            env,
        )
        app = await build_app(config, library=library(), clock=clock)
        bot = build_slack(app.services, refresh_interval=refresh_interval)
        await bot.prepare()
        runner = web.AppRunner(web_app(bot))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        slack = Slack(fake, app, bot, SlackTester(base + EVENTS_PATH, fake, session), base)
        made.append((slack, runner, session))
        return slack

    yield make
    for slack, runner, session in made:
        await slack.bot.posts.flush()
        await session.close()
        await runner.cleanup()
        await slack.bot.close()
        await slack.app.close()
        await slack.fake.stop()
        validate_blocks(slack.fake)


@pytest.fixture
async def slack(make_slack: SlackFactory) -> Slack:
    return await make_slack()


@pytest.fixture(autouse=True)
def _quiet_bolt(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="quizbot")
