"""The slash commands: login and sync, admin checks, leaderboards per guild, languages,
autocomplete, the rest of /quiz, sharding, and `run_discord` itself."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from discord import app_commands
from discord_harness import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    GUILD_1,
    GUILD_2,
    BotFactory,
    DiscordBot,
    make_app,
)
from fake_discord import APP_ID, FakeDiscord

from bot.config import SetupError
from bot.discord.client import QuizClient
from bot.discord.runner import run_discord
from bot.discord.sync import application_id_from_token, invite_url, sync_commands

ADMIN_ONLY = "Only an admin can do that."


def _extra_command(client: QuizClient) -> None:
    async def ping(interaction: object) -> None: ...

    client.tree.add_command(app_commands.Command(name="ping", description="ping", callback=ping))


async def test_login_then_sync_only_when_the_commands_change(
    make_bot: BotFactory, fake: FakeDiscord
) -> None:
    first = await make_bot()
    paths = [(c.method, c.path) for c in fake.calls]
    assert paths[:4] == [
        ("GET", "/api/v10/users/@me"),
        ("GET", "/api/v10/oauth2/applications/@me"),
        ("PUT", f"/api/v10/applications/{APP_ID}/commands"),
        ("GET", "/api/v10/gateway/bot"),
    ]
    assert fake.identifies[0]["intents"] == 1  # guilds only: nothing privileged
    assert fake.identifies[0]["shard"] == [0, 1]

    ((scope, commands),) = fake.command_puts
    assert scope is None  # global
    by_name = {c["name"]: c for c in commands}
    assert set(by_name) == {"quiz", "quizadmin"}
    quiz, admin = by_name["quiz"], by_name["quizadmin"]
    assert quiz["default_member_permissions"] is None
    assert str(admin["default_member_permissions"]) == "32"  # Manage Server
    assert quiz["contexts"] == admin["contexts"] == [0]  # guilds only
    assert {o["name"] for o in quiz["options"]} == {
        "post",
        "start",
        "leaderboard",
        "stats",
        "decks",
        "language",
        "close",
        "help",
    }
    assert {o["name"] for o in admin["options"]} == {"language", "close", "reset", "schedule"}
    schedule = next(o for o in admin["options"] if o["name"] == "schedule")
    assert {o["name"] for o in schedule["options"]} == {"set", "show", "off", "now"}
    assert quiz["description"] == "Quiz questions, private runs and this server's leaderboard"
    assert set(quiz["description_localizations"]) == {"en-US", "en-GB"}  # Discord has no bn
    post = next(o for o in quiz["options"] if o["name"] == "post")
    assert {o["name"]: o.get("autocomplete") for o in post["options"]} == {
        "deck": True,
        "question": True,
    }
    await first.stop()

    await (await make_bot()).stop()  # same commands: no sync
    assert len(fake.command_puts) == 1

    await (await make_bot(prepare=_extra_command)).stop()  # a changed tree: synced once
    await (await make_bot(prepare=_extra_command)).stop()
    assert len(fake.command_puts) == 2
    assert "ping" in {c["name"] for c in fake.command_puts[1][1]}


async def test_sync_and_invite_from_the_command_line(fake: FakeDiscord, tmp_path: Path) -> None:
    app = await make_app(tmp_path)
    try:
        said = await sync_commands(app, None)
        assert said.startswith("Synced 2 commands globally") and "/quiz, /quizadmin" in said
        said = await sync_commands(app, GUILD_1)
        assert said.startswith(f"Synced 2 commands to guild {GUILD_1}")
        assert [scope for scope, _ in fake.command_puts] == [None, str(GUILD_1)]
        assert not fake.identifies  # REST only, no gateway
    finally:
        await app.close()

    url = urlparse(invite_url(str(APP_ID)))
    query = parse_qs(url.query)
    assert query["client_id"] == [str(APP_ID)]
    assert query["scope"] == ["bot applications.commands"]
    assert query["permissions"] == ["19456"]  # View Channel, Send Messages, Embed Links

    head = base64.urlsafe_b64encode(str(APP_ID).encode()).decode().rstrip("=")
    assert application_id_from_token(f"{head}.GhIjKl.secret") == str(APP_ID)
    with pytest.raises(ValueError, match="bot token"):
        application_id_from_token("not a token")


async def test_admin_commands_are_refused_to_members(bot: DiscordBot) -> None:
    """Discord hides /quizadmin from members by default, but a server can change that, and a
    payload can arrive anyway: the bot checks Manage Server itself."""
    for sub, options in (("reset", {}), ("language", {"locale": "bn"}), ("close", {})):
        reply = await bot.run("quizadmin", sub, by=BOB, **options)
        assert reply.ephemeral and reply.data["content"] == ADMIN_ONLY, sub
    for sub in ("show", "off", "now"):
        reply = await bot.run("quizadmin", sub, subgroup="schedule", by=BOB)
        assert reply.data["content"] == ADMIN_ONLY
    reply = await bot.run(
        "quizadmin", "set", subgroup="schedule", by=BOB, time="09:00", timezone="Asia/Dhaka"
    )
    assert reply.data["content"] == ADMIN_ONLY
    settings = await bot.app.store.server("discord:111111111111111111")
    assert settings.locale is None and settings.season == 1

    soon = await bot.run("quizadmin", "show", subgroup="schedule", by=ADMIN)
    assert soon.data["content"] == "Scheduling arrives in a later release."


async def test_reset_asks_first_and_checks_again_on_the_click(bot: DiscordBot) -> None:
    confirm = await bot.run("quizadmin", "reset", by=ADMIN)
    assert confirm.ephemeral
    assert confirm.data["content"].startswith("Start a new leaderboard season?")
    assert [(b["label"], b["style"]) for b in confirm.buttons] == [
        ("Start a new season", 4),
        ("Cancel", 2),
    ]
    forged = await bot.reply(
        await bot.click(confirm.message_id or "", "Start a new season", by=BOB)
    )
    assert forged.data["content"] == ADMIN_ONLY
    assert (await bot.app.store.server("discord:111111111111111111")).season == 1

    done = await bot.reply(
        await bot.click(confirm.message_id or "", "Start a new season", by=ADMIN)
    )
    assert done.kind == "update"
    assert done.data["content"] == "Season 2 has started. Good luck, everyone!"
    assert done.data["components"] == []
    assert (await bot.app.store.server("discord:111111111111111111")).season == 2

    again = await bot.run("quizadmin", "reset", by=ADMIN)
    cancelled = await bot.reply(await bot.click(again.message_id or "", "Cancel", by=ADMIN))
    assert cancelled.data["content"] == "Nothing changed."
    assert (await bot.app.store.server("discord:111111111111111111")).season == 2


async def _answer(
    bot: DiscordBot, guild: int, question: str, right_by: list, wrong_by: list
) -> None:
    post_id, posted = await bot.post(deck="basics", question=question, guild=guild, by=ADMIN)
    right = await bot.right_label(post_id)
    wrong = next(b["label"] for b in posted.buttons if b["label"] != right)
    for person in right_by:
        await bot.reply(await bot.click(posted.message_id or "", right, by=person, guild=guild))
    for person in wrong_by:
        await bot.reply(await bot.click(posted.message_id or "", wrong, by=person, guild=guild))


async def test_leaderboards_rank_and_belong_to_their_guild(bot: DiscordBot) -> None:
    await _answer(bot, GUILD_1, "all-reduce", [ALICE, BOB], [CAROL])
    await _answer(bot, GUILD_1, "bubble", [ALICE, CAROL], [])
    await _answer(bot, GUILD_2, "shard", [CAROL], [ALICE])

    board = await bot.run("quiz", "leaderboard", by=ADMIN, period="all")
    assert board.ephemeral
    assert board.embed["title"] == "Leaderboard · this season"
    assert board.embed["description"] == (
        f"1\\. <@{ALICE.id}> · 2\n2\\. <@{BOB.id}> · 1\n2\\. <@{CAROL.id}> · 1\n\n"
        "You have no points in this period yet."
    )
    week = await bot.run("quiz", "leaderboard", by=ALICE)
    assert week.embed["title"] == "Leaderboard · this week"
    assert week.embed["description"].startswith(f"1\\. <@{ALICE.id}> · 2")

    other = await bot.run("quiz", "leaderboard", by=ALICE, guild=GUILD_2, period="all")
    assert (
        other.embed["description"]
        == f"1\\. <@{CAROL.id}> · 1\n\nYou have no points in this period yet."
    )

    deck = await bot.run(
        "quiz", "leaderboard", by=ALICE, period="month", deck="model-pipeline-parallelism"
    )
    assert deck.embed["title"].startswith("Leaderboard · this month · Deck: ")
    assert deck.embed["description"] == "No points yet in this period. Be the first: /quiz post"

    stats = await bot.run("quiz", "stats", by=ALICE, user=CAROL)
    assert stats.ephemeral
    assert stats.embed["description"].startswith(f"**Stats for <@{CAROL.id}>**")
    assert (
        "Answered: 2" in stats.embed["description"]
        and "Right: 1 (50%)" in stats.embed["description"]
    )
    mine = await bot.run("quiz", "stats", by=ALICE, guild=GUILD_2)
    assert (
        "Answered: 1" in mine.embed["description"] and "Right: 0 (0%)" in mine.embed["description"]
    )


async def test_languages_for_a_user_and_for_the_server(bot: DiscordBot) -> None:
    mine = await bot.run("quiz", "language", by=ALICE, locale="bn")
    assert mine.ephemeral and mine.data["content"] == "এখন থেকে আপনার ভাষা বাংলা।"
    board = await bot.run("quiz", "leaderboard", by=ALICE)
    assert board.embed["title"] == "লিডারবোর্ড · এই সপ্তাহ"

    post_id, posted = await bot.post(deck="basics", question="bubble", by=BOB)
    assert posted.embed["title"] == "Parallelism \\_basics\\_ · Question 2 of 3"  # the server's: en
    reply = await bot.reply(
        await bot.click(posted.message_id or "", await bot.right_label(post_id))
    )
    assert reply.embed["title"] == "✅ ঠিক উত্তর!"  # Alice's own: bn

    server = await bot.run("quizadmin", "language", by=ADMIN, locale="bn")
    assert server.data["content"] == "এখন থেকে এই সার্ভারের ভাষা বাংলা।"
    _, bengali = await bot.post(deck="basics", question="shard", by=BOB)
    assert bengali.embed["title"] == "প্যারালেলিজমের গোড়ার কথা · প্রশ্ন ৩/৩"
    assert bengali.embed["footer"]["text"] == "০ জন উত্তর দিয়েছেন"

    unknown = await bot.run("quiz", "language", by=ALICE, locale="fr")
    assert unknown.data["content"] == "“fr” ভাষাটা চিনি না। এগুলোর একটা বেছে নিন: en, bn"


async def test_decks_help_autocomplete_and_unknown_commands(bot: DiscordBot) -> None:
    decks = await bot.run("quiz", "decks", by=ALICE)
    assert decks.embed["title"] == "Decks"
    assert (
        "basics: Parallelism \\_basics\\_ · 3 questions · English, বাংলা"
        in decks.embed["description"]
    )
    assert "model-pipeline-parallelism: " in decks.embed["description"]

    helped = await bot.run("quiz", "help", by=ALICE)
    assert helped.embed["title"] == "quizbot: a question at a time"
    assert "/quizadmin" in helped.embed["description"]

    record = await bot.fake.dispatch_interaction(
        bot.command_payload("quiz", "post", by=ALICE, focused="deck", deck="bas")
    )
    await bot.fake.until(lambda: bool(record.callbacks))
    body = record.callbacks[0][1]
    assert body["type"] == 8
    assert body["data"]["choices"] == [{"name": "basics · Parallelism _basics_", "value": "basics"}]

    record = await bot.fake.dispatch_interaction(
        bot.command_payload(
            "quiz", "post", by=ALICE, focused="question", deck="basics", question="idle"
        )
    )
    await bot.fake.until(lambda: bool(record.callbacks))
    assert record.callbacks[0][1]["data"]["choices"] == [
        {"name": "2. What idles GPUs in a pipeline?", "value": "bubble"}
    ]

    stale = await bot.run("quiz", "frobnicate", by=ALICE)
    assert stale.ephemeral and stale.data["content"] == "Unknown command “/quiz frobnicate”."
    no_deck = await bot.run("quiz", "post", by=ALICE, deck="nope")
    assert no_deck.ephemeral
    assert no_deck.data["content"].startswith("There is no deck “nope”. Decks: basics, ")


async def test_one_shard_of_two(make_bot: BotFactory, fake: FakeDiscord) -> None:
    bot = await make_bot(shard_count=2, shard_ids=[1])
    assert fake.identifies[-1]["shard"] == [1, 2]
    assert not any(c.path.endswith("/gateway/bot") for c in fake.calls)  # the count is given
    reply = await bot.run("quiz", "help", by=ALICE, guild=GUILD_1)  # GUILD_1 lives on shard 1
    assert reply.embed["title"] == "quizbot: a question at a time"


async def test_run_discord_serves_until_cancelled(fake: FakeDiscord, tmp_path: Path) -> None:
    extra = f'api_url = "{fake.api_url}"\ngateway_url = "{fake.gateway_url}"\n'
    app = await make_app(tmp_path, extra=extra)
    task = asyncio.create_task(run_discord(app))
    try:
        await fake.until(lambda: bool(fake.identifies) or task.done())
        assert not task.done()
        bot = DiscordBot(fake, app, None, task)  # a handle to push payloads
        reply = await bot.run("quiz", "help", by=ALICE)
        assert reply.embed["title"] == "quizbot: a question at a time"
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await app.close()
    await fake.until(lambda: not fake.sessions)  # the client closed its gateway connection


async def test_run_discord_needs_a_token(tmp_path: Path) -> None:
    app = await make_app(tmp_path, token=None)
    try:
        with pytest.raises(SetupError, match="DISCORD_TOKEN is not set"):
            await run_discord(app)
    finally:
        await app.close()


async def test_a_refused_token_is_a_plain_error(fake: FakeDiscord, tmp_path: Path) -> None:
    app = await make_app(tmp_path, token="not-the-token")
    try:
        with pytest.raises(SetupError, match="Discord refused DISCORD_TOKEN"):
            await run_discord(app)
    finally:
        await app.close()
    assert not fake.identifies
