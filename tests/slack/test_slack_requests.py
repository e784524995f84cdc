"""What reaches /slack/events that Slack did not send, or sent broken: refused, never a 500."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

import pytest

from bot.core.quiz import Quiz
from tests.slack.conftest import TEST_DECK, Slack
from tests.slack.harness import all_text

STALE = "That button no longer belongs to an open question."


async def _nothing_stored(slack: Slack) -> bool:
    return await slack.app.store.post(1) is None


async def test_forged_signature_is_401_and_stores_nothing(slack: Slack) -> None:
    sent = await slack.tester.send(
        urlencode(
            {
                "command": "/quiz",
                "text": f"post {TEST_DECK}",
                "team_id": "T1",
                "user_id": "U1",
                "channel_id": "C1",
            }
        ),
        "application/x-www-form-urlencoded",
        signature="v0=" + "0" * 64,
    )
    assert sent.status == 401
    assert await _nothing_stored(slack)
    assert not slack.fake.api("chat.postMessage")


async def test_stale_timestamp_is_401(slack: Slack) -> None:
    old = str(int(time.time()) - 10 * 60)  # Slack's limit is five minutes
    body = urlencode(
        {
            "command": "/quiz",
            "text": f"post {TEST_DECK}",
            "team_id": "T1",
            "user_id": "U1",
            "channel_id": "C1",
        }
    )
    sent = await slack.tester.send(body, "application/x-www-form-urlencoded", timestamp=old)
    assert sent.status == 401
    assert await _nothing_stored(slack)


async def test_signature_over_another_body_is_401(slack: Slack) -> None:
    ts = str(int(time.time()))
    signature = slack.tester.verifier.generate_signature(timestamp=ts, body="text=help")
    sent = await slack.tester.send(
        urlencode({"command": "/quiz", "text": "reset"}),
        "application/x-www-form-urlencoded",
        timestamp=ts,
        signature=signature,
    )
    assert sent.status == 401


@pytest.mark.parametrize(
    "body",
    [
        "payload=%7Bnot+json",
        "payload=%5B1%2C2%5D",  # a JSON list
        '{"type": "event_callback", "event": ',
    ],
)
async def test_unparseable_signed_bodies_are_400(slack: Slack, body: str) -> None:
    content_type = (
        "application/json" if body.startswith("{") else "application/x-www-form-urlencoded"
    )
    sent = await slack.tester.send(body, content_type)
    assert sent.status == 400
    forged = await slack.tester.send(body, content_type, signature="v0=" + "1" * 64)
    assert forged.status == 401
    assert await _nothing_stored(slack)


@pytest.mark.parametrize(
    "value",
    [
        "p:999999:9",
        "p:999999:0",
        "garbage",
        "",
        "p:1:x",
        "p:-1:0",
        "p:99999999999999999999999:1",
        "r:1:capital:0",
        "l:1:bn",
    ],
)
async def test_tampered_values_get_a_polite_reply(slack: Slack, value: str) -> None:
    sent = await slack.tester.click("quiz_answer_A", value)
    assert sent.status == 200
    reply = await slack.fake.reply(sent.key)
    assert STALE in all_text(reply["blocks"])
    assert reply["response_type"] == "ephemeral" and reply["replace_original"] is False
    assert await _nothing_stored(slack)


async def test_a_real_post_with_a_choice_it_does_not_have(slack: Slack) -> None:
    post_id = await slack.post(f"{TEST_DECK} sky")  # two choices: A and B
    sent = await slack.tester.click("quiz_answer_E", f"p:{post_id}:4")
    assert STALE in all_text((await slack.fake.reply(sent.key))["blocks"])
    assert await slack.app.store.answer_count(post_id) == 0


@pytest.mark.parametrize(
    "change",
    [
        {"actions": []},
        {"actions": [{}]},
        {"actions": [{"action_id": 5, "value": "p:1:0"}]},
        {"actions": "nope"},
        {"user": None},
        {"user": {}},
        {"team": None},
    ],
)
async def test_payloads_with_missing_fields(slack: Slack, change: dict[str, object]) -> None:
    key = slack.tester.new_key()
    payload = slack.tester.action_payload("quiz_answer_A", "p:1:0", key=key) | change
    sent = await slack.tester.send_payload(payload, key)
    assert sent.status == 200
    reply = await slack.fake.reply(key)
    assert STALE in all_text(reply["blocks"])
    assert await _nothing_stored(slack)


async def test_an_unknown_action_id_gets_a_polite_reply(slack: Slack) -> None:
    sent = await slack.tester.click("someone_elses_button", "p:1:0")
    assert sent.status == 200
    assert STALE in all_text((await slack.fake.reply(sent.key))["blocks"])


async def test_a_command_without_a_user_gets_the_generic_apology(slack: Slack) -> None:
    key = slack.tester.new_key()
    body = urlencode(
        {
            "command": "/quiz",
            "text": "stats",
            "team_id": "T1",
            "channel_id": "C1",
            "response_url": slack.fake.response_url(key),
        }
    )
    sent = await slack.tester.send(body, "application/x-www-form-urlencoded", key=key)
    assert sent.status == 200
    reply = await slack.fake.reply(key)
    assert "Something went wrong on our side." in all_text(reply["blocks"])


async def test_an_unexpected_error_is_logged_and_apologised_for(
    slack: Slack, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    post_id = await slack.post(f"{TEST_DECK} sky")

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("database on fire")

    monkeypatch.setattr(Quiz, "answer", broken)
    sent = await slack.tester.click("quiz_answer_A", f"p:{post_id}:0")
    assert sent.status == 200
    reply = await slack.fake.reply(sent.key)
    text = json.dumps(reply)
    assert "Something went wrong on our side. Please try again in a moment." in text
    assert "database on fire" not in text and "Traceback" not in text
    assert any("database on fire" in str(r.exc_info) for r in caplog.records if r.exc_info)
