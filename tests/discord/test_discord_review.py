"""Review of misses and mastery on Discord, end to end: a member's misses (a wrong click on
a posted question, a wrong pick in a run) come back in /quiz review one at a time, with
buttons like a run's; /quiz stats shows what is due and mastery by topic, with a button that
reviews the weakest topic; /quiz leaderboard period:mastery ranks by questions mastered."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from discord_harness import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    BotFactory,
    DiscordBot,
    Person,
    Reply,
    extra_followups,
    team_deck,
)
from fake_discord import EPHEMERAL

from bot.decks.model import DeckLibrary
from bot.discord.review import review_id, topic_view
from bot.domain.clock import ManualClock
from bot.domain.review import Card, Source, card_key, review_order
from bot.domain.run import run_order
from bot.presentation.review_messages import Weakest

MONDAY = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
SERVER = "discord:111111111111111111"
TAGS = {
    "all-reduce": ("communication",),
    "bubble": ("pipeline",),
    "shard": ("tensor", "communication"),
}
ADDED = "📚 Added to your review: /quiz review brings it back."
TOMORROW = "It comes back tomorrow."
DONE = "Nothing more to review today. 🎉\nThe next question falls due on Tuesday 2026-03-03."


def tagged() -> DeckLibrary:
    """The team deck, its questions tagged by topic."""
    deck = team_deck()
    return DeckLibrary([replace(deck, questions=tuple(replace(q, tags=TAGS[q.id]) for q in deck))])


async def started(make_bot: BotFactory) -> tuple[DiscordBot, ManualClock]:
    clock = ManualClock(MONDAY)
    return await make_bot(decks=tagged(), clock=clock), clock


def labels(reply: Reply) -> list[str]:
    return [b["label"] for b in reply.buttons]


def other(reply: Reply, label: str) -> str:
    return next(b["label"] for b in reply.buttons if b["label"] not in (label, "Report a problem"))


def review_right(bot: DiscordBot, by: Person, step: Reply) -> str:
    """The letter of the right answer on a review question, from what its buttons name."""
    _, _, key, number, _ = step.buttons[0]["custom_id"].split(":")[:5]
    deck, question = bot.app.services.catalog.question_by_key(key)
    card = Card(deck.id, question.id, True, 0, None, int(number), False)
    return "ABCDE"[review_order(str(by.id), card, question, int(number)).index(question.answer)]


def run_right(bot: DiscordBot, step: Reply) -> str:
    _, _, run_id, question_id, _ = step.buttons[0]["custom_id"].split(":")
    question = bot.app.services.catalog.deck("basics").question(question_id)
    assert question is not None
    return "ABCDE"[run_order(int(run_id), question).index(question.answer)]


async def run_through(bot: DiscordBot, by: Person, right: list[bool]) -> None:
    """/quiz start deck:basics, then one pick per question shown: right or wrong."""
    step = await bot.run("quiz", "start", by=by, deck="basics")
    for n, is_right in enumerate(right):
        label = run_right(bot, step)
        click = await bot.click(
            step.message_id or "", label if is_right else other(step, label), by=by
        )
        answered = await bot.reply(click)
        assert answered.data["embeds"][1]["title"] == ("✅ Right!" if is_right else "❌ Not quite.")
        await bot.fake.until(lambda click=click: bool(extra_followups(click)))
        step = extra_followups(click)[0]
        if n == len(right) - 1:
            assert not step.buttons  # the run's summary


async def miss_in_a_post(bot: DiscordBot, by: Person, question: str = "all-reduce") -> Reply:
    post_id, posted = await bot.post(deck="basics", question=question, by=ADMIN)
    right = await bot.right_label(post_id)
    return await bot.reply(await bot.click(posted.message_id or "", other(posted, right), by=by))


async def review_answers(bot: DiscordBot, by: Person) -> list[bool]:
    """Whether each of `by`'s stored review answers was right, oldest first."""
    studies = await bot.app.store.studies(SERVER, str(by.id))
    return [s.correct for s in sorted(studies, key=lambda s: s.at) if s.source is Source.REVIEW]


