"""Fuzzing /slack/events with hypothesis: slash command text, block_actions payloads and raw
bodies. Whatever arrives: never a 500 and never a crash; 200 for a well-signed request bolt
can parse, 400 or 401 otherwise; nothing stored unless it is a valid click on an open post;
no traceback in anything sent to Slack; no unexpected error logged.

Each example waits for the work it started (the bot acks first and works in the background)
before its checks, so an example's effects are never blamed on the next one.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.slack.commands import parse
from bot.slack.http import BODY_LIMIT
from bot.testing.slack_requests import SlackTester
from tests.reliability.conftest import (
    SECRET,
    Live,
    LiveFactory,
    assert_no_traceback,
    settle,
)

EXAMPLES = 150
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FORM = "application/x-www-form-urlencoded"


class Fuzz:
    """The bot with an open post, and what the examples so far did.

    A plain class: hypothesis prints a dataclass field by field with every failing example.
    """

    def __init__(
        self, live: Live, tester: SlackTester, post_id: int, caplog: pytest.LogCaptureFixture
    ) -> None:
        self.live = live
        self.tester = tester
        self.post_id = post_id
        self.caplog = caplog
        self.examples = 0
        self.stored = 0

    def __repr__(self) -> str:  # hypothesis prints it with every failing example
        return f"Fuzz(post {self.post_id})"

    def errors(self, since: int) -> list[logging.LogRecord]:
        return [
            r
            for r in self.caplog.records[since:]
            if r.levelno >= logging.ERROR and r.name.startswith("quizbot")
        ]


@pytest.fixture
async def fuzz(make_live: LiveFactory, caplog: pytest.LogCaptureFixture) -> AsyncIterator[Fuzz]:
    caplog.set_level(logging.INFO, logger="quizbot")
    live = await make_live(refresh_interval=0.05)
    fuzz = Fuzz(live, live.tester, await live.post(), caplog)
    yield fuzz
    print(f"\n{fuzz.examples} examples, {fuzz.stored} of them stored an answer")
    assert_no_traceback(live.fake)


def bolt_parses(body: bytes, content_type: str) -> bool:
    """Whether slack-bolt can handle this body at all (the endpoint answers 400 to a signed
    body it cannot): make a request of it, and read it as its built-in middleware does (an
    `event` that is not an object, as the form body `event` gives, trips it)."""
    try:
        request = AsyncBoltRequest(
            body=body.decode("utf-8"), headers={"content-type": content_type}
        )
    except Exception:
        return False
    event = request.body.get("event", {}) if isinstance(request.body, dict) else {}
    return isinstance(event, dict)


async def example(fuzz: Fuzz, send: Any) -> tuple[int, int, int, int]:
    """Runs `send()` and waits for its effects: (status, new replies, new answers, errors)."""
    fake, store = fuzz.live.fake, fuzz.live.app.store
    replies, logged = len(fake.responses), len(fuzz.caplog.records)
    answers = await store.answer_count(fuzz.post_id)
    before = set(asyncio.all_tasks())
    status = await send()
    await settle(before)
    fuzz.examples += 1
    new_answers = await store.answer_count(fuzz.post_id) - answers
    fuzz.stored += new_answers
    errors = fuzz.errors(logged)
    assert not errors, [e.getMessage() for e in errors]
    for posted in fake.responses[replies:]:
        assert posted.body.get("response_type") in ("ephemeral", "in_channel"), posted.body
    return status, len(fake.responses) - replies, new_answers, len(errors)


# Slash command text -------------------------------------------------------------------------

WORDS = [
    *["post", "start", "leaderboard", "stats", "decks", "language", "schedule", "close"],
    *["reset", "help", "set", "show", "off", "now", "server", "week", "month", "all"],
    *["daily", "weekdays", "rel", "capital", "sum"],
    *["1", "2", "0", "-1", "99999999999999999999999", "en", "bn", "xx", "UTC", "Asia/Dhaka"],
    *["09:30", "25:99", "<@U123|x>", "<@U123>", "<@W9|<!here>>", "<!channel>", "<!here>"],
    *["@everyone", "*bold*", "<https://evil.example|click>", "'; DROP TABLE answers;--"],
    *["%s", "{x}", "{0}", "\x00", "\u202e", "𝕏", "মডেল", "&amp;", "&lt;", "\\", '"', "\n"],
]
def _fits(text: str) -> bool:
    """A text whose request is within the body limit (a larger one is refused with 413, as
    test_slack_requests shows): 40,000 characters of Bengali are 360 KB url-encoded."""
    return len(urlencode({"text": text})) < BODY_LIMIT - 4096


COMMAND_TEXT = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=12)), max_size=6).map(" ".join),
    st.text(max_size=300),
    st.tuples(st.sampled_from(WORDS), st.integers(3000, 40000))
    .map(lambda t: (t[0] + " ") * (t[1] // (len(t[0]) + 1)))
    .filter(_fits),
)


@SETTINGS
@given(text=COMMAND_TEXT)
async def test_fuzz_slash_command_text(fuzz: Fuzz, text: str) -> None:
    fake = fuzz.live.fake
    posts_before = len(fake.successful("chat.postMessage"))

    async def send() -> int:
        return (await fuzz.tester.command(text, user="UFUZZ", channel="CFUZZ")).status

    status, replies, answers, _ = await example(fuzz, send)
    assert status == 200
    posted = len(fake.successful("chat.postMessage")) - posts_before
    assert replies + posted >= 1, "silence"  # a reply, or the question it asked for
    assert answers == 0
    if parse(text).name != "post":
        assert posted == 0


# block_actions payloads -----------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
ACTION_IDS = st.one_of(
    st.sampled_from(
        [f"quiz_answer_{c}" for c in "ABCDEF"]
        + ["quiz_run_A", "quiz_locale", "quiz_reset_yes", "quiz_reset_no", "quiz_answer_", ""]
    ),
    st.text(max_size=300),
    JSON,
)
VALUES = st.one_of(
    st.sampled_from(
        [f"p:{{post}}:{i}" for i in range(10)]
        + ["l:{post}:en", "l:{post}:bn", "r:1:capital:0", "s:1", "s:0", "p:{post}", "p::0"]
        + ["p:{post}:0 ", "p:-{post}:0", "p:0{post}:0", "p:{post}:1:1", "p:99999999999999999999:0"]
    ),
    st.text(max_size=300),
    st.integers(10_000, 100_000).map(lambda n: "p:" + "9" * n + ":0"),  # huge
    JSON,
)
TOP_KEYS = [
    "type", "team", "user", "api_app_id", "token", "container", "trigger_id", "channel",
    "response_url", "actions", "message", "enterprise", "is_enterprise_install",
]  # fmt: skip
ACTION_KEYS = ["action_id", "block_id", "text", "value", "type", "action_ts"]


@st.composite
def mutations(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "action_id": draw(ACTION_IDS),
        "value": draw(VALUES),
        "drop": draw(st.sets(st.sampled_from(TOP_KEYS), max_size=3)),
        "replace": draw(st.dictionaries(st.sampled_from(TOP_KEYS), JSON, max_size=2)),
        "drop_action": draw(st.sets(st.sampled_from(ACTION_KEYS), max_size=2)),
        "user": draw(st.one_of(st.none(), st.text(max_size=40), JSON)),
        "pristine": draw(st.integers(0, 4)) == 0,
    }


def valid_click(payload: dict[str, Any], post_id: int) -> bool:
    """What may store an answer: a block_actions click of an answer button with the value of
    one of the open post's three choices, by a user with an id."""
    acts = payload.get("actions")
    user = payload.get("user")
    if payload.get("type") != "block_actions" or not isinstance(acts, list) or not acts:
        return False
    act = acts[0]
    if not isinstance(act, dict) or not isinstance(act.get("action_id"), str):
        return False
    value = act.get("value")
    match = re.fullmatch(rf"p:{post_id}:([012])", value) if isinstance(value, str) else None
    return (
        re.fullmatch(r"quiz_answer_[A-E]", act["action_id"]) is not None
        and match is not None
        and isinstance(user, dict)
        and isinstance(user.get("id"), str)
        and bool(user["id"])
    )


