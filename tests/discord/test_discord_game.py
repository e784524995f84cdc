"""The live game on Discord, end to end: `/quiz game start|stop` through the real
discord.py client and the fake Discord, the game loop's messages (the announcement, each
question with a `<t:...:R>` countdown, the reveal edited in place, the standings, the
podium), the private "locked in" replies, the refusals, a restart in the middle of a
question, and two processes on one database that post each question once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
from discord_harness import ADMIN, ALICE, BOB, CAROL, CHANNEL, BotFactory, DiscordBot, Person

from bot.domain.clock import ManualClock

START = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)
SERVER = "discord:111111111111111111"
DAVE, ERIN = Person(104, "dave"), Person(105, "erin")
PLAYERS = (ALICE, BOB, CAROL, DAVE, ERIN)
LOCKED = "Right or wrong is revealed when the time is up."


async def begin(bot: DiscordBot, questions: int = 3, seconds: int = 10, by: Person = ALICE) -> None:
    reply = await bot.run(
        "quiz",
        "start",
        subgroup="game",
        by=by,
        deck="basics",
        questions=questions,
        seconds=seconds,
    )
    assert reply.ephemeral and reply.data["content"] == (
        "Game on! The first question comes in a few seconds."
    )


def channel_posts(bot: DiscordBot) -> list[dict[str, Any]]:
    return bot.fake.posts_in(CHANNEL)


def description(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    return f"{embed.get('title', '')}\n{embed.get('description', '')}"


async def next_question(bot: DiscordBot, clock: ManualClock) -> tuple[dict[str, Any], int]:
    """The next question's message, and its post id."""
    clock.advance(timedelta(seconds=5))
    await bot.app.services.games.tick()
    message = channel_posts(bot)[-1]
    custom_id = message["components"][0]["components"][0]["custom_id"]
    return message, int(custom_id.split(":")[2])


async def pick(
    bot: DiscordBot, message: dict[str, Any], post_id: int, by: Person, right: bool
) -> str:
    answer = await bot.right_label(post_id)
    labels = [b["label"] for row in message["components"] for b in row["components"]]
    label = answer if right else next(x for x in labels if x != answer)
    reply = await bot.reply(await bot.click(message["id"], label, by=by))
    assert reply.ephemeral and not reply.data.get("embeds")
    return str(reply.data["content"])


async def test_a_game_of_three_questions_with_five_players(make_bot: BotFactory) -> None:
    clock = ManualClock(START)
    bot = await make_bot(clock=clock)
    await begin(bot)
    await bot.app.services.games.tick()
    (announcement,) = channel_posts(bot)
    shown = description(announcement)
    assert shown.startswith("🎮 Quiz game: Parallelism \\_basics\\_")
    assert (
        "3 questions, 10 seconds each (longer for a question that needs it)." in shown
        and f"Started by <@{ALICE.id}>." in shown
    )

    right = {p.id: 0 for p in PLAYERS}
    for number in (1, 2, 3):
        message, post_id = await next_question(bot, clock)
        text = description(message)
        assert text.startswith(f"🎮 Parallelism \\_basics\\_ · Question {number} of 3")
        closes = int((START + timedelta(seconds=15 * number)).timestamp())
        assert text.endswith(f"⏱ 10 seconds to answer · closes <t:{closes}:R>")
        for n, person in enumerate(PLAYERS):
            good = (n + number) % 2 == 0
            said = await pick(bot, message, post_id, person, good)
            assert said.startswith("🔒 Locked in: ") and said.endswith(LOCKED)
            right[person.id] += good
        clock.advance(timedelta(seconds=10))
        await bot.app.services.games.tick()
        revealed = bot.fake.messages[message["id"]]
        shown = [b for row in revealed["components"] for b in row["components"]]
        assert shown and all(b["disabled"] for b in shown)  # the right one green (style 3)
        assert [b["label"] for b in shown if b["style"] == 3] == [await bot.right_label(post_id)]
        counted = sum(1 for n in range(5) if (n + number) % 2 == 0)
        footer = revealed["embeds"][0]["footer"]["text"]
        assert footer == f"5 answered · {round(counted / 5 * 100)}% got it right"
        if number < 3:
            standings = description(channel_posts(bot)[-1])
            assert f"Standings after question {number} of 3" in standings
            assert "5 playing" in standings

    results = description(channel_posts(bot)[-1])
    assert results.startswith("🏆 Final results · Parallelism \\_basics\\_")
    best = max(right.values())
    for user_id, points in right.items():
        if points == best:
            assert f"🥇 <@{user_id}> · {best}" in results
    assert "5 played." in results


