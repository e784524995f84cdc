"""Decks for the Discord tests, and a handle on one running bot.

`DiscordBot` is `bot.testing.discord_users.DiscordUsers` (the people, their payloads and what
they saw, re-exported here) with the app and client it talks to.
Imported by its plain name (pytest puts this folder on sys.path), as conftest imports it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.bootstrap import App, build_app
from bot.config import parse_config
from bot.decks.loading import load_decks
from bot.decks.model import Choice, Deck, DeckLibrary, Question
from bot.discord.client import QuizClient
from bot.domain.clock import Clock
from bot.testing.discord_users import (  # the tests read these from here
    ADMIN,
    ADMIN_PERMISSIONS,
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD_1,
    GUILD_2,
    MEMBER,
    Channel,
    DiscordUsers,
    Person,
    Reply,
    extra_followups,
    filled_in,
    form_of,
    visible,
)
from bot.testing.fake_discord import TOKEN, FakeDiscord
from tests.templates import seed_sqlite

__all__ = [
    "ADMIN",
    "ADMIN_PERMISSIONS",
    "ALICE",
    "BOB",
    "CAROL",
    "CHANNEL",
    "GUILD_1",
    "GUILD_2",
    "MEMBER",
    "Channel",
    "DiscordUsers",
    "Person",
    "Reply",
    "extra_followups",
    "filled_in",
    "form_of",
    "visible",
]

QUESTIONS = Path(__file__).resolve().parents[3] / "questions"

TITLE, DESCRIPTION, FIELDS, FIELD_NAME, FIELD_VALUE, FOOTER, TOTAL = (
    256,
    4096,
    25,
    256,
    1024,
    2048,
    6000,
)


def _q(qid: str, n: int, en: str, bn: str, choices: list[Choice], answer: int) -> Question:
    return Question(
        id=qid,
        text={"en": en, "bn": bn},
        choices=tuple(choices),
        answer=answer,
        explanation={"en": f"Explanation of {qid}: *kept* literally.", "bn": f"{qid}-এর ব্যাখ্যা।"},
        position=n,
    )


def team_deck() -> Deck:
    """Three questions in English and Bengali; the text carries markdown to be escaped."""
    return Deck(
        id="basics",
        title={"en": "Parallelism _basics_", "bn": "প্যারালেলিজমের গোড়ার কথা"},
        locales=("en", "bn"),
        questions=(
            _q(
                "all-reduce",
                1,
                "Which collective sums gradients on every rank? (all_reduce or *reduce*) @everyone",
                "কোন collective সব rank-এ gradient যোগ করে?",
                [
                    Choice({"en": "all_reduce", "bn": "all_reduce"}),
                    Choice(
                        {"en": "broadcast", "bn": "broadcast"},
                        why={
                            "en": "broadcast copies one rank's tensor.",
                            "bn": "broadcast একটা rank-এর tensor কপি করে।",
                        },
                    ),
                    Choice(
                        {"en": "gather", "bn": "gather"},
                        why={
                            "en": "gather collects to one rank.",
                            "bn": "gather এক rank-এ জড়ো করে।",
                        },
                    ),
                ],
                0,
            ),
            _q(
                "bubble",
                2,
                "What idles GPUs in a pipeline?",
                "পাইপলাইনে GPU বসে থাকে কেন?",
                [
                    Choice({"en": "the bubble", "bn": "bubble"}),
                    Choice(
                        {"en": "the optimizer", "bn": "optimizer"},
                        why={"en": "It runs after.", "bn": "এটা পরে চলে।"},
                    ),
                ],
                0,
            ),
            _q(
                "shard",
                3,
                "Tensor parallelism splits what?",
                "টেনসর প্যারালেলিজম কী ভাগ করে?",
                [
                    Choice({"en": "weight matrices", "bn": "weight matrix"}),
                    Choice(
                        {"en": "the dataset", "bn": "dataset"},
                        why={"en": "That is data parallelism.", "bn": "ওটা data parallelism।"},
                    ),
                    Choice({"en": "the loss", "bn": "loss"}),
                    Choice({"en": "the tokenizer", "bn": "tokenizer"}),
                ],
                0,
            ),
        ),
    )


def library(*extra: Deck) -> DeckLibrary:
    report = load_decks([QUESTIONS])
    assert report.ok, report.problems
    return DeckLibrary([team_deck(), *report.decks, *extra])


class DiscordBot(DiscordUsers):
    """The people in `DiscordUsers`, and the running bot they talk to: its app and client."""

    def __init__(
        self, fake: FakeDiscord, app: App, client: QuizClient | None, task: asyncio.Task[None]
    ) -> None:
        super().__init__(fake)
        self.app = app
        self.client = client
        self.task = task

    async def post(
        self, *, by: Person = ALICE, guild: int = GUILD_1, **options: Any
    ) -> tuple[int, Reply]:
        """Posts a question; its post id (once the message is stored) and the reply."""
        reply = await self.run("quiz", "post", by=by, guild=guild, **options)
        post_id = int(reply.buttons[0]["custom_id"].split(":")[2])
        await eventually(lambda: self._stored(post_id))
        return post_id, reply

    async def _stored(self, post_id: int) -> bool:
        post = await self.app.store.post(post_id)
        return post is not None and post.message_ref is not None

    async def right_label(self, post_id: int) -> str:
        post = await self.app.store.post(post_id)
        assert post is not None
        deck = self.app.services.catalog.decks.get(post.deck_id)
        assert deck is not None
        question = deck.question(post.question_id)
        assert question is not None
        return "ABCDE"[post.order.index(question.answer)]

    async def stop(self) -> None:
        assert self.client is not None
        await self.client.close()
        await asyncio.wait_for(self.task, 10)
        await self.app.close()


def with_button(message: dict[str, Any], custom_id: str, label: str = "A") -> dict[str, Any]:
    """`message` as if it carried one button with `custom_id` (an old or a forged one):
    discord.py dispatches a click only to a component the message has."""
    button = {"type": 2, "style": 2, "label": label, "custom_id": custom_id}
    return {**message, "components": [{"type": 1, "components": [button]}]}


async def eventually(check: Callable[[], Awaitable[bool]], within: float = 10.0) -> None:
    """Waits until `check()` is true (work that happens after the reply, in the background)."""
    deadline = asyncio.get_running_loop().time() + within
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


BotFactory = Callable[..., Awaitable[DiscordBot]]


def config_text(db: str, shard_count: int | None, shard_ids: list[int] | None) -> str:
    lines = ["[database]", f'url = "sqlite:///{db}"', "", "[discord]", "enabled = true"]
    if shard_count is not None:
        lines.append(f"shard_count = {shard_count}")
    if shard_ids is not None:
        lines.append(f"shard_ids = {shard_ids}")
    return "\n".join(lines) + "\n"


async def make_app(
    folder: Path,
    *,
    db: str = "quiz.db",
    decks: DeckLibrary | None = None,
    shard_count: int | None = None,
    shard_ids: list[int] | None = None,
    extra: str = "",
    token: str | None = TOKEN,
    clock: Clock | None = None,
) -> App:
    """An app on a SQLite file in `folder` (a migrated copy, unless one is there already:
    tests/templates.py); `extra` lines go in its [discord] table."""
    seed_sqlite(folder / db)
    text = config_text(db, shard_count, shard_ids) + extra
    env = {"DISCORD_TOKEN": token} if token else {}
    config = parse_config(text, "test.toml", folder, env)
    return await build_app(config, library=decks or library(), clock=clock)


def check_limits(fake: FakeDiscord) -> None:
    """Every message the bot sent or edited fits Discord's limits, and pings nobody; so
    does every form it opened."""
    for form in fake.sent_forms():
        check_form(form)
    for body in fake.sent_messages():
        if not any(k in body for k in ("content", "embeds", "components")):
            continue  # a deferral
        assert body.get("allowed_mentions") == {"parse": []}, body
        assert len(body.get("content") or "") <= 2000
        embeds = body.get("embeds") or []
        assert len(embeds) <= 10
        total = 0
        for e in embeds:
            title, description = e.get("title", ""), e.get("description", "")
            footer = e.get("footer", {}).get("text", "")
            fields = e.get("fields", [])
            assert len(title) <= TITLE and len(description) <= DESCRIPTION and len(footer) <= FOOTER
            assert len(fields) <= FIELDS
            for f in fields:
                assert len(f["name"]) <= FIELD_NAME and len(f["value"]) <= FIELD_VALUE
            total += (
                len(title)
                + len(description)
                + len(footer)
                + sum(len(f["name"]) + len(f["value"]) for f in fields)
            )
        assert total <= TOTAL
        rows = body.get("components") or []
        assert len(rows) <= 5
        ids = []
        for row in rows:
            assert row["type"] == 1 and len(row["components"]) <= 5
            for button in row["components"]:
                assert 1 <= len(button["custom_id"]) <= 100
                assert len(button.get("label") or "") <= 80
                ids.append(button["custom_id"])
        assert len(ids) == len(set(ids)), ids


def check_form(form: dict[str, Any]) -> None:
    """A modal within Discord's limits: title 45, custom_id 100, five top-level components;
    a label 45 (its description 100); a select's 25 options of 100; a text input's
    placeholder 100 and length 4000; a text display 4000."""
    assert 1 <= len(form["title"]) <= 45 and 1 <= len(form["custom_id"]) <= 100
    assert 1 <= len(form["components"]) <= 5
    for component in form["components"]:
        if component["type"] == 10:
            assert 1 <= len(component["content"]) <= 4000
            continue
        assert component["type"] == 18
        assert 1 <= len(component["label"]) <= 45
        assert len(component.get("description") or "") <= 100
        inner = component["component"]
        assert 1 <= len(inner["custom_id"]) <= 100
        if inner["type"] == 3:
            assert 1 <= len(inner["options"]) <= 25
            for option in inner["options"]:
                assert 1 <= len(option["label"]) <= 100 and 1 <= len(option["value"]) <= 100
        else:
            assert inner["type"] == 4
            assert len(inner.get("placeholder") or "") <= 100
            assert inner.get("max_length", 4000) <= 4000
