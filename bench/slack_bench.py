"""2. Click to ack and click to private reply through the real Slack HTTP endpoint, with 200
and 1,000 clicks at once (each a different person, on one posted question).

The bot runs in a child process (`bench.slack_app`) against the test suite's fake Slack Web
API (tests/slack/fake_slack.py), which runs here, in the load generator, and stamps when
each private reply reaches its response_url. Baselines, in identical child processes: a bare
slack-bolt app that only acks (for the ack figures), and one that acks and then posts a
fixed reply (for the reply figures). Clicks are signed before the clock starts and sent
over fresh connections (aiohttp `TCPConnector(limit=0)`: no client-side queueing).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
from aiohttp import web
from slack_sdk.signature import SignatureVerifier

from bench.latency import Burst, burst_figures
from bench.procs import child
from bench.report import Figure, failed
from bot.storage.sql import open_store
from tests.slack.fake_slack import FakeSlack
from tests.slack.harness import SIGNING_SECRET, SlackTester, buttons

SECTION = "2 slack"
DECK = "model-pipeline-parallelism"


@dataclass
class TimedFakeSlack(FakeSlack):
    arrived: dict[str, float] = field(default_factory=dict)
    """response_url key -> when its first post arrived (perf_counter)."""

    async def _respond(self, request: web.Request) -> web.Response:
        self.arrived.setdefault(request.match_info["key"], time.perf_counter())
        return await super()._respond(request)


async def _post(
    session: aiohttp.ClientSession, url: str, body: str, headers: dict[str, str]
) -> tuple[float, float, int]:
    started = time.perf_counter()
    try:
        async with session.post(url, data=body.encode(), headers=headers) as resp:
            await resp.read()
            return started, time.perf_counter(), resp.status
    except aiohttp.ClientError:
        return started, time.perf_counter(), 0


async def burst(
    tester: SlackTester,
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
        prepared.append((key, body, headers))
    results = await asyncio.gather(
        *(_post(tester.session, tester.url, body, headers) for _, body, headers in prepared)
    )
    keys = [key for key, _, _ in prepared]
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


async def run_app(kind: str, sizes: list[int]) -> dict[int, Burst]:
    fake = TimedFakeSlack()
    await fake.start()
    folder = Path(tempfile.mkdtemp(prefix="quizbench-slack-"))
    out: dict[int, Burst] = {}
    try:
        async with child("bench.slack_app", kind, fake.api_url, str(folder)) as proc:
            url = f"http://127.0.0.1:{proc.ready}/slack/events"
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
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
                wait_replies = kind != "bare"
                # Warm-up: the first requests pay for auth.test, imports and caches.
                for i in range(2):
                    await burst(tester, fake, 20, choices, f"w{i}", wait_replies)
                for size in sizes:
                    await asyncio.sleep(0.5)
                    out[size] = await burst(tester, fake, size, choices, f"b{size}", wait_replies)
        if post_id is not None:  # the child is gone: count what it stored
            store = await open_store(f"sqlite:///{folder / 'quiz.db'}")
            try:
                stored = await store.answer_count(post_id) - 2 * 20  # less the warm-up
            finally:
                await store.close()
            for b in out.values():
                b.stored = b.clicks if stored == sum(sizes) else stored
    finally:
        await fake.stop()
    return out


async def run(quick: bool) -> list[Figure]:
    sizes = [200, 1000]
    try:
        bare = await run_app("bare", sizes)
        bare_reply = await run_app("bare-reply", sizes)
        quiz = await run_app("quiz", sizes)
    except Exception as error:
        return [failed(SECTION, "clicks", repr(error))]
    return burst_figures(SECTION, quiz, bare, bare_reply)
