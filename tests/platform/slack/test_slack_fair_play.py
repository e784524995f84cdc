"""Fair play on Slack, as the two reported repros were tried: a member farming points by
posting, answering and closing one question again and again, and a member posting a question
open in another channel to close it there and read its answer."""

from __future__ import annotations

from bot.testing.slack_requests import all_text
from tests.platform.slack.conftest import TEST_DECK, Slack


async def _click_right(slack: Slack, post_id: int, user: str) -> str:
    shown = await slack.right_shown(post_id)
    sent = await slack.tester.click(
        f"quiz_answer_{'ABC'[shown]}", f"p:{post_id}:{shown}", user=user
    )
    return all_text((await slack.fake.reply(sent.key))["blocks"])


async def _say(slack: Slack, text: str, **kwargs: str) -> str:
    sent = await slack.tester.command(text, **kwargs)
    return all_text((await slack.fake.reply(sent.key))["blocks"])


async def test_post_answer_close_five_times_gives_one_point(slack: Slack) -> None:
    replies = []
    for _ in range(5):
        post_id = await slack.post(f"{TEST_DECK} capital", channel="C-mine", user="UMEMBER")
        replies.append(await _click_right(slack, post_id, "UMEMBER"))
        assert await _say(slack, "close", channel="C-mine", user="UMEMBER") == "Closed."
    assert "No point this time" not in replies[0]
    assert all(
        "✅ Right! No point this time: you met this question earlier" in r for r in replies[1:]
    )
    board = await _say(slack, "leaderboard all", user="UMEMBER")
    assert "1. <@UMEMBER> · 1" in board and "· 5" not in board


async def test_a_question_open_in_general_cannot_be_posted_and_closed_elsewhere(
    slack: Slack,
) -> None:
    general = await slack.post(f"{TEST_DECK} capital", channel="CGENERAL", user="UADMIN")
    before = len(slack.fake.api("chat.postMessage"))
    refused = await _say(slack, f"post {TEST_DECK} capital", channel="C-mine", user="UMEMBER")
    assert refused.startswith("That question is open in <#CGENERAL> right now: answer it there.")
    assert len(slack.fake.api("chat.postMessage")) == before  # nothing posted, nothing to close
    assert "no open question" in await _say(slack, "close", channel="C-mine", user="UMEMBER")
    post = await slack.app.store.post(general)
    assert post is not None and post.is_open

    # A private run passes over the open question, so it shows no answer to it either.
    started = await slack.tester.command(f"start {TEST_DECK}", user="UMEMBER")
    first = all_text((await slack.fake.reply(started.key))["blocks"])
    assert "capital of France" not in first


async def test_privacy_deletes_what_is_kept_about_me_after_a_confirm(slack: Slack) -> None:
    post_id = await slack.post(f"{TEST_DECK} capital", channel="C1", user="UADMIN")
    await _click_right(slack, post_id, "UMEMBER")
    await _click_right(slack, post_id, "UOTHER")
    asked = await slack.tester.command("privacy", user="UMEMBER")
    shown = await slack.fake.reply(asked.key)
    assert "Delete all of it?" in all_text(shown["blocks"])
    buttons = [e for b in shown["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert [(b["action_id"], b.get("style")) for b in buttons] == [
        ("quiz_forget_yes", "danger"),
        ("quiz_privacy_hide", None),
        ("quiz_forget_no", None),
    ]

    kept = await slack.tester.click("quiz_forget_no", "keep", user="UMEMBER")
    assert all_text((await slack.fake.reply(kept.key))["blocks"]) == "Nothing was deleted."
    assert await slack.app.store.answer_count(post_id) == 2

    done = await slack.tester.click("quiz_forget_yes", "forget", user="UMEMBER")
    said = all_text((await slack.fake.reply(done.key))["blocks"])
    assert said.startswith("Answers deleted: 1. Your runs, points and settings")
    assert await slack.app.store.answer_count(post_id) == 1
    board = await _say(slack, "leaderboard all", user="UOTHER")
    assert "1. <@UOTHER> · 1" in board and "UMEMBER" not in board


async def test_privacy_hides_me_on_the_leaderboard_and_shows_me_again(slack: Slack) -> None:
    post_id = await slack.post(f"{TEST_DECK} capital", channel="C1", user="UADMIN")
    await _click_right(slack, post_id, "UMEMBER")
    hidden = await slack.tester.click("quiz_privacy_hide", "hide", user="UMEMBER")
    said = all_text((await slack.fake.reply(hidden.key))["blocks"])
    assert said.startswith("You are hidden on this server's leaderboards")
    board = await _say(slack, "leaderboard all", user="UOTHER")
    assert "1. a hidden player · 1" in board and "UMEMBER" not in board
    mine = await _say(slack, "leaderboard all", user="UMEMBER")
    assert "1. <@UMEMBER> · 1" in mine  # the hidden player still sees themselves
    stats = await _say(slack, "stats <@UMEMBER|m>", user="UOTHER")
    assert "That person keeps their stats private." in stats
    asked = await slack.tester.command("privacy", user="UMEMBER")
    shown = await slack.fake.reply(asked.key)
    labels = [
        e["text"]["text"] for b in shown["blocks"] if b["type"] == "actions" for e in b["elements"]
    ]
    assert labels == ["Delete everything about me", "Show me on leaderboards", "Keep it"]
    back = await slack.tester.click("quiz_privacy_show", "show", user="UMEMBER")
    await slack.fake.reply(back.key)
    assert "1. <@UMEMBER> · 1" in await _say(slack, "leaderboard all", user="UOTHER")