async def test_refusals_on_discord(make_bot: BotFactory) -> None:
    clock = ManualClock(START)
    bot = await make_bot(clock=clock)
    await begin(bot, questions=2, seconds=30)
    second = await bot.run("quiz", "start", subgroup="game", by=BOB)
    assert second.ephemeral and second.data["content"].startswith(
        "A game is already running in this channel."
    )
    await bot.app.services.games.tick()
    message, post_id = await next_question(bot, clock)
    await pick(bot, message, post_id, CAROL, True)
    refused = await bot.run("quiz", "stop", subgroup="game", by=BOB)
    assert refused.ephemeral and refused.data["content"] == (
        "Only whoever started this game, or an admin, can stop it."
    )
    stopped = await bot.run("quiz", "stop", subgroup="game", by=ADMIN)
    assert stopped.data["content"].startswith("Stopping the game:")
    await bot.app.services.games.tick()
    footer = bot.fake.messages[message["id"]]["embeds"][0]["footer"]["text"]
    assert footer == "1 answered · 100% got it right"
    results = description(channel_posts(bot)[-1])
    assert results.startswith("🛑 The game was stopped · results so far")
    assert f"🥇 <@{CAROL.id}> · 1" in results


async def test_a_restart_in_the_middle_of_a_question(make_bot: BotFactory) -> None:
    clock = ManualClock(START)
    first = await make_bot(clock=clock)
    await begin(first, questions=2, seconds=20)
    await first.app.services.games.tick()
    message, post_id = await next_question(first, clock)
    for person, good in ((ALICE, True), (BOB, False), (CAROL, True)):
        said = await pick(first, message, post_id, person, good)  # acknowledged
        assert said.endswith(LOCKED)
    await first.stop()  # killed with the question open

    clock.advance(timedelta(minutes=2))  # its time ran out while nothing ran
    bot = await make_bot(clock=clock)
    await bot.app.services.games.tick()
    footer = bot.fake.messages[message["id"]]["embeds"][0]["footer"]["text"]
    assert footer == "3 answered · 67% got it right"
    assert "Standings after question 1 of 2" in description(channel_posts(bot)[-1])
    message, post_id = await next_question(bot, clock)
    assert description(message).startswith("🎮 Parallelism \\_basics\\_ · Question 2 of 2")
    await pick(bot, message, post_id, BOB, True)
    clock.advance(timedelta(seconds=20))
    await bot.app.services.games.tick()
    results = description(channel_posts(bot)[-1])
    assert f"🥇 <@{ALICE.id}> · 1" in results and f"🥇 <@{BOB.id}> · 1" in results
    assert "3 played." in results


async def test_two_processes_on_one_database_post_each_question_once(
    make_bot: BotFactory,
) -> None:
    clock = ManualClock(START)
    one = await make_bot(clock=clock)
    two = await make_bot(clock=clock)
    await begin(one, questions=3, seconds=10)

    async def both() -> None:
        await asyncio.gather(one.app.services.games.tick(), two.app.services.games.tick())

    await both()
    for _ in range(3):
        clock.advance(timedelta(seconds=5))
        await both()
        clock.advance(timedelta(seconds=10))
        await both()
    titles = [description(m).split("\n")[0] for m in channel_posts(one)]
    questions = [t for t in titles if "· Question" in t]
    assert questions == [f"🎮 Parallelism \\_basics\\_ · Question {n} of 3" for n in (1, 2, 3)]
    assert sum(t.startswith("🎮 Quiz game") for t in titles) == 1
    assert sum(t.startswith("🏆 Final results") for t in titles) == 1


async def test_a_channel_the_bot_cannot_post_in_is_refused_at_once(make_bot: BotFactory) -> None:
    bot = await make_bot(clock=ManualClock(START))
    lacking = discord.Permissions(view_channel=True, use_application_commands=True)
    refused = await bot.run(
        "quiz", "start", subgroup="game", by=ALICE, deck="basics", app_permissions=lacking
    )
    assert refused.ephemeral and refused.data["content"].startswith(
        "I lack Send Messages, Embed Links in this channel, so a game cannot be played here."
    )
    assert await bot.app.store.running_game(SERVER, str(CHANNEL)) is None
    await bot.app.services.games.tick()
    assert channel_posts(bot) == []
