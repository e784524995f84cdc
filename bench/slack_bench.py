"""2. Click to ack and click to private reply through the real Slack HTTP endpoint, with 200
and 1,000 clicks at once (each a different person, on one posted question).

The bot runs in a child process (`bench.slack_app`) against the test suite's fake Slack Web
API (bot/testing/fake_slack.py), which runs here, in the load generator, and stamps when
each private reply reaches its response_url. Baselines, in identical child processes: a bare
slack-bolt app that only acks (for the ack figures), and one that acks and then posts a
fixed reply (for the reply figures). The three run side by side and take their bursts in
turns, so a figure and its baselines are measured seconds apart. Clicks are signed and
their connections opened before the clock starts; the clock runs from a request's bytes
being written to its response being read (`Wire`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import aiohttp
from aiohttp import web
from slack_sdk.signature import SignatureVerifier

from bench.latency import Burst, answers_stored, burst_figures, take_turns
from bench.procs import child
from bench.report import Figure, failed
from bot.testing.fake_slack import FakeSlack
from bot.testing.slack_requests import SIGNING_SECRET, SlackTester, buttons

SECTION = "2 slack"
DECK = "model-pipeline-parallelism"


@dataclass
class TimedFakeSlack(FakeSlack):
    arrived: dict[str, float] = field(default_factory=dict)
    """response_url key -> when its first post arrived (perf_counter)."""

    async def _respond(self, request: web.Request) -> web.Response:
        self.arrived.setdefault(request.match_info["key"], time.perf_counter())
        return await super()._respond(request)


class Wire:
    """The load generator's side of a burst: HTTP/1.1 keep-alive connections opened before
    the clock starts, each request written as prepared bytes and its response read by hand.
    aiohttp's client spent about half a millisecond of Python per request, on the same two
    cores as the app it measures: with 1,000 requests in flight that queueing was counted as
    the app's latency, for the baselines and the bot alike."""

    def __init__(self, url: str) -> None:
        parsed = urlsplit(url)
        self.host, self.port, self.path = parsed.hostname or "127.0.0.1", parsed.port, parsed.path
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def open(self, count: int) -> None:
        """Keeps at least `count` connections open and idle."""
        while len(self._idle) < count:
            self._idle.append(await asyncio.open_connection(self.host, self.port))

    async def close(self) -> None:
        for _, writer in self._idle:
            writer.close()
        self._idle.clear()

    def request(self, body: str, headers: dict[str, str]) -> bytes:
        data = body.encode()
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        return (
            f"POST {self.path} HTTP/1.1\r\nHost: {self.host}\r\n{head}"
            f"Content-Length: {len(data)}\r\n\r\n"
        ).encode() + data

    async def post(self, request: bytes) -> tuple[float, float, int]:
        """(sent, answered, status); a connection that fails is status 0 and dropped."""
        reader, writer = self._idle.pop()
        started = time.perf_counter()
        try:
            writer.write(request)
            status_line = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            await reader.readexactly(length)
            status = int(status_line.split()[1])
        except (OSError, ValueError, IndexError, asyncio.IncompleteReadError):
            writer.close()
            return started, time.perf_counter(), 0
        self._idle.append((reader, writer))
        return started, time.perf_counter(), status


async def burst(
    tester: SlackTester,
    wire: Wire,
    fake: TimedFakeSlack,
    clicks: int,
    choices: list[dict[str, Any]],
    tag: str,
    wait_replies: bool,
) -> Burst:
    verifier = SignatureVerifier(SIGNING_SECRET)
    prepared = []
    for i in range(clicks):
        key = f"{tag}-{i}"
        button = choices[i % len(choices)]
        payload = tester.action_payload(
            button["action_id"], button["value"], user=f"U{tag}{i:05d}", key=key
        )
        body = urlencode({"payload": json.dumps(payload)})
        ts = str(int(time.time()))
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": verifier.generate_signature(timestamp=ts, body=body),
        }
        prepared.append((key, wire.request(body, headers)))
    await wire.open(clicks)
    results = await asyncio.gather(*(wire.post(request) for _, request in prepared))
    keys = [key for key, _ in prepared]
    if wait_replies:
        with contextlib.suppress(TimeoutError):
            await fake.until(lambda: all(k in fake.arrived for k in keys), seconds=60)
    acks = [end - start for start, end, status in results if status == 200]
    replies = [
        fake.arrived[k] - start
        for k, (start, _, _) in zip(keys, results, strict=True)
        if k in fake.arrived
    ]
    failures = sum(1 for _, _, s in results if s != 200)
    if wait_replies:
        failures += sum(1 for k in keys if k not in fake.arrived)
    return Burst(clicks, acks, replies, failures)


@dataclass
class Target:
    """One app under load: its child process, the fake Slack it talks to, its buttons."""

    kind: str
    fake: TimedFakeSlack
    tester: SlackTester
    wire: Wire
    choices: list[dict[str, Any]]
    post_id: int | None
    folder: Path

    async def burst(self, clicks: int, tag: str) -> Burst:
        wait_replies = self.kind != "bare"
        return await burst(
            self.tester, self.wire, self.fake, clicks, self.choices, tag, wait_replies
        )

    async def stored(self) -> int | None:
        return await answers_stored(self.folder, self.post_id)


@asynccontextmanager
async def started(kind: str) -> AsyncIterator[Target]:
    fake = TimedFakeSlack()
    await fake.start()
    folder = Path(tempfile.mkdtemp(prefix="quizbench-slack-"))
    try:
        async with (
            child(
                "bench.slack_app", kind, fake.api_url, str(folder), log=folder / "bot.log"
            ) as proc,
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session,
        ):
            url = f"http://127.0.0.1:{proc.ready}/slack/events"
            tester = SlackTester(url, fake, session)
            post_id = None
            if kind == "quiz":
                sent = await tester.command(f"post {DECK}")
                assert sent.status == 200, sent
                await fake.until(lambda: bool(fake.api("chat.postMessage")), 15)
                blocks = fake.api("chat.postMessage")[-1].params["blocks"]
                choices = buttons(blocks)
                post_id = int(choices[0]["value"].split(":")[1])
            else:
                choices = [
                    {"action_id": f"quiz_answer_{c}", "value": f"p:1:{i}"}
                    for i, c in enumerate("ABCD")
                ]
            wire = Wire(url)
            try:
                yield Target(kind, fake, tester, wire, choices, post_id, folder)
            finally:
                await wire.close()
    finally:
        await fake.stop()


KINDS = ("bare", "bare-reply", "bare-store", "quiz")
WARM_UP = 20
"""Clicks each app gets first: the first requests pay for auth.test, imports and caches."""


async def run_apps(sizes: list[int]) -> dict[str, dict[int, Burst]]:
    async with AsyncExitStack() as stack:
        targets = [await stack.enter_async_context(started(kind)) for kind in KINDS]
        return await take_turns(targets, sizes, WARM_UP)


async def run(quick: bool) -> list[Figure]:
    sizes = [200, 1000]
    try:
        out = await run_apps(sizes)
    except Exception as error:
        return [failed(SECTION, "clicks", repr(error))]
    return burst_figures(
        SECTION, out["quiz"], out["bare"], out["bare-reply"], bare_store=out["bare-store"]
    )
