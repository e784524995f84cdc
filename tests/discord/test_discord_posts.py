"""A question in a channel: the post, clicks, the count, the reveal, odd clicks, a restart."""

from __future__ import annotations

import asyncio
import logging

import discord
import pytest
from discord_harness import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    BotFactory,
    DiscordBot,
    eventually,
    extra_followups,
    visible,
)
from fake_discord import EPHEMERAL

from bot.domain.errors import QuizError


async def test_post_is_an_embed_with_a_button_per_choice(bot: DiscordBot) -> None:
    post_id, reply = await bot.post(deck="basics", question="all-reduce")

    assert reply.kind == "new" and not reply.ephemeral
    embed = reply.embed
    assert embed["title"] == "Parallelism \\_basics\\_ · Question 1 of 3"
    description = embed["description"]
    assert description.startswith(
        "Which collective sums gradients on every rank? (all\\_reduce or \\*reduce\\*)"
    )
    for letter in "ABC":
        assert f"**{letter}.** " in description
    assert "all\\_reduce" in description and "broadcast" in description and "gather" in description
    assert embed["footer"]["text"] == "0 answered"
    assert [b["label"] for b in reply.buttons] == ["A", "B", "C"]
    assert [b["custom_id"] for b in reply.buttons] == [f"quiz:a:{post_id}:{i}" for i in range(3)]
    assert all(b["style"] == 2 and not b["disabled"] for b in reply.buttons)

    post = await bot.app.store.post(post_id)
    assert post is not None and post.message_ref == f"{CHANNEL}:{reply.message_id}"
    assert post.channel_id == str(CHANNEL) and post.server_id == "discord:111111111111111111"


async def test_right_and_wrong_clicks_get_private_replies(bot: DiscordBot) -> None:
    post_id, posted = await bot.post(deck="basics", question="all-reduce")
    message = posted.message_id
    assert message is not None
    right = await bot.right_label(post_id)
    wrong = next(b["label"] for b in posted.buttons if b["label"] != right)

    click = await bot.click(message, right, by=ALICE)
    alice = await bot.reply(click)
    assert click.callbacks[0][1]["type"] == 4  # a quick store: answered directly, no deferral
    assert alice.ephemeral and alice.kind == "new"
    assert alice.embed["title"] == "✅ Right!"
    assert f"**Answer: {right}. all\\_reduce**" in alice.embed["description"]
    assert "Explanation of all-reduce: \\*kept\\* literally." in alice.embed["description"]
    assert alice.embed["footer"]["text"] == "Your score this season: 1 points · 1 of 1 right"
    assert [b["label"] for b in alice.buttons] == ["বাংলায় দেখুন", "Report a problem"]

    bob = await bot.reply(await bot.click(message, wrong, by=BOB))
    assert bob.ephemeral
    assert bob.embed["title"] == "❌ Not quite."
    assert f"Why not {wrong}: " in bob.embed["description"]
    assert bob.embed["footer"]["text"] == (
        "Your score this season: 0 points · 0 of 1 right\n"
        "📚 Added to your review: /quiz review brings it back."
    )

    # The other language: the same reply, redrawn in place, with a button back.
    switched = await bot.reply(await bot.click(bob.message_id or "", "বাংলায় দেখুন", by=BOB))
    assert switched.kind == "update"
    assert switched.embed["title"] == "❌ ঠিক হয়নি।"  # reads as the original reply did
    assert "সঠিক উত্তর: " in switched.embed["description"]
    assert [b["label"] for b in switched.buttons] == ["Show in English", "সমস্যা জানান"]

    assert await bot.app.store.answer_count(post_id) == 2
    # The public count follows, in one coalesced edit.
    await bot.fake.until(
        lambda: any(
            e[1]["embeds"][0]["footer"]["text"] == "2 answered" for e in bot.fake.channel_edits
        )
    )
    assert all(mid == message for mid, _ in bot.fake.channel_edits)


