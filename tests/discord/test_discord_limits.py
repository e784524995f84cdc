"""Every message stays within Discord's limits: the shipped Bengali deck end to end, and a
deck written far past every limit (the `fake` fixture checks each message the bot sent)."""

from __future__ import annotations

from discord_harness import (
    ADMIN,
    ALICE,
    BOB,
    BotFactory,
    DiscordBot,
    check_limits,
    extra_followups,
    library,
)
from fake_discord import FakeDiscord

from bot.decks.model import Choice, Deck, Question
from bot.domain.run import run_order

LONG = "Long text with *markdown* and _underscores_ " * 150  # ~6600 characters


def long_deck() -> Deck:
    question = Question(
        id="q-" + "x" * 62,  # the longest id a deck may have: 64 characters
        text={"en": LONG},
        choices=tuple(Choice({"en": f"{i} {LONG[:500]}"}, why={"en": LONG}) for i in range(5)),
        answer=4,
        explanation={"en": LONG},
        position=1,
    )
    return Deck(id="zz-long", title={"en": "T" * 400}, locales=("en",), questions=(question,))


async def _play_run(bot: DiscordBot, deck: str) -> int:
    """Takes a whole run, always picking A; returns how many steps it had."""
    step = await bot.run("quiz", "start", by=BOB, deck=deck)
    steps = 0
    while step.buttons:
        click = await bot.click(step.message_id or "", "A", by=BOB)
        await bot.reply(click)
        await bot.fake.until(lambda click=click: bool(extra_followups(click)))
        step = extra_followups(click)[0]
        steps += 1
    return steps


async def test_the_shipped_bengali_deck_end_to_end(bot: DiscordBot, fake: FakeDiscord) -> None:
    deck = bot.app.services.catalog.decks.get("model-pipeline-parallelism")
    assert deck is not None and deck.default_locale == "bn"
    await bot.run("quizadmin", "language", by=ADMIN, locale="bn")
    for question in deck:
        post_id, posted = await bot.post(deck=deck.id, question=question.id)
        assert posted.embed["title"].endswith(f"প্রশ্ন {_bn(question.position)}/{_bn(len(deck))}")
        await bot.reply(await bot.click(posted.message_id or "", "A", by=ALICE))
        closed = await bot.run("quiz", "close", by=ALICE)
        assert closed.data["content"] == "বন্ধ করা হয়েছে।"
        post = await bot.app.store.post(post_id)
        assert post is not None and not post.is_open
    assert await _play_run(bot, deck.id) == len(deck)
    check_limits(fake)
    assert len(fake.sent_messages()) > 4 * len(deck)


async def test_a_deck_past_every_limit_is_clipped(make_bot: BotFactory, fake: FakeDiscord) -> None:
    bot = await make_bot(decks=library(long_deck()))
    post_id, posted = await bot.post(deck="zz-long")
    embed = posted.embed
    assert len(embed["title"]) == 256 and embed["title"].endswith("…")
    assert 4000 < len(embed["description"]) <= 4096 and embed["description"].endswith("…")
    custom_ids = [b["custom_id"] for b in posted.buttons]
    assert len(custom_ids) == 5 and all(len(c) <= 100 for c in custom_ids)

    wrong = await bot.reply(await bot.click(posted.message_id or "", "A", by=ALICE))
    assert 4000 < len(wrong.embed["description"]) <= 4096
    await bot.run("quiz", "close", by=ALICE)
    await fake.until(lambda: any(e[0] == posted.message_id for e in fake.channel_edits))
    reveal = fake.messages[posted.message_id or ""]["embeds"][0]
    assert 4000 < len(reveal["description"]) <= 4096
    assert await bot.app.store.answer_count(post_id) == 1

    step = await bot.run("quiz", "start", by=BOB, deck="zz-long")
    run_id = int(step.buttons[0]["custom_id"].split(":")[2])
    question = long_deck().questions[0]
    assert max(len(b["custom_id"]) for b in step.buttons) == len(f"quiz:r:{run_id}:{question.id}:0")
    right = "ABCDE"[run_order(run_id, question).index(question.answer)]
    click = await bot.click(step.message_id or "", right, by=BOB)
    answered = await bot.reply(click)
    assert len(answered.data["embeds"]) == 2  # the question and its feedback: 6000 between them
    assert (
        sum(len(e.get("title", "")) + len(e["description"]) for e in answered.data["embeds"])
        <= 6000
    )
    check_limits(fake)


def _bn(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯"))
