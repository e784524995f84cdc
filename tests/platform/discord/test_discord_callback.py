"""A click whose interaction callback Discord fails (issue 32, finding 14): the answer is
stored before the callback, so its player must learn the result. The callback is tried again
within the interaction's 3 s; a try answered "already acknowledged" means an earlier one was
taken; when the window runs out, the reply goes as a follow-up that says the answer was
saved. Never two first responses, never "something went wrong" for a stored answer.

Before, the fast path posted the callback once: every such click was stored and its player
told "Something went wrong... try again".
"""

from __future__ import annotations

from discord_harness import ALICE, BOB, DiscordBot, Reply, visible

from bot.testing.fake_discord import CALLBACK, EPHEMERAL, Interaction
from bot.testing.faults import dropped, failed, rate_limited

RIGHT, WRONG = "✅ Right!", "❌ Not quite."
SAVED = "Your answer is saved. Discord did not take my first reply, so here it is:"


async def open_post(bot: DiscordBot) -> tuple[int, str, str]:
    """The post id, its message, and the right choice's label."""
    post_id, posted = await bot.post(deck="basics", question="all-reduce")
    assert posted.message_id is not None
    return post_id, posted.message_id, await bot.right_label(post_id)


async def test_a_callback_discord_failed_is_tried_again_in_the_window(bot: DiscordBot) -> None:
    post_id, message, right = await open_post(bot)
    before = bot.fake.faults.attempts[CALLBACK]
    bot.fake.faults.next(CALLBACK, failed(500)).next(CALLBACK, dropped())
    bot.fake.faults.next(CALLBACK, rate_limited(retry_after=0.2))

    click = await bot.click(message, right, by=ALICE)
    reply = await bot.reply(click)

    assert reply.ephemeral and reply.embed["title"] == RIGHT
    assert len(click.callbacks) == 1 and not click.refused and not click.followups
    assert [f.status for f in bot.fake.faults.served_on(CALLBACK)] == [500, None, 429]
    assert bot.fake.faults.attempts[CALLBACK] - before == 4
    assert await bot.app.store.answer_count(post_id) == 1


async def test_a_callback_taken_then_failed_is_not_answered_twice(bot: DiscordBot) -> None:
    """Discord showed the reply and answered 500: the retry is told "already
    acknowledged", the reply is there, and nothing more is sent."""
    post_id, message, right = await open_post(bot)
    bot.fake.faults.next(CALLBACK, failed(500, after_work=True))

    click = await bot.click(message, right, by=ALICE)
    await bot.fake.until(lambda: bool(click.refused))

    reply = visible(click)
    assert reply is not None and reply.embed["title"] == RIGHT
    assert len(click.callbacks) == 1 and len(click.refused) == 1
    assert click.followups == []
    assert await bot.app.store.answer_count(post_id) == 1


async def test_when_the_window_runs_out_the_player_is_told_in_a_follow_up(
    bot: DiscordBot,
) -> None:
    """The first try was taken but its message is unknown to the bot (500), and every retry
    fails: the result comes as a follow-up, which says the answer was saved."""
    post_id, message, right = await open_post(bot)
    wrong = "B" if right != "B" else "C"
    bot.fake.faults.next(CALLBACK, failed(500, after_work=True))
    bot.fake.faults.next(CALLBACK, failed(503), times=100)  # more than the window holds

    click = await bot.click(message, wrong, by=BOB)
    await bot.fake.until(lambda: bool(click.followups), 10)
    bot.fake.faults.clear()

    (followup,) = click.followups
    told = Reply("new", followup, bool(followup.get("flags", 0) & EPHEMERAL), None)
    assert told.ephemeral and told.data["content"] == SAVED
    assert told.embed["title"] == WRONG
    assert len(click.callbacks) == 1 and not click.refused
    assert await bot.app.store.answer_count(post_id) == 1


async def test_a_callback_never_taken_leaves_the_answer_stored_and_the_bot_answering(
    bot: DiscordBot,
) -> None:
    """Discord fails every try for the whole window: nothing reaches the player (Discord
    says the interaction failed), the answer is stored once, no second first response is
    tried, and the next click is answered, showing the stored answer."""
    post_id, message, right = await open_post(bot)
    bot.fake.faults.next(CALLBACK, failed(500), times=100)

    first: Interaction = await bot.click(message, right, by=ALICE)
    await bot.fake.until(lambda: bot.fake.faults.attempts[CALLBACK] >= 3)
    await _until_given_up(bot, first)
    bot.fake.faults.clear()

    again = await bot.reply(await bot.click(message, "B" if right != "B" else "C", by=ALICE))
    assert again.embed["title"] == f"You already answered {right}. Your first answer stands."
    assert first.callbacks == [] and first.refused == []
    assert await bot.app.store.answer_count(post_id) == 1


async def _until_given_up(bot: DiscordBot, record: Interaction) -> None:
    """Waits until the bot stopped trying: its follow-up (refused: nothing was taken) came."""
    await bot.fake.until(
        lambda: any(
            c.path.startswith("/api/v10/webhooks/") and record.token in c.path
            for c in bot.fake.calls
        ),
        10,
    )
