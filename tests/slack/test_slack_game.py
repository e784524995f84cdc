"""The live game on Slack, end to end: `/quiz game` through the real bolt app over HTTP,
the game loop's messages to the fake Slack (announcement, questions with their closing
time, reveals edited in place, standings, the podium), the private "locked in" replies to
clicks, and the refusals, in English and Bengali."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.domain.clock import ManualClock
from tests.slack.conftest import TEST_DECK, Slack, SlackFactory
from tests.slack.fake_slack import Call
from tests.slack.harness import all_text, buttons

START = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)
PLAYERS = ("U1", "U2", "U3", "U4", "U5", "U6")


async def started(
    make_slack: SlackFactory, words: str = f"game {TEST_DECK} 3 10"
) -> tuple[Slack, ManualClock]:
    clock = ManualClock(START)
    slack = await make_slack(clock=clock)
    assert slack.bot.delivery is not None
    # What run_slack does once up:
    slack.app.services.deliveries.register("slack", slack.bot.delivery)
    sent = await slack.tester.command(words, user="U1")
    reply = await slack.fake.reply(sent.key)
    assert reply["response_type"] == "ephemeral"
    assert all_text(reply["blocks"]) == "Game on! The first question comes in a few seconds."
    return slack, clock


def posted(slack: Slack) -> list[Call]:
    return [c for c in slack.fake.api("chat.postMessage") if c.params["channel"] == "C1"]


def blocks_of(call: Call) -> list[dict[str, Any]]:
    return list(call.params["blocks"])


async def next_question(slack: Slack, clock: ManualClock) -> tuple[int, list[dict[str, Any]]]:
    """Moves to the next question's time; its post id and blocks."""
    clock.advance(timedelta(seconds=5))
    await slack.app.services.games.tick()
    message = posted(slack)[-1]
    value = buttons(blocks_of(message))[0]["value"]
    return int(value.split(":")[1]), blocks_of(message)


async def click(slack: Slack, post_id: int, shown: int, user: str) -> str:
    letter = "ABCDE"[shown]
    sent = await slack.tester.click(f"quiz_answer_{letter}", f"p:{post_id}:{shown}", user=user)
    assert sent.status == 200
    reply = await slack.fake.reply(sent.key)
    assert reply["response_type"] == "ephemeral" and reply.get("replace_original") is False
    return all_text(reply["blocks"])


async def test_a_game_of_three_questions_with_six_players(make_slack: SlackFactory) -> None:
    slack, clock = await started(make_slack)
    await slack.app.services.games.tick()
    (announcement,) = posted(slack)
    text = all_text(blocks_of(announcement))
    assert "🎮 Quiz game: Team <Quiz> & Co" in text
    assert (
        "3 questions, 10 seconds each (longer for a question that needs it)." in text
        and "Started by <@U1>." in text
    )

    right_by_player = {p: 0 for p in PLAYERS}
    for number in (1, 2, 3):
        post_id, question = await next_question(slack, clock)
        header = next(b for b in question if b["type"] == "header")["text"]["text"]
        assert header == f"🎮 Team <Quiz> & Co · Question {number} of 3"
        closes = int((START + timedelta(seconds=15 * number)).timestamp())  # 5 s, then 10
        context = [b for b in question if b["type"] == "context"][-1]
        assert context["elements"][0]["text"].startswith(
            f"⏱ 10 seconds to answer · closes <!date^{closes}^{{time_secs}}|"
        )
        right = await slack.right_shown(post_id)
        for n, player in enumerate(PLAYERS):
            good = (n + number) % 3 != 0
            shown = right if good else (right + 1) % len(buttons(question))
            said = await click(slack, post_id, shown, player)
            assert said.startswith(f"🔒 Locked in: {'ABCDE'[shown]}. ")
            assert "Right or wrong is revealed when the time is up." in said
            assert "✅" not in said and "❌" not in said
            right_by_player[player] += good
        again = await click(slack, post_id, right, "U1")
        assert again.startswith("🔒 Your first click stands:")

        clock.advance(timedelta(seconds=10))
        await slack.app.services.games.tick()
        reveal = slack.fake.api("chat.update")[-1]
        shown_text = all_text(reveal.params["blocks"])
        assert not buttons(reveal.params["blocks"])
        assert f"Question {number} of 3" in shown_text
        counted = sum(1 for n in range(len(PLAYERS)) if (n + number) % 3 != 0)
        assert f"6 answered · {round(counted / 6 * 100)}% got it right" in shown_text

        news = all_text(blocks_of(posted(slack)[-1]))
        if number < 3:
            assert f"Standings after question {number} of 3" in news
            assert "6 playing" in news
    results = all_text(blocks_of(posted(slack)[-1]))
    assert "🏆 Final results · Team <Quiz> & Co" in results
    best = max(right_by_player.values())
    winners = sorted(p for p, n in right_by_player.items() if n == best)
    for winner in winners:
        assert f"🥇 <@{winner}> · {best}" in results
    assert "6 played." in results

    stats = await slack.fake.reply((await slack.tester.command("stats", user=winners[0])).key)
    assert "Games: 1 played, 1 won" in all_text(stats["blocks"])


