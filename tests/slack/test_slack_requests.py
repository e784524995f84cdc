"""What reaches /slack/events that Slack did not send, or sent broken: refused, never a 500."""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import urlencode, urlsplit

import pytest

from bot.service.answering import Answering
from tests.slack.conftest import TEST_DECK, Slack
from tests.slack.harness import all_text

STALE = "That button no longer belongs to an open question."


async def _nothing_stored(slack: Slack) -> bool:
    """No post was made (for requests that would have posted one)."""
    return not slack.fake.api("chat.postMessage") and await slack.app.store.post(1) is None


async def _target(slack: Slack) -> int:
    """A real open question for forged and broken clicks to aim at."""
    return await slack.post(f"{TEST_DECK} sky")


async def _unanswered(slack: Slack, post_id: int) -> bool:
    await slack.bot.posts.flush()
    return await slack.app.store.answer_count(post_id) == 0 and not slack.fake.api("chat.update")


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


async def test_a_forged_click_on_a_real_question_is_401_and_counts_nothing(slack: Slack) -> None:
    post_id = await _target(slack)
    key = slack.tester.new_key()
    payload = slack.tester.action_payload("quiz_answer_A", f"p:{post_id}:0", key=key)
    body = urlencode({"payload": json.dumps(payload)})
    content_type = "application/x-www-form-urlencoded"
    forged = await slack.tester.send(body, content_type, signature="v0=" + "0" * 64)
    old = str(int(time.time()) - 10 * 60)
    stale = await slack.tester.send(body, content_type, timestamp=old)
    assert forged.status == stale.status == 401
    assert await _unanswered(slack, post_id)
    assert not slack.fake.replies(key)

    signed = await slack.tester.send(body, content_type, key=key)  # the same click, signed
    assert signed.status == 200
    await slack.fake.reply(key)
    assert await slack.app.store.answer_count(post_id) == 1


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
        "p:{id}:9",
        "p:{id}:2",  # the question has two choices
        "p:{id}:x",
        "p:-{id}:0",
        "p:{id}:0:0",
        " p:{id}:0",
        "p:{id}:0\n",
        "p:0{id}00000000000000000000:0",
        "p:{id}",
        "r:{id}:sky:0",
        "l:{id}:bn",
        "s:{id}",
        "garbage",
        "",
    ],
)
async def test_tampered_values_get_a_polite_reply(slack: Slack, value: str) -> None:
    post_id = await _target(slack)
    sent = await slack.tester.click("quiz_answer_A", value.format(id=post_id))
    assert sent.status == 200
    reply = await slack.fake.reply(sent.key)
    assert STALE in all_text(reply["blocks"])
    assert reply["response_type"] == "ephemeral" and reply["replace_original"] is False
    assert await _unanswered(slack, post_id)


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
        {"actions": [{"action_id": 5, "value": "p:{id}:0"}]},
        {"actions": "nope"},
        {"user": None},  # bolt would fall back to message.user: the bot itself
        {"user": {}},
        {"user": {"id": 5, "team_id": "T1"}},
        {"team": None, "user": {"id": "U1"}},  # no workspace anywhere in the payload
    ],
)
async def test_payloads_with_missing_fields(slack: Slack, change: dict[str, object]) -> None:
    post_id = await _target(slack)
    key = slack.tester.new_key()
    payload = slack.tester.action_payload("quiz_answer_A", f"p:{post_id}:0", key=key)
    payload |= json.loads(json.dumps(change).replace("{id}", str(post_id)))
    sent = await slack.tester.send_payload(payload, key)
    assert sent.status == 200
    reply = await slack.fake.reply(key)
    assert STALE in all_text(reply["blocks"])
    assert await _unanswered(slack, post_id)


async def test_an_org_wide_click_without_a_team_uses_the_users_team(slack: Slack) -> None:
    post_id = await _target(slack)
    key = slack.tester.new_key()
    payload = slack.tester.action_payload("quiz_answer_A", f"p:{post_id}:0", key=key)
    payload["team"] = None  # as Slack sends it for org-wide installs; user.team_id is T1
    sent = await slack.tester.send_payload(payload, key)
    assert sent.status == 200
    assert STALE not in all_text((await slack.fake.reply(key))["blocks"])
    assert await slack.app.store.answer_count(post_id) == 1


async def test_an_unknown_action_id_gets_a_polite_reply(slack: Slack) -> None:
    post_id = await _target(slack)
    sent = await slack.tester.click("someone_elses_button", f"p:{post_id}:0")
    assert sent.status == 200
    assert STALE in all_text((await slack.fake.reply(sent.key))["blocks"])
    assert await _unanswered(slack, post_id)


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

    monkeypatch.setattr(Answering, "answer", broken)
    sent = await slack.tester.click("quiz_answer_A", f"p:{post_id}:0")
    assert sent.status == 200
    reply = await slack.fake.reply(sent.key)
    text = json.dumps(reply)
    assert "Something went wrong on our side. Please try again in a moment." in text
    assert "database on fire" not in text and "Traceback" not in text
    assert any("database on fire" in str(r.exc_info) for r in caplog.records if r.exc_info)


async def test_a_slow_body_holds_up_no_click_and_is_refused(slack: Slack) -> None:
    """Before, a request was admitted before its body was read, with no time limit: a
    `Content-Length: 1000` with 3 bytes sent held a place in admission for as long as the
    socket stayed open (and a graceful stop waited for it)."""
    post_id = await _target(slack)
    url = urlsplit(slack.tester.url)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    writer.write(
        f"POST {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Length: 1000\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n\r\nabc".encode()
    )
    await writer.drain()
    try:
        shown = await slack.right_shown(post_id)
        click = await slack.tester.click(f"quiz_answer_{'ABC'[shown]}", f"p:{post_id}:{shown}")
        assert click.status == 200
        assert "Right" in all_text((await slack.fake.reply(click.key))["blocks"])
        assert slack.bot.requests.pending == 0  # the slow one was never admitted
        assert not reader.at_eof()  # ... and is still being read: the click did not wait
        answer = await asyncio.wait_for(reader.readline(), 10)
        assert answer.startswith(b"HTTP/1.1 408"), answer
    finally:
        writer.close()
    assert await slack.app.store.answer_count(post_id) == 1


async def test_an_oversized_body_is_413_and_unread(slack: Slack) -> None:
    body = urlencode({"payload": "x" * (300 * 1024)})
    sent = await slack.tester.send(body, "application/x-www-form-urlencoded")
    assert sent.status == 413
    assert await _nothing_stored(slack)