async def test_a_second_click_changes_nothing(bot: DiscordBot) -> None:
    post_id, posted = await bot.post(deck="basics", question="bubble")
    assert posted.message_id is not None
    right = await bot.right_label(post_id)
    wrong = "B" if right == "A" else "A"
    await bot.reply(await bot.click(posted.message_id, right, by=CAROL))

    again = await bot.reply(await bot.click(posted.message_id, wrong, by=CAROL))
    assert again.ephemeral
    assert again.embed["title"] == f"You already answered {right}. Your first answer stands."
    assert await bot.app.store.post_answer_of(post_id, str(CAROL.id)) is not None
    assert await bot.app.store.answer_count(post_id) == 1
    totals = await bot.app.store.totals("discord:111111111111111111", 1, str(CAROL.id))
    assert totals.points == 1 and totals.answered == 1


async def test_close_reveals_on_the_question_itself(bot: DiscordBot) -> None:
    post_id, posted = await bot.post(deck="basics", question="shard", by=ALICE)
    assert posted.message_id is not None
    right = await bot.right_label(post_id)
    wrong = next(b["label"] for b in posted.buttons if b["label"] != right)
    for person, label in ((ALICE, right), (BOB, wrong), (CAROL, right)):
        await bot.reply(await bot.click(posted.message_id, label, by=person))

    refused = await bot.run("quiz", "close", by=BOB)  # not the poster, not an admin
    assert refused.ephemeral
    assert (
        refused.data["content"] == "Only whoever posted this question, or an admin, can close it."
    )

    closed = await bot.run("quiz", "close", by=ALICE)
    assert closed.ephemeral and closed.data["content"] == "Closed."
    await bot.fake.until(
        lambda: any(
            e[1]["components"][0]["components"][0]["disabled"] for e in bot.fake.channel_edits
        )
    )
    reveal = bot.fake.messages[posted.message_id]
    buttons = [c for row in reveal["components"] for c in row["components"]]
    assert all(b["disabled"] for b in buttons)
    assert [b["style"] for b in buttons] == [3 if b["label"] == right else 2 for b in buttons]
    embed = reveal["embeds"][0]
    assert "█" in embed["description"] and "░" in embed["description"]
    assert f"**{right} ███████░░░ 2 · 67% ✅ · weight matrices**" in embed["description"]
    assert f"{wrong} ███░░░░░░░ 1 · 33%" in embed["description"]
    assert "Explanation of shard" in embed["description"]
    assert embed["footer"]["text"] == "3 answered · 67% got it right"

    late = await bot.reply(await bot.click(posted.message_id, right, by=ADMIN))
    assert late.ephemeral
    assert late.embed["title"] == "This question is closed, so your answer was not counted."
    assert await bot.app.store.answer_count(post_id) == 3


async def test_an_admin_closes_anyones_question(bot: DiscordBot) -> None:
    post_id, _ = await bot.post(deck="basics", by=BOB)
    closed = await bot.run("quizadmin", "close", by=ADMIN)
    assert closed.data["content"] == "Closed."
    post = await bot.app.store.post(post_id)
    assert post is not None and not post.is_open
    nothing = await bot.run("quizadmin", "close", by=ADMIN)
    assert nothing.data["content"] == "There is no open question in this channel."


async def test_tampered_buttons_get_a_polite_private_reply(bot: DiscordBot) -> None:
    post_id, posted = await bot.post(deck="basics", question="all-reduce")
    assert posted.message_id is not None
    original = bot.fake.messages[posted.message_id]
    stale = "That button no longer belongs to an open question. Try /quiz post for a fresh one."
    for custom_id in (
        "quiz:a:987654321:1",  # no such post
        f"quiz:a:{post_id}:4",  # no fifth choice on this post
        f"quiz:a:{post_id}:9",  # no template takes it
        "quiz:a:" + "9" * 40 + ":1",  # an id no database holds
        "garbage",
        f"quiz:r:{post_id}:no-such-question:0",  # a run that is not this user's
    ):
        message = {
            **original,
            "components": [
                {
                    "type": 1,
                    "components": [{"type": 2, "style": 2, "label": "A", "custom_id": custom_id}],
                }
            ],
        }
        record = await bot.fake.dispatch_interaction(bot.click_payload(message, custom_id, by=BOB))
        reply = await bot.reply(record)
        assert reply.ephemeral, custom_id
        assert reply.data["content"] == stale, custom_id
        assert record.first_response_after is not None and record.first_response_after < 3
    assert await bot.app.store.answer_count(post_id) == 0
    assert await bot.app.store.post_answer_of(post_id, str(BOB.id)) is None


