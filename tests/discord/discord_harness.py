"""People, decks and payloads for the Discord tests, and a handle on one running bot.

`DiscordBot` pushes INTERACTION_CREATE payloads shaped like Discord's (slash commands,
autocomplete, button clicks on messages the bot sent, forms sent back) and reads what the
user saw.
Imported by its plain name (pytest puts this folder on sys.path), as conftest imports it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
from fake_discord import APP_ID, EPHEMERAL, MODAL, TOKEN, FakeDiscord, Interaction, user

from bot.bootstrap import App, build_app
from bot.config import parse_config
from bot.decks.loading import load_decks
from bot.decks.model import Choice, Deck, DeckLibrary, Question
from bot.discord.client import QuizClient
from bot.discord.sync import PERMISSIONS
from bot.domain.clock import Clock

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"
GUILD_1 = 111111111111111111
GUILD_2 = 222222222226416526  # on the other shard of two: (id >> 22) % 2 is 0, not 1
CHANNEL = 333333333333333333
MEMBER = discord.Permissions(view_channel=True, send_messages=True, use_application_commands=True)
ADMIN_PERMISSIONS = discord.Permissions(MEMBER.value | discord.Permissions(manage_guild=True).value)

TITLE, DESCRIPTION, FIELDS, FIELD_NAME, FIELD_VALUE, FOOTER, TOTAL = (
    256,
    4096,
    25,
    256,
    1024,
    2048,
    6000,
)


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    permissions: discord.Permissions = MEMBER

    def member(self) -> dict[str, Any]:
        return {
            "user": user(self.id, self.name),
            "roles": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
            "avatar": None,
            "permissions": str(self.permissions.value),
        }


@dataclass(frozen=True)
class Channel:
    """A text channel, for a channel option (Discord resolves it into the payload)."""

    id: int
    name: str

    def resolved(self, guild: int) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": 0,
            "name": self.name,
            "guild_id": str(guild),
            "permissions": str(MEMBER.value),  # the caller's there, as Discord sends it
            "parent_id": None,
            "position": 0,
            "nsfw": False,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }


ALICE = Person(101, "alice")
BOB = Person(102, "bob")
CAROL = Person(103, "carol")
ADMIN = Person(199, "admin", ADMIN_PERMISSIONS)


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


@dataclass(frozen=True)
class Reply:
    """What the user saw in answer to an interaction: a new message, or the clicked one
    replaced."""

    kind: str
    data: dict[str, Any]
    ephemeral: bool
    message_id: str | None

    @property
    def embed(self) -> dict[str, Any]:
        return self.data["embeds"][0]

    @property
    def text(self) -> str:
        """Content and every embed's title, description and footer, for asserting on."""
        parts = [self.data.get("content") or ""]
        for e in self.data.get("embeds", []):
            parts += [
                e.get("title", ""),
                e.get("description", ""),
                e.get("footer", {}).get("text", ""),
            ]
        return "\n".join(parts)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for row in self.data.get("components", []) for c in row["components"]]


def visible(record: Interaction) -> Reply | None:
    if not record.callbacks:
        return None
    body = record.callbacks[0][1]
    kind, data = body["type"], body.get("data") or {}
    ephemeral = bool(data.get("flags", 0) & EPHEMERAL)
    if kind == 4:
        return Reply("new", data, ephemeral, record.original_id)
    if kind == 7:
        return Reply("update", data, True, record.original_id)
    if kind == 5 and record.followups:
        data = record.followups[0]
        if record.deleted_original:  # the "thinking…" went; the follow-up stands alone
            ephemeral = bool(data.get("flags", 0) & EPHEMERAL)
        return Reply("new", data, ephemeral, record.followup_ids[0])
    if kind == 6 and record.original_edits:
        return Reply("update", record.original_edits[0], True, record.original_id)
    return None


def form_of(record: Interaction) -> dict[str, Any] | None:
    """The form (modal) the bot opened in answer to an interaction, as it sent it."""
    return next((body["data"] for _, body in record.callbacks if body["type"] == MODAL), None)


def filled_in(form: dict[str, Any], values: dict[str, str | list[str]]) -> list[dict[str, Any]]:
    """A form's components as Discord sends them back: each input inside its label (type
    18), with the ids Discord numbers them by; a select's `values`, a text input's `value`
    (left empty unless given), a text display as its type and id only."""
    ids = itertools.count(1)
    sent: list[dict[str, Any]] = []
    for component in form["components"]:
        if component["type"] == 10:
            sent.append({"type": 10, "id": next(ids)})
            continue
        assert component["type"] == 18, component  # no action rows: Discord deprecates them
        label_id, inner = next(ids), component["component"]
        item: dict[str, Any] = {"type": inner["type"], "id": next(ids)}
        item["custom_id"] = inner["custom_id"]
        given = values.get(inner["custom_id"])
        if inner["type"] == 4:
            item["value"] = given if isinstance(given, str) else ""
        else:
            item["values"] = [given] if isinstance(given, str) else list(given or [])
        sent.append({"type": 18, "id": label_id, "component": item})
    return sent


def extra_followups(record: Interaction) -> list[Reply]:
    """Follow-ups beyond the one that resolved a "thinking" deferral."""
    skip = 1 if record.callbacks and record.callbacks[0][1]["type"] == 5 else 0
    return [
        Reply("new", data, bool(data.get("flags", 0) & EPHEMERAL), mid)
        for data, mid in list(zip(record.followups, record.followup_ids, strict=True))[skip:]
    ]