async def test_two_misses_come_back_one_at_a_time_then_done(make_bot: BotFactory) -> None:
    bot, clock = await started(make_bot)
    missed = await miss_in_a_post(bot, ALICE)
    assert missed.embed["title"] == "❌ Not quite."
    assert missed.embed["footer"]["text"].endswith("\n" + ADDED)
    assert labels(missed) == ["বাংলায় দেখুন", "Report a problem"]
    clock.advance(timedelta(minutes=1))
    # The post is still open, so the run passes over it: bubble (missed), then shard.
    await run_through(bot, ALICE, [False, True])
    clock.advance(timedelta(minutes=1))

    first = await bot.run("quiz", "review", by=ALICE)
    assert first.ephemeral and first.kind == "new"
    assert first.embed["title"] == "Review · Parallelism \\_basics\\_ · 2 due"
    assert first.embed["description"].startswith("Which collective sums gradients on every rank?")
    assert first.embed["footer"]["text"] == "Review never scores; it counts toward mastery."
    assert labels(first) == ["A", "B", "C"]
    key = card_key("basics", "all-reduce")
    assert [b["custom_id"] for b in first.buttons] == [f"quiz:v:{key}:0:{i}" for i in range(3)]

    right = review_right(bot, ALICE, first)
    click = await bot.click(first.message_id or "", right, by=ALICE)
    answered = await bot.reply(click)
    assert answered.kind == "update"  # the question keeps its text and gains the feedback
    question, feedback = answered.data["embeds"]
    assert question["title"] == first.embed["title"]
    assert feedback["title"] == "✅ Right!"
    assert f"**Answer: {right}. all\\_reduce**" in feedback["description"]
    assert "Explanation of all-reduce: \\*kept\\* literally." in feedback["description"]
    assert feedback["footer"]["text"] == TOMORROW
    choices, below = answered.data["components"]
    assert all(b["disabled"] for b in choices["components"])
    assert {b["label"]: b["style"] for b in choices["components"]}[right] == 3  # green
    assert [(b["label"], b["custom_id"]) for b in below["components"]] == [
        ("Report a problem", f"quiz:p:{key}")
    ]

    await bot.fake.until(lambda: bool(extra_followups(click)))
    second = extra_followups(click)[0]
    assert second.ephemeral and second.data["flags"] & EPHEMERAL
    assert second.embed["title"] == "Review · Parallelism \\_basics\\_ · 1 due"
    assert second.embed["description"].startswith("What idles GPUs in a pipeline?")
    wrong = other(second, review_right(bot, ALICE, second))
    click = await bot.click(second.message_id or "", wrong, by=ALICE)
    feedback = (await bot.reply(click)).data["embeds"][1]
    assert feedback["title"] == "❌ Not quite."
    assert f"Why not {wrong}: It runs after." in feedback["description"]
    assert "Explanation of bubble" in feedback["description"]
    assert feedback["footer"]["text"] == TOMORROW
    await bot.fake.until(lambda: bool(extra_followups(click)))
    done = extra_followups(click)[0]
    assert done.ephemeral and done.data["content"] == DONE and not done.buttons

    again = await bot.run("quiz", "review", by=ALICE)
    assert again.ephemeral and again.data["content"] == DONE
    assert await review_answers(bot, ALICE) == [True, False]

    # Review never scores: Alice's points are the run's one right answer.
    totals = await bot.app.store.totals(SERVER, 1, str(ALICE.id))
    assert totals.points == 1


async def test_a_repeated_click_on_a_review_button_counts_once(make_bot: BotFactory) -> None:
    bot, clock = await started(make_bot)
    await miss_in_a_post(bot, BOB, "bubble")
    clock.advance(timedelta(minutes=1))
    step = await bot.run("quiz", "review", by=BOB)
    right = review_right(bot, BOB, step)

    # Two clicks at once (a double click), then one more on the answered message.
    message = bot.fake.messages[step.message_id or ""]
    custom_id = next(b["custom_id"] for b in step.buttons if b["label"] == right)
    payloads = [bot.click_payload(message, custom_id, by=BOB) for _ in range(2)]
    both = await asyncio.gather(*(bot.fake.dispatch_interaction(p) for p in payloads))
    replies = [await bot.reply(record) for record in both]
    late = await bot.reply(await bot.click(step.message_id or "", right, by=BOB))

    headlines = sorted(r.data["embeds"][1]["title"] for r in [*replies, late])
    duplicate = "You already answered this review question; your first answer stands."
    assert headlines == [duplicate, duplicate, "✅ Right!"]
    assert await review_answers(bot, BOB) == [True]


