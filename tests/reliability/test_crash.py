"""SIGKILL in the middle of 500 clicks: nothing a user was told is lost, and after a restart
the users who click again are counted once, with the first answer standing.

The bot is the real `quizbot run` in a subprocess (HTTP mode, a SQLite file); Slack is the
fake in this process.
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import aiohttp

from bot.storage import open_store
from tests.reliability.conftest import (
    DECK,
    LETTERS,
    QUESTION,
    RIGHT,
    WRONG,
    BotProcess,
    FaultySlack,
    Shot,
    answers_by_user,
    assert_no_secrets,
    burst,
    eventually,
    post_id_of,
    reply_text,
)
from tests.slack.harness import SlackTester

USERS = 500
LANES = 100  # users clicking at the same time
KILL_AFTER = 150  # replies before the SIGKILL: it lands while clicks are being handled


def first_choice(i: int) -> int:
    return i % 3


def second_choice(i: int) -> int:
    """The retry clicks another button: only the first answer may stand."""
    return (i + 1) % 3


def verdict(body: dict[str, object]) -> str:
    """ "right", "wrong" or "duplicate <letter>" from a reply to an answer click."""
    text = reply_text(body)  # type: ignore[arg-type]
    if "You already answered" in text:
        letter = text.split("You already answered ", 1)[1][0]
        return f"duplicate {letter}"
    if RIGHT in text:
        return "right"
    if WRONG in text:
        return "wrong"
    raise AssertionError(text)


def expected(shown: int) -> str:
    return "right" if shown == 0 else "wrong"  # the deck is not shuffled: A is right


async def test_sigkill_mid_burst_then_restart_and_retry(tmp_path: Path, decks: Path) -> None:
    fake = FaultySlack()
    await fake.start()
    first = BotProcess(tmp_path / "first", fake.api_url, decks)
    second: BotProcess | None = None
    connector = aiohttp.TCPConnector(limit=LANES)
    session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60))
    try:
        started = time.monotonic()
        await first.start()
        print(f"\nthe bot started in {time.monotonic() - started:.1f}s")
        tester = SlackTester(first.events_url, fake, session)
        posted = await tester.command(f"post {DECK} {QUESTION}")
        assert posted.status == 200
        await eventually(lambda: bool(fake.successful("chat.postMessage")))
        post_id = post_id_of(fake.successful("chat.postMessage")[-1].params)

        # Round 1: 500 users click, 100 at a time, each waiting for the reply to the click
        # before the next user clicks; the bot is killed once 150 of them got their reply.
        shots = [Shot(f"U{i:04d}", first_choice(i), f"r1-{i}") for i in range(USERS)]
        started = time.monotonic()
        gone = asyncio.Event()
        task = asyncio.create_task(burst(tester, post_id, shots, concurrency=LANES, patient=gone))
        await fake.until(lambda: len(fake.responses) >= KILL_AFTER, seconds=120)
        first.signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
        gone.set()
        await task

        acked = [s for s in shots if s.status == 200]
        replied = {r.key: r.body for r in fake.responses if r.key.startswith("r1-")}
        store = await open_store(f"sqlite:///{first.db}")  # opens cleanly after the kill
        try:
            stored_choice = {s.user: await store.post_answer_of(post_id, s.user) for s in shots}
        finally:
            await store.close()
        stored = {u: c for u, c in stored_choice.items() if c is not None}
        print(
            f"round 1: {sum(s.sent for s in shots)} of {len(shots)} clicks sent, "
            f"{len(acked)} acked, "
            f"{len(replied)} replied, {len(stored)} stored; SIGKILL after {KILL_AFTER} replies, "
            f"{time.monotonic() - started:.1f}s into the burst"
        )
        assert len(replied) >= KILL_AFTER and len(stored) < USERS
        assert any(not s.sent for s in shots)  # some users had not clicked yet
        for shot in shots:
            if shot.key in replied:  # the user was told: the answer must be there
                assert stored.get(shot.user) == shot.shown, shot
                assert verdict(replied[shot.key]) == expected(shot.shown), shot
        assert set(stored) <= {s.user for s in shots if s.sent}

        # Round 2: a restart, and every user clicks again (another button).
        second = BotProcess(tmp_path / "again", fake.api_url, decks, db=first.db)
        started = time.monotonic()
        await second.start()
        print(f"restarted in {time.monotonic() - started:.1f}s")
        started = time.monotonic()
        tester2 = SlackTester(second.events_url, fake, session)
        retries = [Shot(f"U{i:04d}", second_choice(i), f"r2-{i}") for i in range(USERS)]
        await burst(tester2, post_id, retries)
        acked2 = [s for s in retries if s.status == 200]
        assert len(acked2) == USERS, [s for s in retries if s.status != 200][:5]
        await fake.until(
            lambda: sum(r.key.startswith("r2-") for r in fake.responses) >= USERS, seconds=120
        )
        replied2 = {r.key: r.body for r in fake.responses if r.key.startswith("r2-")}

        rows = answers_by_user(first.db, post_id)
        print(
            f"round 2 after restart ({time.monotonic() - started:.1f}s): "
            f"{len(retries)} clicks sent, {len(acked2)} acked, "
            f"{len(replied2)} replied, {sum(len(c) for c in rows.values())} answers stored "
            f"for {len(rows)} users"
        )
        assert sorted(rows) == sorted(s.user for s in shots)
        assert all(len(choices) == 1 for choices in rows.values()), "a user counted twice"
        for i, (shot, retry) in enumerate(zip(shots, retries, strict=True)):
            (standing,) = rows[shot.user]
            if shot.user in stored:  # round 1 stood: the retry is a duplicate of it
                assert standing == shot.shown, shot
                assert verdict(replied2[retry.key]) == f"duplicate {LETTERS[shot.shown]}", i
            else:
                assert standing == retry.shown, retry
                assert verdict(replied2[retry.key]) == expected(retry.shown), i

        for process in (first, second):
            assert process.lines, "the bot logged nothing"
            assert_no_secrets(process.stderr)
    finally:
        await session.close()
        await first.stop()
        if second is not None:
            await second.stop()
        await fake.stop()
