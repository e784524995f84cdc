"""The "N answered" count after Discord refused its redraw (issue 32, finding 13, on
Discord): discord.py waits out rate limits and retries a 500, 502 or 504 itself, but a 503
or a dropped connection reaches the bot at once; such a redraw is tried again, with backoff,
until the channel's count shows the answers stored. Before, it was given up until the next
click."""

from __future__ import annotations

import pytest
from discord_harness import ALICE, BOB, CAROL, DiscordBot

from bot.testing.fake_discord import EDIT_MESSAGE
from bot.testing.faults import Fault, dropped, failed


def footer(bot: DiscordBot, message_id: str) -> str:
    """The count the channel shows on the question now."""
    return str(bot.fake.messages[message_id]["embeds"][0].get("footer", {}).get("text", ""))


@pytest.mark.parametrize("fault", [failed(503), dropped()], ids=["503", "dropped"])
async def test_a_redraw_discord_refused_is_tried_again_until_the_count_is_right(
    bot: DiscordBot, fault: Fault
) -> None:
    post_id, posted = await bot.post(deck="basics", question="bubble")
    assert posted.message_id is not None
    bot.fake.faults.next(EDIT_MESSAGE, fault)

    for person in (ALICE, BOB, CAROL):
        await bot.reply(await bot.click(posted.message_id, "A", by=person))
    await bot.fake.faults.spent()

    await bot.fake.until(lambda: footer(bot, posted.message_id or "") == "3 answered", 20)
    assert await bot.app.store.answer_count(post_id) == 3
    assert len(bot.fake.faults.served_on(EDIT_MESSAGE)) == 1
