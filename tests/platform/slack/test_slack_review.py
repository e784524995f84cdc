"""Review, mastery and "Report a problem" on Slack, end to end: the real bolt app over HTTP,
against the fake Slack, with payloads shaped as Slack sends them."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.problems import Reason
from bot.domain.review import card_key
from bot.presentation.report_messages import digest_messages
from bot.service.deliveries import Deliveries
from bot.service.problem_digest import ProblemDigest
from bot.testing.slack_requests import (
    Sent,
    all_text,
    buttons,
    report_submission,
)
from tests.platform.slack.conftest import TEST_DECK, Slack, SlackFactory

SERVER = "slack:T1"


def _letter_of(blocks: list[dict[str, Any]], choice: str) -> str:
    """The letter a review or run question shows `choice` under ("B. Paris")."""
    for line in all_text(blocks).splitlines():
        letter, _, rest = line.partition(". ")
        if rest == choice and len(letter) == 1:
            return letter
    raise AssertionError(f"{choice!r} not shown in {all_text(blocks)!r}")


def _button(blocks: list[dict[str, Any]], label: str) -> dict[str, Any]:
    return next(b for b in buttons(blocks) if b["text"]["text"] == label)


async def _click(slack: Slack, button: dict[str, Any], user: str, **kw: Any) -> dict[str, Any]:
    sent = await slack.tester.click(button["action_id"], button["value"], user=user, **kw)
    assert sent.status == 200
    return await slack.fake.reply(sent.key)


async def _miss_a_post_and_a_run_question(slack: Slack, user: str) -> dict[str, Any]:
    """`user` misses "capital" in a post and "sum" in a run (answering "sky" right); the
    reply to the wrong click on the post."""
    post_id = await slack.post(f"{TEST_DECK} capital")
    right = await slack.right_shown(post_id)
    wrong = (right + 1) % 3
    letter = "ABC"[wrong]
    clicked = await slack.tester.click(f"quiz_answer_{letter}", f"p:{post_id}:{wrong}", user=user)
    post_reply = await slack.fake.reply(clicked.key)

    started = await slack.tester.command(f"start {TEST_DECK}", user=user)
    step = await slack.fake.reply(started.key)
    assert "2 + 2 = ?" in all_text(step["blocks"])  # capital is open in #C1: passed over
    wrong_sum = _letter_of(step["blocks"], "5")
    feedback = await _click(slack, _button(step["blocks"], wrong_sum), user, ephemeral=True)
    text = all_text(feedback["blocks"])
    assert "❌ Not quite." in text and "📚 Added to your review" in text
    sky = _letter_of(feedback["blocks"], "Blue")
    done = await _click(slack, _button(feedback["blocks"], sky), user, ephemeral=True)
    assert "📚" not in all_text(done["blocks"])  # a right answer is not added
    return post_reply


async def test_two_misses_are_reviewed_privately_and_come_back_only_when_due(
    make_slack: SlackFactory,
) -> None:
    clock = ManualClock(datetime(2026, 3, 27, 21, 0, tzinfo=UTC))
    slack = await make_slack(clock=clock)
    await slack.fake.reply((await slack.tester.command("language en", user="U7")).key)
    post_reply = await _miss_a_post_and_a_run_question(slack, "U7")
    assert "📚 Added to your review: /quiz review brings it back." in all_text(post_reply["blocks"])

    started = await slack.tester.command("review", user="U7")
    step = await slack.fake.reply(started.key)
    assert step["response_type"] == "ephemeral"
    header = next(b for b in step["blocks"] if b["type"] == "header")["text"]["text"]
    assert header == "Review · Team <Quiz> & Co · 2 due"
    assert "Which city is the capital of France?" in all_text(step["blocks"])
    review_buttons = buttons(step["blocks"])
    assert [b["action_id"] for b in review_buttons] == [
        "quiz_review_A",
        "quiz_review_B",
        "quiz_review_C",
    ]

    first = _button(step["blocks"], _letter_of(step["blocks"], "Paris"))
    feedback = await _click(slack, first, "U7", ephemeral=True)
    assert feedback["replace_original"] is True
    text = all_text(feedback["blocks"])
    assert "✅ Right!" in text and "Explanation of capital." in text
    assert "It comes back tomorrow." in text
    assert "2 + 2 = ?" in text and "1 due" in text  # the other miss follows

    again = await _click(slack, first, "U7", ephemeral=True)  # a second click on it
    assert "You already answered this review question" in all_text(again["blocks"])

    four = _button(feedback["blocks"], _letter_of(feedback["blocks"], "4"))
    done = await _click(slack, four, "U7", ephemeral=True)
    text = all_text(done["blocks"])
    assert "Nothing more to review today." in text
    assert "The next question falls due on Saturday 2026-03-28." in text
    assert not any(b["action_id"].startswith("quiz_review_") for b in buttons(done["blocks"]))

    later = await slack.fake.reply((await slack.tester.command("review", user="U7")).key)
    assert "Nothing more to review today." in all_text(later["blocks"])
    points = (await slack.app.services.boards.stats(Actor(SERVER, "U7"))).totals.points
    assert points == 1  # "sky" in the run; review never scores

    clock.advance(timedelta(days=1))
    stats = await slack.fake.reply((await slack.tester.command("stats", user="U7")).key)
    assert "Due for review: 2 (/quiz review)" in all_text(stats["blocks"])
    tomorrow = await slack.fake.reply((await slack.tester.command("review", user="U7")).key)
    assert "Review · Team <Quiz> & Co · 2 due" in all_text(tomorrow["blocks"])


async def test_app_home_shows_what_is_due_and_starts_the_review_in_a_dm(slack: Slack) -> None:
    await _miss_a_post_and_a_run_question(slack, "U8")
    event = {"type": "app_home_opened", "user": "U8", "channel": "D8", "tab": "home"}
    await slack.tester.event(event, event_id="EvHome8")
    await slack.fake.until(lambda: bool(slack.fake.api("views.publish")))
    home = slack.fake.api("views.publish")[-1].params["view"]
    assert "Due for review: 2 (/quiz review)" in all_text(home["blocks"])
    review_now = _button(home["blocks"], "Review now")

    key = slack.tester.new_key()
    payload = slack.tester.action_payload(
        review_now["action_id"], review_now["value"], user="U8", key=key
    )
    payload["container"] = {"type": "view", "view_id": "V1"}
    payload.pop("message", None)
    payload.pop("response_url")
    before = len(slack.fake.api("chat.postMessage"))
    assert (await slack.tester.send_payload(payload, key)).status == 200
    await slack.fake.until(lambda: len(slack.fake.api("chat.postMessage")) > before)
    dm = slack.fake.api("chat.postMessage")[-1].params
    assert dm["channel"] == "U8"
    assert "Which city is the capital of France?" in all_text(
        json.loads(dm["blocks"]) if isinstance(dm["blocks"], str) else dm["blocks"]
    )


async def test_mastery_leaderboard_ranks_by_questions_mastered(slack: Slack) -> None:
    await _miss_a_post_and_a_run_question(slack, "U8")
    board = await slack.fake.reply((await slack.tester.command("leaderboard mastery")).key)
    text = all_text(board["blocks"])
    assert "Leaderboard · questions mastered" in text
    assert "1. <@U8> · 1 mastered" in text  # "sky": right, never missed


def _submission(key: str, reason: str, details: str | None, user: str = "U9") -> dict[str, Any]:
    return report_submission(key, reason, details, user)


async def _submit(slack: Slack, payload: dict[str, Any]) -> Sent:
    body = urlencode({"payload": json.dumps(payload)})
    return await slack.tester.send(body, "application/x-www-form-urlencoded")


async def test_report_a_problem_opens_a_form_and_stores_what_was_sent(slack: Slack) -> None:
    post_reply = await _miss_a_post_and_a_run_question(slack, "U9")
    report = _button(post_reply["blocks"], "Report a problem")
    await slack.tester.click(report["action_id"], report["value"], user="U9", ephemeral=True)
    await slack.fake.until(lambda: bool(slack.fake.api("views.open")))
    opened = slack.fake.api("views.open")[-1].params
    form = opened["view"] if isinstance(opened["view"], dict) else json.loads(opened["view"])
    assert opened["trigger_id"]
    assert form["callback_id"] == "quiz_report_form"
    assert form["private_metadata"] == report["value"]
    options = form["blocks"][1]["element"]["options"]
    assert [o["value"] for o in options] == [r.value for r in Reason]

    forged = await _submit(slack, _submission(report["value"], "drop table", "x"))
    assert forged.status == 200
    assert json.loads(forged.body) == {
        "response_action": "errors",
        "errors": {"reason": "Please choose what is wrong, then send the form again."},
    }
    assert await slack.app.store.problem_reports(SERVER) == []

    sent = await _submit(slack, _submission(report["value"], "wrong_answer", "Lyon, surely"))
    answer = json.loads(sent.body)
    assert answer["response_action"] == "update"
    assert "Thank you" in all_text(answer["view"]["blocks"])
    [stored] = await slack.app.store.problem_reports(SERVER)
    deck = slack.app.services.catalog.deck(TEST_DECK)
    assert (stored.user_id, stored.question_id, stored.reason, stored.text) == (
        "U9",
        "capital",
        Reason.WRONG_ANSWER,
        "Lyon, surely",
    )
    assert stored.deck_version == deck.version

    refused = await slack.fake.reply((await slack.tester.command(f"report {TEST_DECK}")).key)
    assert "Only an admin can do that." in all_text(refused["blocks"])
    health = await slack.fake.reply(
        (await slack.tester.command(f"report {TEST_DECK}", user="UCONFIGADMIN")).key
    )
    text = all_text(health["blocks"])
    # One answer is too few to call a question too hard (every flag waits for 10).
    assert "1. 1 answered · 0% right · D - · ⚠️ reported by players" in text
    assert "The answer is wrong · <@U9>: Lyon, surely" in text


async def test_the_daily_summary_reaches_the_configured_admin_as_a_dm(slack: Slack) -> None:
    await slack.app.services.authoring.report_problem(
        Actor(SERVER, "U9"), card_key(TEST_DECK, "sky"), "typo", "nil\x1fU1\x1f <!channel>"
    )
    assert slack.bot.delivery is not None
    store, services = slack.app.store, slack.app.services
    deliveries = Deliveries({"slack": slack.bot.delivery})
    digest = ProblemDigest(
        services.catalog, services.clock, store, store, store, deliveries, digest_messages
    )
    assert await digest.send(datetime.now(UTC)) == [SERVER]
    dm = slack.fake.api("chat.postMessage")[-1].params
    assert dm["channel"] == "UCONFIGADMIN"
    blocks = dm["blocks"] if isinstance(dm["blocks"], list) else json.loads(dm["blocks"])
    text = all_text(blocks)
    assert "Problem reports about quiz questions since the last summary: 1" in text
    assert "A typo or a translation slip · <@U9>: nilU1 &lt;!channel&gt;" in text
    assert await slack.app.store.unsent_problem_reports() == []
