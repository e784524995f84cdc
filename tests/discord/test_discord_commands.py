"""The slash commands: login and sync, admin checks, leaderboards per guild, languages,
autocomplete, the rest of /quiz, sharding, and `run_discord` itself."""

from __future__ import annotations

import asyncio
import base64
import copy
import socket
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import discord
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
    with_button,
)
from fake_discord import APP_ID, FakeDiscord

from bot.config import SetupError
from bot.discord.client import QuizClient
from bot.discord.permissions import POSTS
from bot.discord.runner import run_discord, sync_commands
from bot.discord.sync import PERMISSIONS, application_id_from_token, invite_url

ADMIN_ONLY = "Only an admin can do that. On Discord that means the Manage Server permission."


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
        "privacy",
        "review",
        "help",
        "game",
    }
    game = next(o for o in quiz["options"] if o["name"] == "game")
    assert game["type"] == 2  # a subcommand group: /quiz game start|stop
    game_subs = {o["name"]: o for o in game["options"]}
    assert set(game_subs) == {"start", "stop"}
    start_options = {o["name"]: o for o in game_subs["start"]["options"]}
    assert list(start_options) == ["deck", "questions", "seconds"]
    assert (start_options["questions"]["min_value"], start_options["questions"]["max_value"]) == (
        1,
        50,
    )
    assert (start_options["seconds"]["min_value"], start_options["seconds"]["max_value"]) == (
        10,
        120,
    )
    admin_subcommands = {"language", "close", "reset", "schedule", "report", "deck"}
    assert {o["name"] for o in admin["options"]} == admin_subcommands
    deck_group = next(o for o in admin["options"] if o["name"] == "deck")
    assert deck_group["type"] == 2  # /quizadmin deck default deck:
    (default,) = deck_group["options"]
    assert default["name"] == "default"
    assert [(o["name"], o["required"], o["autocomplete"]) for o in default["options"]] == [
        ("deck", False, True)
    ]
    schedule = next(o for o in admin["options"] if o["name"] == "schedule")
    subs = {o["name"]: o for o in schedule["options"]}
    assert set(subs) == {"set", "show", "off", "now"}
    set_options = {o["name"]: o for o in subs["set"]["options"]}
    assert list(set_options) == ["time", "timezone", "channel", "deck", "days"]
    assert set_options["timezone"]["autocomplete"] and set_options["deck"]["autocomplete"]
    assert set_options["channel"]["type"] == 7 and set_options["channel"]["channel_types"] == [0, 5]
    assert [o["name"] for o in subs["off"]["options"]] == ["channel"]
    assert [o["name"] for o in subs["now"]["options"]] == ["channel"]
    assert "options" not in subs["show"] or subs["show"]["options"] == []
    assert quiz["description"] == "Quiz questions, private runs and this server's leaderboard"
    assert set(quiz["description_localizations"]) == {"en-US", "en-GB"}  # Discord has no bn
    post = next(o for o in quiz["options"] if o["name"] == "post")
    assert {o["name"]: o.get("autocomplete") for o in post["options"]} == {
        "deck": True,
        "question": True,
    }
    review = next(o for o in quiz["options"] if o["name"] == "review")
    assert [(o["name"], o["required"], o["autocomplete"]) for o in review["options"]] == [
        ("topic", False, True)
    ]
    board = next(o for o in quiz["options"] if o["name"] == "leaderboard")
    period = next(o for o in board["options"] if o["name"] == "period")
    assert [c["value"] for c in period["choices"]] == ["week", "month", "all", "mastery"]
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
        said = await sync_commands(app.services, None)
        assert said.startswith("Synced 2 commands globally") and "/quiz, /quizadmin" in said
        said = await sync_commands(app.services, GUILD_1)
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
    assert discord.Permissions(**{attr: True for attr, _ in POSTS}) == PERMISSIONS

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

    shown = await bot.run("quizadmin", "show", subgroup="schedule", by=ADMIN)
    assert shown.embed["description"].startswith("No daily question is scheduled in this server.")


