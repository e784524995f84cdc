"""A question in a channel: posted with buttons, clicked privately, closed with a reveal."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from bot.domain.review import card_key
from bot.testing.fake_slack import Call
from bot.testing.slack_requests import all_text, buttons
from tests.platform.slack.conftest import TEST_DECK, Slack, SlackFactory


def mrkdwn_texts(node: Any) -> list[str]:
    """Every mrkdwn text in some blocks (what Slack parses for formatting and mentions)."""
    if isinstance(node, list):
        return [t for item in node for t in mrkdwn_texts(item)]
    if not isinstance(node, dict):
        return []
    own = [node["text"]] if node.get("type") == "mrkdwn" else []
    return own + [t for v in node.values() if isinstance(v, dict | list) for t in mrkdwn_texts(v)]


async def test_post_sends_question_with_a_button_per_choice(slack: Slack) -> None:
    post_id = await slack.post(f"{TEST_DECK} capital", channel="C42")
    call = slack.fake.api("chat.postMessage")[0]
    assert call.params["channel"] == "C42"
    assert call.token
    blocks = call.params["blocks"]
    assert blocks[0]["type"] == "header"
    assert "Question 1 of 3" in blocks[0]["text"]["text"]
    text = all_text(blocks)
    question = blocks[1]["text"]
    assert question == {  # deck text is plain_text: shown as written, never parsed (no ping)
        "type": "plain_text",
        "text": "Which city is the capital of France? <!channel> & <@U999>",
        "emoji": False,
    }
    assert "<!channel>" not in json.dumps(mrkdwn_texts(blocks))
    assert "&lt;!channel&gt; &amp; &lt;@U999&gt;" in call.params["text"]  # the fallback too
    assert "0 answered" in text
    labels = [b["text"]["text"] for b in buttons(blocks)]
    assert labels == ["A", "B", "C"]
    assert [b["value"] for b in buttons(blocks)] == [f"p:{post_id}:{i}" for i in range(3)]
    assert all(b["action_id"] == f"quiz_answer_{b['text']['text']}" for b in buttons(blocks))
    assert call.params["text"].startswith("Quiz: ")
    post = await slack.app.store.post(post_id)
    assert post is not None and post.message_ref is not None
    assert post.message_ref.startswith("C42:")


async def _post(slack: Slack, question: str = "capital", channel: str = "C1") -> int:
    return await slack.post(f"{TEST_DECK} {question}", channel=channel)


async def test_right_and_wrong_clicks_get_private_replies(slack: Slack) -> None:
    post_id = await _post(slack)
    right = await slack.right_shown(post_id)
    post = await slack.app.store.post(post_id)
    assert post is not None
    wrong = post.order.index(1)  # Lyon, which has a `why`
    letters = "ABC"

    ok = await slack.tester.click(
        f"quiz_answer_{letters[right]}", f"p:{post_id}:{right}", user="U1"
    )
    bad = await slack.tester.click(
        f"quiz_answer_{letters[wrong]}", f"p:{post_id}:{wrong}", user="U2"
    )
    assert ok.status == bad.status == 200

    reply = await slack.fake.reply(ok.key)
    assert reply["response_type"] == "ephemeral"
    assert reply["replace_original"] is False
    text = all_text(reply["blocks"])
    assert "✅ Right!" in text
    assert f"Answer: {letters[right]}. Paris" in text
    assert "Explanation of capital." in text
    assert "1 points · 1 of 1 right" in text
    switch = buttons(reply["blocks"])
    assert [b["text"]["text"] for b in switch] == ["বাংলায় দেখুন", "Report a problem"]
    assert switch[0]["value"] == f"l:{post_id}:bn"
    assert "📚" not in text  # a right answer is not added to review

    reply = await slack.fake.reply(bad.key)
    text = all_text(reply["blocks"])
    assert "❌ Not quite." in text
    assert "Explanation of capital." in text
    assert f"Why not {letters[wrong]}: Lyon is the third city of France." in text
    assert "0 points · 0 of 1 right" in text
    assert "📚 Added to your review: /quiz review brings it back." in text
    assert await slack.app.store.answer_count(post_id) == 2


async def test_second_click_says_already_answered_and_changes_nothing(slack: Slack) -> None:
    post_id = await _post(slack)
    first = await slack.tester.click("quiz_answer_A", f"p:{post_id}:0", user="U7")
    await slack.fake.reply(first.key)
    again = await slack.tester.click("quiz_answer_B", f"p:{post_id}:1", user="U7")
    reply = await slack.fake.reply(again.key)
    assert "You already answered A. Your first answer stands." in all_text(reply["blocks"])
    assert await slack.app.store.answer_count(post_id) == 1
    post = await slack.app.store.post(post_id)
    assert post is not None
    assert await slack.app.store.post_answer_of(post_id, "U7") == post.order[0]


async def test_other_language_button_replaces_the_reply(slack: Slack) -> None:
    post_id = await _post(slack)
    first = await slack.tester.click("quiz_answer_A", f"p:{post_id}:0", user="U3")
    reply = await slack.fake.reply(first.key)
    switch = await slack.tester.press(reply["blocks"], "বাংলায় দেখুন", user="U3", ephemeral=True)
    shown = await slack.fake.reply(switch.key)
    assert shown["replace_original"] is True
    text = all_text(shown["blocks"])
    assert "সঠিক উত্তর: " in text and "প্যারিস" in text
    assert "capital-এর ব্যাখ্যা।" in text
    assert [b["value"] for b in buttons(shown["blocks"])] == [
        f"l:{post_id}:en",
        card_key(TEST_DECK, "capital"),
    ]
    assert await slack.app.store.answer_count(post_id) == 1


async def test_many_clicks_in_one_interval_become_one_or_two_updates(
    make_slack: SlackFactory,
) -> None:
    slack = await make_slack(refresh_interval=1.0)
    post_id = await _post(slack, channel="C6")
    posted = slack.fake.api("chat.postMessage")[-1]
    assert posted.answer is not None
    clicks = [
        slack.tester.click("quiz_answer_A", f"p:{post_id}:0", user=f"U{n}") for n in range(12)
    ]
    started = asyncio.get_running_loop().time()
    for sent in await asyncio.gather(*clicks):
        await slack.fake.reply(sent.key)
    assert asyncio.get_running_loop().time() - started < 1.0  # all inside one interval
    await slack.fake.until(lambda: bool(slack.fake.api("chat.update")))
    await slack.fake.until_idle(quiet=1.2)  # past an interval: any straggling redraw lands
    await slack.bot.posts.flush()
    updates = slack.fake.api("chat.update")
    assert 1 <= len(updates) <= 2, len(updates)
    assert "12 answered" in all_text(updates[-1].params["blocks"])
    for update in updates:  # the message that was posted, not some other one
        assert update.params["channel"] == posted.answer["channel"] == "C6"
        assert update.params["ts"] == posted.answer["ts"]
        assert update.token == posted.token


async def test_a_redraw_waiting_out_a_rate_limit_never_overwrites_the_reveal(
    make_slack: SlackFactory,
) -> None:
    slack = await make_slack(refresh_interval=0.1)
    post_id = await _post(slack, channel="C3")
    slack.fake.retry_after = 2  # room for the close to arrive, even on a busy machine
    slack.fake.throttle["chat.update"] = 1  # the redraw gets 429, Retry-After: 2
    sent = await slack.tester.click("quiz_answer_A", f"p:{post_id}:0", user="U1")
    await slack.fake.reply(sent.key)
    await asyncio.wait_for(slack.fake.throttled.wait(), 5)
    closing = await slack.tester.command("close", channel="C3", user="U1")  # during the wait
    assert all_text((await slack.fake.reply(closing.key))["blocks"]) == "Closed."

    def sent() -> list[Call]:
        return [u for u in slack.fake.api("chat.update") if u.status == 200]

    await slack.fake.until(lambda: len(sent()) >= 2)
    await slack.fake.until_idle(quiet=0.3)  # nothing else arrives
    updates = slack.fake.api("chat.update")
    assert [u.status for u in updates] == [429, 200, 200]
    redraw, reveal = updates[1], updates[2]
    assert buttons(redraw.params["blocks"]) and "1 answered" in all_text(redraw.params["blocks"])
    assert not buttons(reveal.params["blocks"])
    assert reveal.params["text"].startswith("Closed: ")


async def test_a_reveal_that_cannot_replace_the_question_is_posted_in_the_channel(
    slack: Slack,
) -> None:
    post_id = await _post(slack, channel="C8")
    answered = await slack.tester.click("quiz_answer_A", f"p:{post_id}:0", user="U2")
    await slack.fake.reply(answered.key)
    slack.fake.errors["chat.update"] = "message_not_found"  # someone deleted the question
    closing = await slack.tester.command("close", channel="C8", user="U1")
    shown = await slack.fake.reply(closing.key)
    assert shown["response_type"] == "in_channel" and shown["replace_original"] is False
    assert shown["text"].startswith("Closed: ")
    text = all_text(shown["blocks"])
    assert "Explanation of capital." in text and "1 answered" in text
    assert not buttons(shown["blocks"])
    done = await slack.fake.reply(closing.key, 2)
    assert done["response_type"] == "ephemeral" and all_text(done["blocks"]) == "Closed."
    post = await slack.app.store.post(post_id)
    assert post is not None and not post.is_open


async def test_when_no_reveal_can_be_shown_the_closer_is_told(slack: Slack) -> None:
    await _post(slack, channel="C8")
    slack.fake.errors["chat.update"] = "message_not_found"
    slack.fake.refuse_in_channel = True
    closing = await slack.tester.command("close", channel="C8", user="U1")
    told = await slack.fake.reply(closing.key)
    assert told["response_type"] == "ephemeral"
    assert all_text(told["blocks"]) == (
        "The question is closed, but I couldn't show the answer in the channel (message_not_found)."
    )


async def test_close_reveals_in_place(slack: Slack) -> None:
    post_id = await _post(slack, channel="C9")
    right = await slack.right_shown(post_id)
    wrong = (right + 1) % 3
    for user, shown in (("U1", right), ("U2", right), ("U3", wrong), ("U4", right)):
        sent = await slack.tester.click(
            f"quiz_answer_{'ABC'[shown]}", f"p:{post_id}:{shown}", user=user
        )
        await slack.fake.reply(sent.key)
    closing = await slack.tester.command("close", channel="C9", user="U1")  # U1 posted it
    reply = await slack.fake.reply(closing.key)
    assert all_text(reply["blocks"]) == "Closed."
    await slack.bot.posts.flush()
    update = slack.fake.api("chat.update")[-1]
    blocks = update.params["blocks"]
    assert not buttons(blocks) and all(b["type"] != "actions" for b in blocks)
    text = all_text(blocks)
    letter = "ABC"[right]
    assert f"Answer: {letter}. Paris" in text
    assert f"{letter} ████████░░ 3 · 75% ✅  Paris" in text
    assert f"{'ABC'[wrong]} ██░░░░░░░░ 1 · 25%" in text
    assert "<!channel>" not in json.dumps(mrkdwn_texts(blocks))
    assert "4 answered · 75% got it right" in text
    assert "Explanation of capital." in text
    assert update.params["text"].startswith("Closed: ")
    post = await slack.app.store.post(post_id)
    assert post is not None and not post.is_open

    late = await slack.tester.click("quiz_answer_A", f"p:{post_id}:0", user="U5")
    reply = await slack.fake.reply(late.key)
    assert "This question is closed" in all_text(reply["blocks"])
    assert await slack.app.store.answer_count(post_id) == 4


async def test_closing_someone_elses_post_needs_an_admin(slack: Slack) -> None:
    await _post(slack, channel="C5")  # posted by U1
    refused = await slack.tester.command("close", channel="C5", user="U2")
    reply = await slack.fake.reply(refused.key)
    assert "Only whoever posted this question, or an admin, can close it." in all_text(
        reply["blocks"]
    )
    assert not slack.fake.api("chat.update")
    assert [c.params["user"] for c in slack.fake.api("users.info")] == ["U2"]

    slack.fake.admins.add("UADMIN")
    closed = await slack.tester.command("close", channel="C5", user="UADMIN")
    assert all_text((await slack.fake.reply(closed.key))["blocks"]) == "Closed."
    assert len(slack.fake.api("chat.update")) == 1


async def test_post_in_a_channel_the_bot_cannot_reach(slack: Slack) -> None:
    slack.fake.refuse_channels.add("CPRIVATE")
    sent = await slack.tester.command(f"post {TEST_DECK}", channel="CPRIVATE")
    reply = await slack.fake.reply(sent.key)
    assert "Invite me with /invite @quizbot" in all_text(reply["blocks"])
    assert await slack.app.store.open_post_in_channel("slack:T1", "CPRIVATE") is None


async def test_post_in_a_dm_says_to_use_a_channel(slack: Slack) -> None:
    slack.fake.refuse_channels.add("D0DM")
    sent = await slack.tester.command(f"post {TEST_DECK}", channel="D0DM")
    text = all_text((await slack.fake.reply(sent.key))["blocks"])
    assert "I can't post questions in direct messages." in text
    assert "/invite" not in text
    assert await slack.app.store.open_post_in_channel("slack:T1", "D0DM") is None


async def test_replies_wait_out_a_rate_limited_response_url(slack: Slack) -> None:
    slack.fake.throttle["response_url"] = 1
    sent = await slack.tester.command("help")
    reply = await slack.fake.reply(sent.key, seconds=10)
    assert "quizbot: a question at a time" in all_text(reply["blocks"])
    assert slack.fake.throttled.is_set() and len(slack.fake.replies(sent.key)) == 1