async def test_an_unexpected_failure_is_logged_and_apologised_for(
    bot: DiscordBot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _, posted = await bot.post(deck="basics")
    assert posted.message_id is not None

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("database on fire")

    monkeypatch.setattr(bot.app.services.answering, "answer", broken)
    with caplog.at_level(logging.ERROR, logger="quizbot.discord"):
        reply = await bot.reply(await bot.click(posted.message_id, "A", by=BOB))
    assert reply.ephemeral
    assert (
        reply.data["content"] == "Something went wrong on our side. Please try again in a moment."
    )
    assert "database on fire" not in reply.text and "Traceback" not in reply.text
    assert any("database on fire" in str(r.exc_info) for r in caplog.records if r.exc_info)


async def test_buttons_work_after_a_restart(make_bot: BotFactory) -> None:
    first = await make_bot()
    post_id, posted = await first.post(deck="basics", question="bubble")
    assert posted.message_id is not None
    right = await first.right_label(post_id)
    await first.stop()

    second = await make_bot()  # a new process: new client, new store, the same database
    reply = await second.reply(await second.click(posted.message_id, right, by=BOB))
    assert reply.ephemeral and reply.embed["title"] == "✅ Right!"
    post = await second.app.store.post(post_id)
    assert post is not None
    assert (
        await second.app.store.post_answer_of(post_id, str(BOB.id)) == post.order["AB".index(right)]
    )
    await eventually(lambda: _footer_is(second, posted.message_id or "", "1 answered"))


async def _footer_is(bot: DiscordBot, message_id: str, footer: str) -> bool:
    return bool(bot.fake.messages[message_id]["embeds"][0]["footer"]["text"] == footer)


async def test_slow_store_answers_in_the_first_response_without_a_deferral(
    bot: DiscordBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit that takes 2 s, within the click's deadline: nothing is acknowledged before
    the answer is stored ("thinking…" would be a promise), and the answer itself is the first
    response, private."""
    post_id, posted = await bot.post(deck="basics")
    assert posted.message_id is not None
    real = bot.app.services.answering.answer

    async def slow(*args: object, **kwargs: object) -> object:
        await asyncio.sleep(2.0)
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(bot.app.services.answering, "answer", slow)
    record = await bot.click(posted.message_id, "A", by=BOB)
    reply = await bot.reply(record)
    first = record.callbacks[0][1]
    assert len(record.callbacks) == 1
    assert first["type"] == 4 and first["data"]["flags"] == EPHEMERAL
    assert record.first_response_after is not None and 2.0 <= record.first_response_after < 3.0
    assert reply.ephemeral and reply.embed["title"] in ("✅ Right!", "❌ Not quite.")
    assert visible(record) == reply
    assert await bot.app.store.post_answer_of(post_id, str(BOB.id)) is not None
    assert await bot.app.store.answer_count(post_id) == 1


async def test_a_refusal_after_a_public_deferral_stays_private(
    bot: DiscordBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/quiz post defers publicly when slow; if it then fails, the public "thinking…" goes
    and the refusal is private."""

    async def slow_refusal(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(1.5)
        raise QuizError("no_decks")

    monkeypatch.setattr(bot.app.services.answering, "post", slow_refusal)
    record = await bot.command("quiz", "post", by=ALICE)
    reply = await bot.reply(record)
    assert record.callbacks[0][1] == {"type": 5}  # public thinking
    assert record.deleted_original
    assert reply.data["content"] == "No decks are loaded." and reply.data["flags"] == EPHEMERAL


async def test_closing_a_question_whose_message_is_gone_shows_the_reveal_here(
    bot: DiscordBot,
) -> None:
    _, posted = await bot.post(deck="basics", question="bubble", by=ALICE)
    del bot.fake.messages[posted.message_id or ""]  # someone deleted the message
    closed = await bot.run("quiz", "close", by=ALICE)
    assert not closed.ephemeral
    assert closed.embed["footer"]["text"] == "Nobody answered this one."
    assert all(b["disabled"] for b in closed.buttons)


async def test_a_channel_the_bot_cannot_see(bot: DiscordBot) -> None:
    """A private channel the bot was never added to: the slash command and its reply go
    through the interaction, but every later edit through the channel gets a 403. The poster
    is warned at once; the close shows the reveal as its own, public, reply."""
    bot.fake.forbidden_channels.add(str(CHANNEL))
    lacking = discord.Permissions(send_messages=True, use_application_commands=True)
    record = await bot.command(
        "quiz", "post", by=ALICE, deck="basics", question="shard", app_permissions=lacking
    )
    posted = await bot.reply(record)
    assert not posted.ephemeral and posted.embed["footer"]["text"] == "0 answered"
    await bot.fake.until(lambda: bool(extra_followups(record)))
    (warning,) = extra_followups(record)
    assert warning.ephemeral
    assert warning.data["content"].startswith(
        "Posted, but I lack View Channel, Embed Links in this channel, so I cannot update"
    )

    await bot.reply(await bot.click(posted.message_id or "", "A", by=BOB))
    await bot.fake.until(lambda: any(c.method == "PATCH" for c in bot.fake.calls))  # refused

    closed = await bot.run("quiz", "close", by=ALICE)
    assert not closed.ephemeral  # the channel sees the answer
    assert closed.embed["footer"]["text"].startswith("1 answered · ")
    assert all(b["disabled"] for b in closed.buttons)
    assert not bot.fake.channel_edits  # none went through
    late = await bot.reply(await bot.click(posted.message_id or "", "A", by=CAROL))
    assert late.embed["title"] == "This question is closed, so your answer was not counted."


async def test_a_slow_close_in_a_channel_the_bot_cannot_see_is_still_public(
    bot: DiscordBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The close was slow, so it was acknowledged with a private "thinking…"; the reveal that
    replaces the refused edit is public all the same (a message of its own)."""
    bot.fake.forbidden_channels.add(str(CHANNEL))
    await bot.post(deck="basics", question="bubble", by=ALICE)
    real = bot.app.services.answering.close

    async def slow(*args: object, **kwargs: object) -> object:
        await asyncio.sleep(1.5)
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(bot.app.services.answering, "close", slow)
    record = await bot.command("quiz", "close", by=ALICE)
    closed = await bot.reply(record)
    assert record.callbacks[0][1] == {"type": 5, "data": {"flags": EPHEMERAL}}
    assert record.deleted_original  # the private "thinking…" made way
    assert not closed.ephemeral and not closed.data.get("flags", 0) & EPHEMERAL
    assert closed.embed["footer"]["text"] == "Nobody answered this one."


async def test_a_post_whose_message_never_went_out_is_closed(bot: DiscordBot) -> None:
    """Discord refused the reply that carries the question (after the core made the post):
    the post is closed, so the channel has no open question nobody can see."""
    bot.fake.refuse_callbacks = 1
    reply = await bot.run("quiz", "post", by=ALICE, deck="basics")
    assert reply.ephemeral
    assert reply.data["content"] == (
        "Something went wrong on our side. Please try again in a moment."
    )
    post = await bot.app.store.post(1)
    assert post is not None and not post.is_open and post.message_ref is None
    nothing = await bot.run("quiz", "close", by=ALICE)
    assert nothing.data["content"] == "There is no open question in this channel."
    post_id, again = await bot.post(deck="basics", by=ALICE)  # the next one works
    assert post_id == 2 and not again.ephemeral