async def test_reset_asks_first_and_checks_again_on_the_click(bot: DiscordBot) -> None:
    confirm = await bot.run("quizadmin", "reset", by=ADMIN)
    assert confirm.ephemeral
    assert confirm.data["content"].startswith("Start a new leaderboard season?")
    assert [(b["label"], b["style"], b["custom_id"]) for b in confirm.buttons] == [
        ("Start a new season", 4, "quiz:reset:yes:1"),  # confirms season 1, the one shown
        ("Cancel", 2, "quiz:reset:no:1"),
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


async def test_pressing_the_same_confirm_twice_starts_one_season(bot: DiscordBot) -> None:
    """Two presses of one confirm (a double click, a second admin, a retried request): the
    button names the season it confirms, so the second finds it over and changes nothing."""
    confirm = await bot.run("quizadmin", "reset", by=ADMIN)
    shown = copy.deepcopy(bot.fake.messages[confirm.message_id or ""])  # as both clicks saw it
    custom_id = confirm.buttons[0]["custom_id"]

    first = await bot.reply(
        await bot.fake.dispatch_interaction(bot.click_payload(shown, custom_id, by=ADMIN))
    )
    assert first.data["content"] == "Season 2 has started. Good luck, everyone!"
    second = await bot.reply(
        await bot.fake.dispatch_interaction(bot.click_payload(shown, custom_id, by=ADMIN))
    )
    assert second.ephemeral
    assert second.data["content"] == (
        "That confirm button is out of date: season 2 is already running. Nothing changed."
    )
    assert (await bot.app.store.server("discord:111111111111111111")).season == 2

    # A confirm from before the season rode along (quiz:reset:yes) is stale too.
    older = with_button(shown, "quiz:reset:yes", "Start a new season")
    old = await bot.reply(
        await bot.fake.dispatch_interaction(bot.click_payload(older, "quiz:reset:yes", by=ADMIN))
    )
    assert old.data["content"].startswith("That confirm button is out of date: season 2")
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
    assert "License: CC BY 4.0" in decks.embed["description"]

    helped = await bot.run("quiz", "help", by=ALICE)
    assert helped.embed["title"] == "quizbot: a question at a time"
    body = helped.embed["description"]
    assert body.startswith("/quiz post deck: question: · post a question in this channel")
    for line in (
        "/quiz leaderboard period: deck: · ",
        "/quiz stats user: · ",
        "/quiz language locale: · ",
        "/quizadmin reset · ",
        "/quizadmin schedule set time: timezone: channel: deck: days: · ",
        "/quizadmin schedule show · off · now · ",
    ):
        assert line in body, line
    assert "[server]" not in body and "HH:MM" not in body and "/quiz reset" not in body
    assert "Manage Server" in body
    bengali = await bot.run("quiz", "language", by=BOB, locale="bn")
    assert bengali.data["content"] == "এখন থেকে আপনার ভাষা বাংলা।"
    helped = await bot.run("quiz", "help", by=BOB)
    assert helped.embed["title"] == "quizbot: প্রতিবার একটা করে প্রশ্ন"
    assert (
        "/quizadmin schedule set time: timezone: channel: deck: days: · "
        in (helped.embed["description"])
    )

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

    typed = await bot.run("quiz", "post", by=ALICE, deck=" Basics ", question="bubble")
    assert typed.embed["title"] == "Parallelism \\_basics\\_ · Question 2 of 3"
    run = await bot.run("quiz", "start", by=ALICE, deck="BASICS")
    assert run.embed["title"] == "Parallelism \\_basics\\_ · 1 of 3"
    board = await bot.run("quiz", "leaderboard", by=ALICE, deck="BASICS")
    # The deck's title is deck text: shown literally in the embed's title too.
    assert board.embed["title"] == "Leaderboard · this week · Deck: Parallelism \\_basics\\_"


@pytest.mark.parametrize("ref", ["²", "٣", "３", "-1"])
async def test_a_question_number_in_another_script_is_told_clearly(
    bot: DiscordBot, ref: str
) -> None:
    said = await bot.run("quiz", "post", by=ALICE, deck="basics", question=ref)
    assert said.ephemeral
    assert said.data["content"] == (
        f"Deck basics has no question “{ref}” (use an id or a number from 1 to 3)."
    )


async def test_a_question_number_in_bengali_digits_posts_it(bot: DiscordBot) -> None:
    posted = await bot.run("quiz", "post", by=ALICE, deck="basics", question="৩")
    assert posted.embed["title"].endswith("Question 3 of 3")


async def test_clicks_from_a_direct_message_are_told_the_quiz_is_for_servers(
    bot: DiscordBot,
) -> None:
    """A payload with no guild (a DM, or a malformed one) reaches no core call."""
    _, posted = await bot.post(deck="basics", question="bubble")
    message = bot.fake.messages[posted.message_id or ""]
    guild_only = "The quiz works in a server's channels, not in direct messages."
    for custom_id in (posted.buttons[0]["custom_id"], "quiz:reset:yes:1", "quiz:l:1:bn"):
        payload = bot.click_payload(with_button(message, custom_id), custom_id, by=BOB)
        reply = await bot.reply(await bot.fake.dispatch_interaction(bot.as_dm(payload, BOB)))
        assert reply.ephemeral and reply.data["content"] == guild_only, custom_id
    # Discord offers /quiz in servers only (contexts: [guild]); a DM payload gets the same.
    command = bot.as_dm(bot.command_payload("quiz", "post", by=BOB), BOB)
    reply = await bot.reply(await bot.fake.dispatch_interaction(command))
    assert reply.ephemeral and reply.data["content"] == guild_only
    assert await bot.app.store.answer_count(1) == 0
    assert (await bot.app.store.server("discord:111111111111111111")).season == 1


async def test_one_shard_of_two(make_bot: BotFactory, fake: FakeDiscord) -> None:
    bot = await make_bot(shard_count=2, shard_ids=[1])
    assert fake.identifies[-1]["shard"] == [1, 2]
    assert not any(c.path.endswith("/gateway/bot") for c in fake.calls)  # the count is given
    reply = await bot.run("quiz", "help", by=ALICE, guild=GUILD_1)  # GUILD_1 lives on shard 1
    assert reply.embed["title"] == "quizbot: a question at a time"


async def test_run_discord_serves_until_cancelled(fake: FakeDiscord, tmp_path: Path) -> None:
    extra = f'api_url = "{fake.api_url}"\ngateway_url = "{fake.gateway_url}"\n'
    app = await make_app(tmp_path, extra=extra)
    task = asyncio.create_task(run_discord(app.services))
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
            await run_discord(app.services)
    finally:
        await app.close()


async def test_a_refused_token_is_a_plain_error(fake: FakeDiscord, tmp_path: Path) -> None:
    app = await make_app(tmp_path, token="not-the-token")
    try:
        with pytest.raises(SetupError, match="Discord refused DISCORD_TOKEN") as run:
            await run_discord(app.services)
        with pytest.raises(SetupError, match="Discord refused DISCORD_TOKEN") as sync:
            await sync_commands(
                app.services, None
            )  # `quizbot discord sync`: no LoginFailure traceback
    finally:
        await app.close()
    for said in (run, sync):
        assert "\n" not in str(said.value) and "not-the-token" not in str(said.value)
    assert not fake.identifies and not fake.command_puts


async def test_no_way_to_reach_discord_is_a_plain_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    app = await make_app(tmp_path)
    try:
        with pytest.raises(SetupError, match=r"^cannot reach Discord at ") as run:
            await run_discord(app.services)
        with pytest.raises(SetupError, match=r"^cannot reach Discord at ") as sync:
            await sync_commands(app.services, GUILD_1)
    finally:
        await app.close()
    for said in (run, sync):
        assert "\n" not in str(said.value) and "ClientConnectorError" in str(said.value)
        assert str(said.value).startswith(f"cannot reach Discord at http://127.0.0.1:{port}/")
