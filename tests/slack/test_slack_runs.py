"""`/quiz start`: a private run, question by question, in ephemeral messages, to the summary."""

from __future__ import annotations

from typing import Any

from bot.domain.actor import Actor
from bot.domain.run import run_order
from tests.slack.conftest import SEED_DECK, TEST_DECK, Slack
from tests.slack.harness import all_text, buttons


async def _right_button(slack: Slack, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    run_buttons = [b for b in buttons(blocks) if b["action_id"].startswith("quiz_run_")]
    _, run_id, question_id, _ = run_buttons[0]["value"].split(":")
    deck = slack.app.services.catalog.decks.get(SEED_DECK)
    assert deck is not None
    question = deck.question(question_id)
    assert question is not None
    right = run_order(int(run_id), question).index(question.answer)
    return run_buttons[right]


async def test_a_full_run_scores_8_of_8(slack: Slack) -> None:
    # The seed deck's first language is Bengali; the setting is stored once confirmed.
    await slack.fake.reply((await slack.tester.command("language en")).key)
    started = await slack.tester.command(f"start {SEED_DECK}", user="U1")
    reply = await slack.fake.reply(started.key)
    assert reply["response_type"] == "ephemeral"
    for n in range(1, 9):
        blocks = reply["blocks"]
        step = [b for b in blocks if b["type"] == "header"][-1]["text"]["text"]
        assert step.endswith(f"· {n} of 8")
        run_buttons = [b for b in buttons(blocks) if b["action_id"].startswith("quiz_run_")]
        assert [b["value"][:2] for b in run_buttons] == ["r:"] * len(run_buttons) != []
        reports = [b["text"]["text"] for b in buttons(blocks) if b["action_id"] == "quiz_report"]
        assert reports == (["Report a problem"] if n > 1 else [])  # on each feedback
        button = await _right_button(slack, blocks)
        clicked = await slack.tester.click(
            button["action_id"], button["value"], user="U1", ephemeral=True
        )
        reply = await slack.fake.reply(clicked.key)
        assert reply["replace_original"] is True
        assert "✅ Right!" in all_text(reply["blocks"])
    text = all_text(reply["blocks"])
    assert "*Your score: 8/8*" in text
    assert "No misses. Well done!" in text
    assert [b["action_id"] for b in buttons(reply["blocks"])] == ["quiz_report"]
    stats = await slack.app.services.boards.stats(Actor("slack:T1", "U1"))
    assert stats.totals.points == 8


async def test_a_wrong_run_answer_teaches_and_goes_on(slack: Slack) -> None:
    started = await slack.tester.command(f"start {TEST_DECK}", user="U5")
    reply = await slack.fake.reply(started.key)
    first = buttons(reply["blocks"])
    _, run_id, question_id, _ = first[0]["value"].split(":")
    assert question_id == "capital"
    deck = slack.app.services.catalog.decks.get(TEST_DECK)
    assert deck is not None
    order = run_order(int(run_id), deck.questions[0])
    wrong = order.index(2)  # Marseille
    clicked = await slack.tester.click(
        first[wrong]["action_id"], first[wrong]["value"], user="U5", ephemeral=True
    )
    reply = await slack.fake.reply(clicked.key)
    text = all_text(reply["blocks"])
    assert "❌ Not quite." in text
    assert "Why not " in text and "Marseille is a port." in text
    assert "Explanation of capital." in text
    assert "2 + 2 = ?" in text  # the next question follows
    assert {
        b["value"].split(":")[2]
        for b in buttons(reply["blocks"])
        if b["action_id"].startswith("quiz_run_")
    } == {"sum"}

    again = await slack.tester.click(
        first[0]["action_id"], first[0]["value"], user="U5", ephemeral=True
    )
    reply = await slack.fake.reply(again.key)
    assert "You already answered this question in this run." in all_text(reply["blocks"])


async def test_someone_elses_run_button_is_stale(slack: Slack) -> None:
    started = await slack.tester.command(f"start {TEST_DECK}", user="U5")
    reply = await slack.fake.reply(started.key)
    button = buttons(reply["blocks"])[0]
    clicked = await slack.tester.click(
        button["action_id"], button["value"], user="U6", ephemeral=True
    )
    reply = await slack.fake.reply(clicked.key)
    assert "no longer belongs to an open question" in all_text(reply["blocks"])
    runs = await slack.app.store.run(int(button["value"].split(":")[1]))
    assert runs is not None
    assert list(await slack.app.store.run_answers(runs.id)) == []
