"""A private run through a deck: one ephemeral message per question, each click its own
interaction (so no token outlives its 15 minutes), feedback in place, a summary at the end."""

from __future__ import annotations

from discord_harness import BOB, DiscordBot, Reply, extra_followups
from fake_discord import EPHEMERAL

from bot.domain.run import run_order


def right_label(bot: DiscordBot, step: Reply) -> str:
    """The letter of the right answer, from the run and question the buttons name."""
    _, _, run_id, question_id, _ = step.buttons[0]["custom_id"].split(":")
    deck = bot.app.services.catalog.decks.get("basics")
    assert deck is not None
    question = deck.question(question_id)
    assert question is not None
    return "ABCDE"[run_order(int(run_id), question).index(question.answer)]


async def test_a_full_run(bot: DiscordBot) -> None:
    step = await bot.run("quiz", "start", by=BOB, deck="basics")
    assert step.ephemeral and step.kind == "new"
    assert step.embed["title"] == "Parallelism \\_basics\\_ · 1 of 3"
    wrong_once = False
    for n in range(1, 4):
        assert [b["custom_id"].split(":")[:2] for b in step.buttons] == [["quiz", "r"]] * len(
            step.buttons
        )
        label = right_label(bot, step)
        if not wrong_once:  # the first question: a wrong pick, to see it marked red
            label = next(b["label"] for b in step.buttons if b["label"] != label)
            wrong_once = True
        click = await bot.click(step.message_id or "", label, by=BOB)
        answered = await bot.reply(click)

        # The clicked message keeps its question and gains the feedback; buttons disabled.
        assert answered.kind == "update"
        assert answered.data["embeds"][0]["title"] == step.embed["title"]
        feedback = answered.data["embeds"][1]
        assert feedback["title"] == ("❌ Not quite." if n == 1 else "✅ Right!")
        assert "**Answer: " in feedback["description"]
        added = "📚 Added to your review: /quiz review brings it back."
        assert (feedback.get("footer", {}).get("text") == added) == (n == 1)
        choices, report = answered.data["components"]  # two rows
        assert [b["label"] for b in report["components"]] == ["Report a problem"]
        assert report["components"][0]["custom_id"].startswith("quiz:p:")
        choice_buttons = choices["components"]
        assert all(b["disabled"] for b in choice_buttons)
        styles = {b["label"]: b["style"] for b in choice_buttons}
        assert 3 in styles.values()  # the right one, green
        assert (4 in styles.values()) == (n == 1)  # a wrong pick, red

        # What comes next is a follow-up on this click's own token.
        await bot.fake.until(lambda click=click: bool(extra_followups(click)))
        nxt = extra_followups(click)[0]
        assert nxt.ephemeral and nxt.data["flags"] & EPHEMERAL
        if n < 3:
            assert nxt.embed["title"] == f"Parallelism \\_basics\\_ · {n + 1} of 3"
            step = nxt
        else:
            assert nxt.embed["title"] == "Parallelism \\_basics\\_"
            assert "**Your score: 2/3**" in nxt.embed["description"]
            assert "Leaderboard points from this run: 2" in nxt.embed["description"]
            assert "To review:" in nxt.embed["description"]
            assert not nxt.buttons

    totals = await bot.app.store.totals("discord:111111111111111111", 1, str(BOB.id))
    assert totals.points == 2 and totals.answered == 3


async def test_start_again_resumes_and_a_stale_step_is_refused(bot: DiscordBot) -> None:
    first = await bot.run("quiz", "start", by=BOB, deck="basics")
    resumed = await bot.run("quiz", "start", by=BOB, deck="basics")
    assert resumed.embed["title"] == first.embed["title"]
    assert resumed.embed["footer"]["text"] == "Picking up where you left off."
    # Someone else clicking Bob's run (a forwarded payload) is refused politely.
    other = await bot.reply(await bot.click(first.message_id or "", "A"))
    assert other.ephemeral
    assert other.data["content"].startswith("That button no longer belongs to an open question.")