@SETTINGS
@given(change=mutations())
async def test_fuzz_block_actions(fuzz: Fuzz, change: dict[str, Any]) -> None:
    key = fuzz.tester.new_key()
    user = f"UF{fuzz.examples}"
    payload = fuzz.tester.action_payload("quiz_answer_A", f"p:{fuzz.post_id}:0", user=user, key=key)
    if not change["pristine"]:
        action = payload["actions"][0]
        action["action_id"] = change["action_id"]
        value = change["value"]
        action["value"] = (
            value.replace("{post}", str(fuzz.post_id)) if isinstance(value, str) else value
        )
        for name in change["drop_action"]:
            action.pop(name, None)
        if change["user"] is not None:
            payload["user"] = {**payload["user"], "id": change["user"]}
        for name in change["drop"]:
            payload.pop(name, None)
        payload.update(change["replace"])
    valid = valid_click(payload, fuzz.post_id)
    intact = payload.get("response_url") == fuzz.live.fake.response_url(key)
    body = urlencode({"payload": json.dumps(payload)})
    parses = bolt_parses(body.encode(), FORM)

    async def send() -> int:
        return (await fuzz.tester.send(body, FORM, key=key)).status

    status, replies, answers, _ = await example(fuzz, send)
    assert status == (200 if parses else 400)
    assert answers <= (1 if valid else 0), payload
    if change["pristine"]:
        assert answers == 1 and replies == 1
    if intact and parses and payload.get("type") == "block_actions":
        assert replies == 1, "a click with a response_url always gets a reply"


