"""How a click comes in: an answer click reaches the bot without the message it was made on
(discord.py would parse the whole message, embeds and buttons, for every click of a burst);
every other click keeps its message, since its button may need it."""

from __future__ import annotations

import discord
import pytest
from discord_harness import ALICE, BOB, DiscordBot


def _seen(bot: DiscordBot, monkeypatch: pytest.MonkeyPatch) -> list[discord.Interaction]:
    """The interactions the client's handler gets, in order."""
    assert bot.client is not None
    seen: list[discord.Interaction] = []
    handle = bot.client.on_interaction

    async def recording(interaction: discord.Interaction) -> None:
        seen.append(interaction)
        await handle(interaction)

    monkeypatch.setattr(bot.client, "on_interaction", recording)
    return seen


async def test_an_answer_click_is_taken_without_its_message(
    bot: DiscordBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    post_id, posted = await bot.post(deck="basics", question="all-reduce")
    assert posted.message_id is not None
    right = await bot.right_label(post_id)
    seen = _seen(bot, monkeypatch)

    click = await bot.click(posted.message_id, right, by=ALICE)
    reply = await bot.reply(click)

    assert "message" in click.payload  # Discord sends it; the bot does not parse it
    assert [i.message for i in seen] == [None]
    assert reply.embed["title"] == "✅ Right!"
    assert reply.embed["footer"]["text"] == "Your score this season: 1 points · 1 of 1 right"
    assert await bot.app.store.answer_count(post_id) == 1


async def test_other_clicks_keep_their_message(
    bot: DiscordBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The language switch on a reply, and a button of no one's: each handler still gets
    the message it was clicked on."""
    post_id, posted = await bot.post(deck="basics", question="all-reduce")
    assert posted.message_id is not None
    right = await bot.right_label(post_id)
    wrong = next(b["label"] for b in posted.buttons if b["label"] != right)
    reply = await bot.reply(await bot.click(posted.message_id, wrong, by=BOB))
    assert reply.message_id is not None
    seen = _seen(bot, monkeypatch)

    switched = await bot.reply(await bot.click(reply.message_id, "বাংলায় দেখুন", by=BOB))
    stale = bot.click_payload(bot.fake.messages[posted.message_id], "quiz:gone:1", by=ALICE)
    refused = await bot.reply(await bot.fake.dispatch_interaction(stale))

    assert [i.message is not None and str(i.message.id) for i in seen] == [
        reply.message_id,
        posted.message_id,
    ]
    assert switched.embed["title"] == "❌ ঠিক হয়নি।"
    assert refused.ephemeral
