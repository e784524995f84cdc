"""Fair play on Discord, as the two reported repros were tried: a member farming points by
posting, answering and closing one question again and again, and a member posting a question
open in another channel to close it there and read its answer."""

from __future__ import annotations

from discord_harness import ADMIN, ALICE, CHANNEL, DiscordBot

MINE = 444444444444444444


async def test_post_answer_close_five_times_gives_one_point(bot: DiscordBot) -> None:
    titles = []
    for _ in range(5):
        post_id, posted = await bot.post(deck="basics", question="all-reduce", in_channel=MINE)
        right = await bot.right_label(post_id)
        reply = await bot.reply(await bot.click(posted.message_id or "", right, by=ALICE))
        titles.append(reply.embed["title"])
        closed = await bot.run("quiz", "close", by=ALICE, in_channel=MINE)
        assert closed.ephemeral
    assert titles[0] == "✅ Right!"
    practice = "✅ Right! No point this time: you met this question earlier this season."
    assert titles[1:] == [practice] * 4
    board = await bot.run("quiz", "leaderboard", by=ALICE, period="all")
    assert board.embed["description"] == f"1\\. <@{ALICE.id}> · 1"


async def test_a_question_open_in_general_cannot_be_posted_and_closed_elsewhere(
    bot: DiscordBot,
) -> None:
    general, _ = await bot.post(deck="basics", question="all-reduce", by=ADMIN)
    refused = await bot.run(
        "quiz", "post", by=ALICE, in_channel=MINE, deck="basics", question="all-reduce"
    )
    assert refused.ephemeral and not refused.buttons
    shown = refused.data.get("content") or refused.embed.get("description", "")
    assert shown.startswith(f"That question is open in <#{CHANNEL}> right now: answer it there.")
    nothing = await bot.run("quiz", "close", by=ALICE, in_channel=MINE)
    assert "no open question" in (nothing.data.get("content") or nothing.embed["description"])
    post = await bot.app.store.post(general)
    assert post is not None and post.is_open

    # A private run passes over the open question, so it shows no answer to it either.
    started = await bot.run("quiz", "start", by=ALICE, deck="basics")
    assert "Which collective sums gradients" not in started.embed["description"]


async def test_privacy_deletes_what_is_kept_about_me_after_a_confirm(bot: DiscordBot) -> None:
    post_id, posted = await bot.post(deck="basics", question="all-reduce", by=ADMIN)
    right = await bot.right_label(post_id)
    await bot.reply(await bot.click(posted.message_id or "", right, by=ALICE))
    asked = await bot.run("quiz", "privacy", by=ALICE)
    assert asked.ephemeral and "Delete all of it?" in asked.data["content"]
    labels = ["Delete everything about me", "Hide me on leaderboards", "Keep it"]
    assert [b["label"] for b in asked.buttons] == labels
    assert [b["style"] for b in asked.buttons] == [4, 2, 2]  # danger, secondary

    done = await bot.reply(
        await bot.click(asked.message_id or "", "Delete everything about me", by=ALICE)
    )
    assert done.data["content"].startswith("Answers deleted: 1. Your runs, points and settings")
    assert await bot.app.store.answer_count(post_id) == 0
    stats = await bot.run("quiz", "stats", by=ALICE)
    assert "Answered: 0" in stats.embed["description"]


async def test_privacy_hides_me_on_the_leaderboard(bot: DiscordBot) -> None:
    post_id, posted = await bot.post(deck="basics", question="all-reduce", by=ADMIN)
    right = await bot.right_label(post_id)
    await bot.reply(await bot.click(posted.message_id or "", right, by=ALICE))
    asked = await bot.run("quiz", "privacy", by=ALICE)
    hidden = await bot.reply(
        await bot.click(asked.message_id or "", "Hide me on leaderboards", by=ALICE)
    )
    assert hidden.data["content"].startswith("You are hidden on this server's leaderboards")
    board = await bot.run("quiz", "leaderboard", by=ADMIN, period="all")
    assert board.embed["description"].startswith("1\\. a hidden player · 1")
    again = await bot.run("quiz", "privacy", by=ALICE)
    assert "Show me on leaderboards" in [b["label"] for b in again.buttons]
