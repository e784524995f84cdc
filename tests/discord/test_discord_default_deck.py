"""A server's default deck on Discord, end to end through the real discord.py client and
the fake Discord: an admin sets it with `/quizadmin deck default deck:` (autocompleted),
and `/quiz post` and `/quiz game start` without a deck play it; a member cannot set it;
`/quiz decks` marks it for everyone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from discord_harness import ADMIN, ALICE, BOB, CHANNEL, GUILD_2, BotFactory, DiscordBot

from bot.domain.clock import ManualClock

START = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)
SERVER = "discord:111111111111111111"
SEED = "model-pipeline-parallelism"
SHIPPED = sorted(p.stem for p in (Path(__file__).parents[2] / "questions").glob("*.yaml"))
"""The shipped decks' ids (each file's name), which the test bot loads beside its own."""
SEED_TITLE = "Model and Pipeline Parallelism Quiz"
ADMIN_ONLY = "Only an admin can do that. On Discord that means the Manage Server permission."
HOW = "An admin sets it with /quizadmin deck default deck:, and clears it with deck: none."


async def default_deck(bot: DiscordBot, by: Any = ADMIN, **options: Any) -> str:
    reply = await bot.run("quizadmin", "default", subgroup="deck", by=by, **options)
    assert reply.ephemeral
    return str(reply.data["content"])


async def choices(bot: DiscordBot, group: str, sub: str, **options: Any) -> list[Any]:
    """What autocomplete offers for the option named by `focused`."""
    record = await bot.fake.dispatch_interaction(bot.command_payload(group, sub, **options))
    await bot.fake.until(lambda: bool(record.callbacks))
    body = record.callbacks[0][1]
    assert body["type"] == 8
    return list(body["data"]["choices"])


async def test_an_admin_sets_the_default_and_post_and_game_play_it(make_bot: BotFactory) -> None:
    clock = ManualClock(START)
    bot = await make_bot(clock=clock)

    assert await default_deck(bot, by=BOB, deck=SEED) == ADMIN_ONLY
    assert await default_deck(bot, by=BOB) == ADMIN_ONLY
    assert await bot.app.store.server_default_deck(SERVER) is None
    assert await default_deck(bot) == (
        "★ basics is the default deck, as the first by id (none is set for this server or in "
        f"the config).\n{HOW}"
    )

    offered = await choices(
        bot, "quizadmin", "default", subgroup="deck", by=ADMIN, focused="deck", deck=""
    )
    assert offered[0] == {"name": "none · clear this server's own default", "value": "none"}
    assert [c["value"] for c in offered[1:]] == ["basics", *SHIPPED]
    offered = await choices(
        bot, "quizadmin", "default", subgroup="deck", by=ADMIN, focused="deck", deck="model-pipe"
    )
    assert offered == [{"name": f"{SEED} · {SEED_TITLE}", "value": SEED}]

    assert await default_deck(bot, deck="pipelines") == (
        f"There is no deck “pipelines”. Decks: {', '.join(['basics', *SHIPPED])}"
    )
    assert await default_deck(bot, deck=SEED) == (
        f"Default deck changed.\n★ {SEED} is this server's default deck, set here: a command "
        "or daily question that names no deck uses it."
    )
    assert await bot.app.store.server_default_deck(SERVER) == SEED

    post_id, reply = await bot.post(by=ALICE)
    post = await bot.app.store.post(post_id)
    assert post is not None and post.deck_id == SEED
    assert reply.embed["title"].startswith(f"{SEED_TITLE} · Question ")
    questions = await choices(bot, "quiz", "post", by=ALICE, focused="question", question="")
    seed = bot.app.services.catalog.decks.get(SEED)
    assert seed is not None
    assert [c["value"] for c in questions] == [q.id for q in seed][:25]

    started = await bot.run("quiz", "start", subgroup="game", by=BOB, questions=2, seconds=10)
    assert started.data["content"] == "Game on! The first question comes in a few seconds."
    await bot.app.services.games.tick()
    announcement = bot.fake.posts_in(CHANNEL)[-1]["embeds"][0]
    assert f"{announcement.get('title', '')}{announcement['description']}".startswith(
        f"🎮 Quiz game: {SEED_TITLE}"
    )
    clock.advance(timedelta(seconds=5))
    await bot.app.services.games.tick()
    question = bot.fake.posts_in(CHANNEL)[-1]["embeds"][0]
    assert question["title"] == f"🎮 {SEED_TITLE} · Question 1 of 2"

    decks = (await bot.run("quiz", "decks", by=ALICE)).embed["description"]
    assert f"{SEED}: {SEED_TITLE} · 8 questions · বাংলা, English · ★ default" in decks
    assert "basics: Parallelism \\_basics\\_ · 3 questions · English, বাংলা\n" in decks
    assert decks.endswith(
        f"★ {SEED} is this server's default deck, set here: a command or daily question that "
        f"names no deck uses it.\n{HOW}"
    )

    _, elsewhere = await bot.post(by=ALICE, guild=GUILD_2)  # another server: its own default
    assert elsewhere.embed["title"].startswith("Parallelism \\_basics\\_ · Question ")

    assert await default_deck(bot, deck="none") == (
        "This server's own default deck is cleared.\n★ basics is the default deck, as the "
        "first by id (none is set for this server or in the config)."
    )
    assert await bot.app.store.server_default_deck(SERVER) is None