async def test_stats_show_what_is_due_and_mastery_and_review_the_weakest_topic(
    make_bot: BotFactory,
) -> None:
    bot, clock = await started(make_bot)
    await miss_in_a_post(bot, ALICE)  # all-reduce: communication
    clock.advance(timedelta(minutes=1))
    await run_through(bot, ALICE, [False, True])  # bubble (pipeline) missed, shard right
    clock.advance(timedelta(minutes=1))

    stats = await bot.run("quiz", "stats", by=ALICE)
    lines = stats.embed["description"].split("\n")
    assert "Due for review: 2 (/quiz review)" in lines
    assert "Questions mastered: 1" in lines
    mastery = lines[lines.index("Mastery by topic:") + 1 :]
    assert mastery == [
        "  communication: 1/2",
        "  pipeline: 0/1",
        "  tensor: 1/1",
        "Weakest topic: pipeline",
    ]
    (button,) = stats.buttons
    assert (button["label"], button["custom_id"]) == ("Review pipeline (1 due)", "quiz:t:pipeline")

    # Someone else's stats: nothing due is shown, and no button.
    seen = await bot.run("quiz", "stats", by=BOB, user=ALICE)
    assert "Due for review" not in seen.embed["description"] and not seen.buttons

    step = await bot.reply(
        await bot.click(stats.message_id or "", "Review pipeline (1 due)", by=ALICE)
    )
    assert step.ephemeral and step.kind == "new"
    assert step.embed["title"] == "Review · Parallelism \\_basics\\_ · 1 due · pipeline"
    assert step.embed["description"].startswith("What idles GPUs in a pipeline?")
    assert all(b["custom_id"].endswith(":pipeline") for b in step.buttons)
    click = await bot.click(step.message_id or "", review_right(bot, ALICE, step), by=ALICE)
    await bot.fake.until(lambda: bool(extra_followups(click)))
    done = extra_followups(click)[0]
    assert done.data["content"] == (
        "Nothing more to review in pipeline today. 🎉\n"
        "The next question falls due on Tuesday 2026-03-03."
    )

    # /quiz review topic: does the same; what the topic option offers is the decks' tags.
    rest = await bot.run("quiz", "review", by=ALICE, topic="Communication")
    assert rest.embed["title"] == "Review · Parallelism \\_basics\\_ · 1 due · communication"
    record = await bot.fake.dispatch_interaction(
        bot.command_payload("quiz", "review", by=ALICE, focused="topic", topic="com")
    )
    await bot.fake.until(lambda: bool(record.callbacks))
    assert record.callbacks[0][1]["data"]["choices"] == [
        {"name": "communication", "value": "communication"}
    ]
    unknown = await bot.run("quiz", "review", by=ALICE, topic="cooking")
    assert unknown.ephemeral and unknown.data["content"] == "No deck has the topic “cooking”."


async def test_the_mastery_leaderboard_ranks_by_questions_mastered(make_bot: BotFactory) -> None:
    bot, clock = await started(make_bot)
    await run_through(bot, ALICE, [True, True, True])
    clock.advance(timedelta(minutes=1))
    await run_through(bot, BOB, [True, False, False])
    clock.advance(timedelta(minutes=1))

    board = await bot.run("quiz", "leaderboard", by=CAROL, period="mastery")
    assert board.ephemeral
    assert board.embed["title"] == "Leaderboard · questions mastered"
    assert board.embed["description"] == (
        f"1\\. <@{ALICE.id}> · 3 mastered\n2\\. <@{BOB.id}> · 1 mastered"
    )
    points = await bot.run("quiz", "leaderboard", by=CAROL, period="all")
    assert points.embed["title"] != board.embed["title"]


async def test_a_bengali_reader_reviews_in_bengali(make_bot: BotFactory) -> None:
    bot, clock = await started(make_bot)
    await bot.run("quiz", "language", by=CAROL, locale="bn")
    missed = await miss_in_a_post(bot, CAROL, "shard")
    assert missed.embed["footer"]["text"].endswith(
        "📚 আপনার রিভিউতে যোগ হলো: /quiz review দিলে প্রশ্নটা আবার আসবে।"
    )
    clock.advance(timedelta(minutes=1))

    step = await bot.run("quiz", "review", by=CAROL)
    assert step.embed["title"] == "রিভিউ · প্যারালেলিজমের গোড়ার কথা · বাকি ১টা"
    assert step.embed["description"].startswith("টেনসর প্যারালেলিজম কী ভাগ করে?")
    assert step.embed["footer"]["text"] == "রিভিউতে পয়েন্ট নেই, তবে টপিক আয়ত্তে আনতে এটা গোনা হয়।"
    click = await bot.click(step.message_id or "", review_right(bot, CAROL, step), by=CAROL)
    answered = await bot.reply(click)
    feedback = answered.data["embeds"][1]
    assert feedback["title"] == "✅ ঠিক উত্তর!"
    assert feedback["footer"]["text"] == "কাল আবার আসবে।"
    assert [b["label"] for b in answered.data["components"][1]["components"]] == ["সমস্যা জানান"]
    await bot.fake.until(lambda: bool(extra_followups(click)))
    assert extra_followups(click)[0].data["content"].startswith("আজকের রিভিউ শেষ। 🎉")


def test_a_topic_too_long_for_a_custom_id_is_left_out() -> None:
    """Discord's custom_id holds 100 characters: a review button drops a topic that does not
    fit (the review then goes on over every topic), and no weakest-topic button is offered."""
    key = card_key("basics", "bubble")
    assert review_id(key, 7, 2, "pipeline") == f"quiz:v:{key}:7:2:pipeline"
    long_tag = "t" * 80
    assert review_id(key, 7, 2, long_tag) == f"quiz:v:{key}:7:2"
    assert topic_view(Weakest("Review it", "t" * 94)) is None
    assert topic_view(Weakest("Review it", "t" * 93)) is not None