async def test_refusals_and_a_stop_that_reveals_and_gives_the_results(
    make_slack: SlackFactory,
) -> None:
    slack, clock = await started(make_slack, f"game {TEST_DECK} 5 20")
    second = await slack.fake.reply((await slack.tester.command("game", user="U2")).key)
    assert all_text(second["blocks"]).startswith("A game is already running in this channel.")
    # A setting is stored after the ack (`Acks.early`): its confirmation says it is.
    await slack.fake.reply((await slack.tester.command("language bn", user="U3")).key)
    bad = await slack.fake.reply(
        (await slack.tester.command("game 80", user="U3", channel="C2")).key
    )
    assert "একটা গেমে ১ থেকে ৫০টা প্রশ্ন থাকতে পারে" in all_text(bad["blocks"])

    await slack.app.services.games.tick()
    post_id, _ = await next_question(slack, clock)
    right = await slack.right_shown(post_id)
    said = await click(slack, post_id, right, "U3")
    assert said.startswith("🔒 আপনার উত্তর লক হয়েছে: ")

    refused = await slack.fake.reply((await slack.tester.command("game stop", user="U2")).key)
    assert all_text(refused["blocks"]) == (
        "Only whoever started this game, or an admin, can stop it."
    )
    by_admin = await slack.tester.command("game stop", user="UCONFIGADMIN")
    stopping = await slack.fake.reply(by_admin.key)
    assert all_text(stopping["blocks"]).startswith("Stopping the game:")
    await slack.app.services.games.tick()
    reveal = slack.fake.api("chat.update")[-1]
    assert "1 answered · 100% got it right" in all_text(reveal.params["blocks"])
    results = all_text(blocks_of(posted(slack)[-1]))
    assert "🛑 The game was stopped · results so far · Team <Quiz> & Co" in results
    assert "🥇 <@U3> · 1" in results and "1 played." in results
    none = await slack.fake.reply((await slack.tester.command("game stop", user="U1")).key)
    assert all_text(none["blocks"]) == "There is no game running in this channel."


async def test_numbers_that_are_not_decimal_or_too_long_get_words_not_a_traceback(
    slack: Slack, caplog: Any
) -> None:
    """`²` is a digit to Python's isdigit but no number to int(); a number of 4,300 digits
    is past int()'s limit (issue 32, finding 12). Each gets the refusal in words; Bengali
    digits are numbers."""
    most = "A game has 1 to 50 questions: /quiz game [deck] [questions] [seconds]."
    said = []
    for words in ("game ²", f"game {TEST_DECK} ²", f"game {'1' * 4300}", f"game {TEST_DECK} 3 ²"):
        sent = await slack.tester.command(words, user="U1")
        said.append(all_text((await slack.fake.reply(sent.key))["blocks"]))
    assert said[0] == "There is no deck “²”. Decks: basics, " + said[0].split("basics, ", 1)[1]
    assert said[1:3] == [most, most]
    assert said[3].startswith("Each question of a game lasts 10 to 120 seconds")
    assert not any(r.exc_info for r in caplog.records), "a traceback was logged"

    sent = await slack.tester.command(f"game {TEST_DECK} ২ ১৫", user="U1")
    assert all_text((await slack.fake.reply(sent.key))["blocks"]) == (
        "Game on! The first question comes in a few seconds."
    )
    game = await slack.app.store.running_game("slack:T1", "C1")
    assert game is not None and (game.rounds, game.seconds) == (2, 15)