class DiscordBot:
    def __init__(
        self, fake: FakeDiscord, app: App, client: QuizClient | None, task: asyncio.Task[None]
    ) -> None:
        self.fake = fake
        self.app = app
        self.client = client
        self.task = task

    def _base(
        self,
        kind: int,
        by: Person,
        guild: int,
        channel: int = CHANNEL,
        app_permissions: discord.Permissions = PERMISSIONS,
    ) -> dict[str, Any]:
        return {
            "id": self.fake.snowflake(),
            "application_id": str(APP_ID),
            "type": kind,
            "token": f"token-{self.fake.snowflake()}",
            "version": 1,
            "guild_id": str(guild),
            "guild": {"id": str(guild), "locale": "en-US", "features": []},
            "channel_id": str(channel),
            "channel": {
                "id": str(channel),
                "type": 0,
                "guild_id": str(guild),
                "name": "quiz",
                "position": 0,
                "permission_overwrites": [],
                "nsfw": False,
                "parent_id": None,
                "topic": None,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "flags": 0,
            },
            "member": by.member(),
            "app_permissions": str(app_permissions.value),
            "locale": "en-US",
            "guild_locale": "en-US",
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild)},
            "context": 0,
            "attachment_size_limit": 10485760,
        }

    def command_payload(
        self,
        group: str,
        sub: str,
        *,
        by: Person = ALICE,
        guild: int = GUILD_1,
        subgroup: str | None = None,
        focused: str | None = None,
        in_channel: int = CHANNEL,
        app_permissions: discord.Permissions = PERMISSIONS,
        **options: Any,
    ) -> dict[str, Any]:
        """`options` are the command's own (a `Channel` value is a channel option); the
        command is typed in `in_channel`, where the bot has `app_permissions`."""
        payload = self._base(4 if focused else 2, by, guild, in_channel, app_permissions)
        values: list[dict[str, Any]] = []
        resolved: dict[str, Any] = {}
        for name, value in options.items():
            if isinstance(value, Channel):
                values.append({"type": 7, "name": name, "value": str(value.id)})
                resolved.setdefault("channels", {})[str(value.id)] = value.resolved(guild)
            elif isinstance(value, Person):
                values.append({"type": 6, "name": name, "value": str(value.id)})
                resolved.setdefault("users", {})[str(value.id)] = user(value.id, value.name)
                member = {k: v for k, v in value.member().items() if k != "user"}
                resolved.setdefault("members", {})[str(value.id)] = member
            elif isinstance(value, int) and not isinstance(value, bool):
                values.append({"type": 4, "name": name, "value": value})
            else:
                values.append({"type": 3, "name": name, "value": value})
            if name == focused:
                values[-1]["focused"] = True
        leaf: dict[str, Any] = {"type": 1, "name": sub, "options": values}
        if subgroup is not None:
            leaf = {"type": 2, "name": subgroup, "options": [leaf]}
        payload["data"] = {"id": "1", "name": group, "type": 1, "options": [leaf]}
        if resolved:
            payload["data"]["resolved"] = resolved
        return payload

    async def command(self, group: str, sub: str, **kwargs: Any) -> Interaction:
        return await self.fake.dispatch_interaction(self.command_payload(group, sub, **kwargs))

    async def run(self, group: str, sub: str, **kwargs: Any) -> Reply:
        return await self.reply(await self.command(group, sub, **kwargs))

    def click_payload(
        self, message: dict[str, Any], custom_id: str, *, by: Person = ALICE, guild: int = GUILD_1
    ) -> dict[str, Any]:
        payload = self._base(3, by, guild)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        payload["message"] = message
        return payload

    def submit_payload(
        self,
        custom_id: str,
        components: list[dict[str, Any]],
        *,
        by: Person = ALICE,
        guild: int = GUILD_1,
        message: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A MODAL_SUBMIT; one opened from a button also carries that button's message."""
        payload = self._base(5, by, guild)
        payload["data"] = {"custom_id": custom_id, "components": components}
        if message is not None:
            payload["message"] = message
        return payload

    async def submit(
        self,
        opened: Interaction,
        values: dict[str, str | list[str]],
        *,
        by: Person = ALICE,
        guild: int = GUILD_1,
    ) -> Interaction:
        """Fills in the form that `opened` was answered with, and sends it, as its user would."""
        form = form_of(opened)
        assert form is not None, "no form was opened"
        payload = self.submit_payload(
            form["custom_id"],
            filled_in(form, values),
            by=by,
            guild=guild,
            message=opened.payload.get("message"),
        )
        return await self.fake.dispatch_interaction(payload)

    @staticmethod
    def as_dm(payload: dict[str, Any], by: Person = ALICE) -> dict[str, Any]:
        """The interaction as if from a direct message: no guild, a `user`, not a `member`."""
        payload = dict(payload)
        for key in ("guild_id", "guild", "member", "guild_locale"):
            payload.pop(key)
        payload["user"] = user(by.id, by.name)
        payload["channel"] = {"id": payload["channel_id"], "type": 1, "recipients": []}
        payload["context"] = 1
        payload["authorizing_integration_owners"] = {"1": str(by.id)}
        return payload

    async def click(
        self, message_id: str, label: str, *, by: Person = ALICE, guild: int = GUILD_1
    ) -> Interaction:
        """Clicks the button labelled `label` on a message the bot sent."""
        message = self.fake.messages[message_id]
        buttons = [c for row in message["components"] for c in row["components"]]
        custom_id = next(b["custom_id"] for b in buttons if b["label"] == label)
        return await self.fake.dispatch_interaction(
            self.click_payload(message, custom_id, by=by, guild=guild)
        )

    async def reply(self, record: Interaction, within: float = 10.0) -> Reply:
        await self.fake.until(lambda: visible(record) is not None, within)
        shown = visible(record)
        assert shown is not None
        return shown

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
    """An app on a SQLite file in `folder`; `extra` lines go in its [discord] table."""
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