# Raw bodies ------------------------------------------------------------------------------------


def sign(body: bytes, timestamp: str) -> str:
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(SECRET.encode(), base, hashlib.sha256).hexdigest()


BODIES = st.one_of(
    st.binary(max_size=2000),
    st.text(max_size=2000).map(str.encode),
    JSON.map(lambda j: json.dumps(j).encode()),
    st.dictionaries(st.text(max_size=10), st.text(max_size=30), max_size=5).map(
        lambda d: urlencode(d).encode()
    ),
    JSON.map(lambda j: urlencode({"payload": json.dumps(j)}).encode()),
    st.text(max_size=200).map(lambda t: ("payload=" + t).encode()),
)
CONTENT_TYPES = st.sampled_from(
    [
        FORM,
        "application/json",
        "text/plain",
        "",
        "multipart/form-data; boundary=x",
        "a/b; charset=latin-1",
    ]
)
TIMESTAMPS = st.one_of(
    st.just("now"),
    st.just("old"),
    st.text(max_size=12),
    st.integers(-(10**20), 10**20).map(str),
)


@SETTINGS
@given(body=BODIES, content_type=CONTENT_TYPES, timestamp=TIMESTAMPS, signed=st.booleans())
async def test_fuzz_raw_bodies(
    fuzz: Fuzz, body: bytes, content_type: str, timestamp: str, signed: bool
) -> None:
    now = int(time.time())
    ts = {"now": str(now), "old": str(now - 600)}.get(timestamp, timestamp)
    fresh = timestamp == "now"  # the other integers are years away, the texts are no time
    headers = {
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": sign(body, ts) if signed else "v0=" + "0" * 64,
    }
    if content_type:
        headers["Content-Type"] = content_type
    if not all(v.isascii() and v.isprintable() for v in headers.values()):
        return  # not a header value HTTP can carry: nothing to send
    posts_before = len(fuzz.live.fake.successful("chat.postMessage"))

    async def send() -> int:
        async with fuzz.tester.session.post(fuzz.tester.url, data=body, headers=headers) as resp:
            await resp.read()
            return resp.status

    status, _, answers, _ = await example(fuzz, send)
    if signed and fresh:
        assert status == (200 if bolt_parses(body, content_type) else 400), status
    else:
        assert status == 401, status
    assert answers == 0
    assert len(fuzz.live.fake.successful("chat.postMessage")) == posts_before


# Every payload type, signed, with its fields of any JSON shape --------------------------------

PAYLOAD_TYPES = [
    *["block_actions", "view_submission", "view_closed", "block_suggestion", "shortcut"],
    *["message_action", "interactive_message", "dialog_submission", "workflow_step_edit", 5],
]  # fmt: skip
PAYLOAD_FIELDS = [
    *["team", "user", "view", "response_url", "channel", "actions", "container", "message"],
    *["trigger_id", "api_app_id", "enterprise", "callback_id", "value", "action_id", "state"],
]  # fmt: skip
EVENT_FIELDS = ["team_id", "event", "api_app_id", "enterprise_id", "authorizations", "event_id"]


@st.composite
def typed_bodies(draw: st.DrawFn) -> tuple[str, str]:
    """A signed body of any payload type Slack sends, its fields any JSON (the 500s found by
    hand: `event: 5`, `view: 5`, a list for `team.id` or `response_url`, a block_suggestion)."""
    if draw(st.booleans()):
        payload: dict[str, Any] = {"type": draw(st.sampled_from(PAYLOAD_TYPES))}
        payload |= draw(st.dictionaries(st.sampled_from(PAYLOAD_FIELDS), JSON, max_size=5))
        if draw(st.booleans()):
            payload["team"] = {"id": draw(JSON), "domain": "x"}
        return urlencode({"payload": json.dumps(payload)}), FORM
    kind = draw(st.sampled_from(["event_callback", "url_verification", "app_rate_limited", 5]))
    body: dict[str, Any] = {"type": kind, "token": "x"}
    body |= draw(st.dictionaries(st.sampled_from(EVENT_FIELDS), JSON, max_size=4))
    if draw(st.booleans()):
        body["event"] = {
            "type": draw(st.sampled_from(["app_home_opened", "message", 5])),
            "user": draw(JSON),
        }
    return json.dumps(body), "application/json"


@SETTINGS
@given(typed=typed_bodies())
async def test_fuzz_every_payload_type_signed(fuzz: Fuzz, typed: tuple[str, str]) -> None:
    body, content_type = typed

    async def send() -> int:
        return (await fuzz.tester.send(body, content_type)).status

    status, _, answers, _ = await example(fuzz, send)
    assert status in (200, 400), status  # never a 5xx: Slack would retry it
    assert answers == 0
