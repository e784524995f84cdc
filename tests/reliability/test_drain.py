"""SIGTERM in the middle of a burst: `quizbot run` stops taking requests, finishes every click
it acknowledged (its private reply sent, its answer stored), and exits 0.

Runs at --log-level DEBUG, where slack_sdk logs every request with its headers: the bot
token and the signing secret must still not reach the log.
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import aiohttp

from bot.storage import open_store
from bot.testing.slack_requests import SlackTester
from tests.reliability.conftest import (
    DECK,
    QUESTION,
    BotProcess,
    FaultySlack,
    Shot,
    assert_no_secrets,
    burst,
    eventually,
    post_id_of,
)

USERS = 200
TERM_AFTER = 40  # acks before the SIGTERM


async def test_sigterm_mid_burst_finishes_every_acked_click(tmp_path: Path, decks: Path) -> None:
    fake = FaultySlack()
    await fake.start()
    bot = BotProcess(tmp_path / "bot", fake.api_url, decks, log_level="DEBUG")
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=40), timeout=aiohttp.ClientTimeout(total=60)
    )
    try:
        await bot.start()
        tester = SlackTester(bot.events_url, fake, session)
        assert (await tester.command(f"post {DECK} {QUESTION}")).status == 200
        await eventually(lambda: bool(fake.successful("chat.postMessage")))
        post_id = post_id_of(fake.successful("chat.postMessage")[-1].params)

        shots = [Shot(f"U{i:04d}", i % 3, f"t-{i}") for i in range(USERS)]
        enough = asyncio.Event()
        task = asyncio.create_task(
            burst(tester, post_id, shots, acked=lambda n: n >= TERM_AFTER and enough.set())
        )
        waiter = asyncio.create_task(enough.wait())
        done, _ = await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
        assert task not in done, "the burst finished before the SIGTERM: make it bigger"
        replied_at_term = len(fake.responses)
        bot.signal(signal.SIGTERM)
        stopping = time.monotonic()
        code = await bot.wait()
        took = time.monotonic() - stopping
        await task

        acked = [s for s in shots if s.status == 200]
        replied = {r.key for r in fake.responses if r.key.startswith("t-")}
        store = await open_store(f"sqlite:///{bot.db}")
        try:
            stored = {
                s.user for s in shots if await store.post_answer_of(post_id, s.user) is not None
            }
        finally:
            await store.close()
        print(
            f"\nSIGTERM after {TERM_AFTER} acks ({replied_at_term} "
            f"replies so far): exit {code} in {took:.1f}s; {len(shots)} clicks sent, "
            f"{len(acked)} acked, {sum(s.status is None for s in shots)} refused, "
            f"{len(replied)} replied, {len(stored)} stored"
        )
        assert code == 0, bot.stderr[-3000:]
        missing_reply = [s.key for s in acked if s.key not in replied]
        missing_answer = [s.user for s in acked if s.user not in stored]
        assert not missing_reply, f"{len(missing_reply)} acked clicks got no reply"
        assert not missing_answer, f"{len(missing_answer)} acked clicks were not stored"
        assert replied <= {s.key for s in acked}  # nothing answered that was not acked
        assert bot.events("stopping") and bot.events("stopped")

        clicks = bot.events("click")
        assert len(clicks) == len(acked), (len(clicks), len(acked))
        assert {c["user"] for c in clicks} == {s.user for s in acked}
        assert_no_secrets(bot.stderr)
        assert "[redacted]" in bot.stderr  # DEBUG lines carried the token, redacted
    finally:
        await session.close()
        await bot.stop()
        await fake.stop()
