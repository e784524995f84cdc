"""Logs are one JSON object per line, and never contain a secret, even in a traceback."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import time
from collections.abc import Iterator
from datetime import datetime

import pytest

from bot.domain.actor import Actor
from bot.observability import clicklog
from bot.observability.logs import REDACTED, Redactor, configure
from bot.observability.metrics import Metrics

BOT = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
APP = "xapp-1-A0123456789-1234567890123-abcdef0123456789"
DISCORD = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB"
SIGNING = "8f742231b10e8888abcd99yyyzzz85a5"


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = configure("DEBUG", {"a": BOT, "b": SIGNING, "c": None}, stream=stream)
    yield stream
    logging.getLogger().removeHandler(handler)


def records(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def clicks(stream: io.StringIO) -> list[dict[str, object]]:
    return [line for line in records(stream) if line.get("event") == "click"]


def test_an_event_is_one_json_line_with_its_fields(lines: io.StringIO) -> None:
    logging.getLogger("quizbot.slack").info(
        "answer", extra={"event": "answer", "server": "slack:T1", "post": 7, "latency_ms": 12.5}
    )
    [line] = records(lines)
    assert line["msg"] == "answer" and line["level"] == "info"
    assert (line["server"], line["post"], line["latency_ms"]) == ("slack:T1", 7, 12.5)


@pytest.mark.parametrize("secret", [BOT, APP, DISCORD, SIGNING])
def test_secrets_never_reach_the_log(lines: io.StringIO, secret: str) -> None:
    log = logging.getLogger("quizbot.test")
    log.warning("calling with %s", secret)
    log.info("headers", extra={"headers": {"Authorization": f"Bearer {secret}"}})
    try:
        raise RuntimeError(f"request failed: token={secret}")
    except RuntimeError:
        log.exception("boom")
    out = lines.getvalue()
    assert secret not in out
    assert out.count(REDACTED) >= 3
    assert all(json.loads(line) for line in out.splitlines())  # still valid JSON


def test_ordinary_text_is_left_alone(lines: io.StringIO) -> None:
    logging.getLogger("quizbot.test").info("post 12 in C0123 closed after 3 answers")
    assert records(lines)[0]["msg"] == "post 12 in C0123 closed after 3 answers"


@pytest.mark.parametrize(
    "text",
    [
        f"token {BOT} in a url",
        f"app={APP}",
        f"login with {DISCORD}",
        "AUTHORIZATION: Bot abcdefghijklmnopqrstuvwxyz0123456789.-_",
        "headers={'authorization': 'Bearer ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'}",
        "bearer=abcdefghijklmnopqrstuvwxyz0123456789",
    ],
)
def test_tokens_unknown_to_the_process_are_redacted_by_their_shape(text: str) -> None:
    """A library may log a token this process never held (a refreshed one, another app's):
    its shape alone gets it redacted, whatever its case."""
    out = Redactor()(text)
    assert REDACTED in out
    assert not any(len(word) >= 30 for word in out.replace("'", " ").split())


async def test_click_lines_are_written_when_the_clicks_stop(lines: io.StringIO) -> None:
    """A burst's click lines wait until it is over (no click for `LINGER`), then are all
    written, each with the time of its click; shutdown writes what is still held."""
    metrics = Metrics()
    who = Actor("slack:T1", "U1")
    for post in (1, 2, 3):
        clicklog.record(metrics, "slack", who, clicklog.Handled("new", post, True), 0.0)
        await asyncio.sleep(clicklog.LINGER / 3)
    assert clicks(lines) == []  # still clicking
    clicked_at = time.time()
    await asyncio.sleep(clicklog.LINGER + 0.1)
    written = clicks(lines)
    assert [line["post"] for line in written] == [1, 2, 3]
    assert all(line["event"] == "click" and line["outcome"] == "new" for line in written)
    stamps = [datetime.fromisoformat(str(line["ts"])).timestamp() for line in written]
    assert stamps == sorted(stamps) and clicked_at - 1 < stamps[0] <= clicked_at

    clicklog.record(metrics, "slack", who, clicklog.Handled("new", 4, True), 0.0)
    clicklog.flush()  # what Services.close does
    assert [line["post"] for line in clicks(lines)] == [1, 2, 3, 4]
