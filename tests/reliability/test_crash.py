"""An ack is a promise, on every transport: Slack over HTTP and over Socket Mode, Discord.

SIGKILL in the middle of 500 clicks sent over 5 s: after a restart, every click that was
acknowledged before the kill is stored, exactly once, with its choice; everyone clicks again
and is counted once, the first stored answer standing; the channel's "N answered" comes to
the number of answers stored. SIGTERM in the middle of such a burst: every acknowledged click
gets its private reply and is stored before the process exits, and nothing else is stored.

The bot is the real `quizbot run` in a subprocess on a SQLite file; the platform is its
local fake in this process (tests/reliability/platforms.py).
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.reliability.conftest import LETTERS, answers_by_user, assert_no_secrets, eventually
from tests.reliability.platforms import TRANSPORTS, Click, Paced, Transport

CLICKS = 500
SECONDS = 5.0
STOP_AFTER = 2.5
RIGHT, WRONG, ALREADY = "Right!", "Not quite.", "You already answered"


@pytest.fixture(params=list(TRANSPORTS))
async def transport(
    request: pytest.FixtureRequest, tmp_path: Path, decks: Path
) -> AsyncIterator[Transport]:
    made = TRANSPORTS[request.param](tmp_path, decks)
    await made.open()
    try:
        yield made
    finally:
        if made.bot is not None:
            await made.bot.stop()
        await made.close()


async def burst_until(transport: Transport, sig: signal.Signals, shots: list[Click]) -> float:
    """Sends `shots` at CLICKS / SECONDS a second and signals the bot STOP_AFTER seconds in;
    waits for it to exit. The seconds it took to exit."""
    assert transport.bot is not None
    paced = Paced(transport, shots, CLICKS / SECONDS)
    sending = asyncio.create_task(paced.run())
    await asyncio.sleep(STOP_AFTER)
    transport.bot.signal(sig)
    signalled = time.monotonic()
    code = await transport.bot.wait()
    took = time.monotonic() - signalled
    paced.stop.set()
    await sending
    await asyncio.sleep(0.2)  # what was in flight on the wire has landed
    settle = getattr(transport, "settle_acks", None)
    if settle is not None:
        settle(shots)
    expected = -signal.SIGKILL if sig is signal.SIGKILL else 0
    assert code == expected, transport.bot.stderr[-3000:]
    return took


def verdict(text: str | None) -> str:
    assert text is not None
    if ALREADY in text:
        return "duplicate " + text.split(ALREADY + " ", 1)[1][0]
    if RIGHT in text:
        return "right"
    assert WRONG in text, text
    return "wrong"


def expected(shown: int) -> str:
    return "right" if shown == 0 else "wrong"  # the deck is not shuffled: A is right


async def test_sigkill_mid_burst_loses_no_acknowledged_click(
    transport: Transport, tmp_path: Path
) -> None:
    db = tmp_path / "quiz.db"
    await transport.start(db)
    post_id = await transport.post()
    shots = [Click(f"U{i:04d}", i % 3, f"r1-{i}") for i in range(CLICKS)]
    await burst_until(transport, signal.SIGKILL, shots)

    sent = [s for s in shots if s.sent_at]
    acked = [s for s in shots if s.acked]
    rows = answers_by_user(db, post_id)
    replied = [s for s in shots if transport.reply(s) is not None]
    print(
        f"\n{transport.name} SIGKILL {STOP_AFTER}s into {CLICKS} clicks over {SECONDS:.0f}s: "
        f"{len(sent)} sent, {len(acked)} acked, {len(replied)} replied, "
        f"{sum(len(c) for c in rows.values())} stored"
    )
    assert acked and len(sent) < CLICKS, "the kill must land in the middle of the burst"
    for shot in acked:  # every acknowledged click is stored, once, as clicked
        assert rows.get(transport.stored_as(shot)) == [shot.shown], shot
    assert all(len(choices) == 1 for choices in rows.values())
    assert set(rows) <= {transport.stored_as(s) for s in sent}

    await transport.start(db)
    retries = [Click(s.user, (s.shown + 1) % 3, f"r2-{i}") for i, s in enumerate(shots)]
    await Paced(transport, retries, CLICKS / SECONDS).run()
    settle = getattr(transport, "settle_acks", None)
    await eventually(lambda: all(transport.reply(r) is not None for r in retries), 60)
    if settle is not None:
        settle(retries)
    rows = answers_by_user(db, post_id)
    stored = sum(len(c) for c in rows.values())
    print(f"after a restart every user clicked again: {stored} answers for {len(rows)} users")
    assert sorted(rows) == sorted(transport.stored_as(s) for s in shots)
    assert all(len(choices) == 1 for choices in rows.values()), "a user counted twice"
    first = {s.user: s for s in shots}
    for retry in retries:
        (standing,) = rows[transport.stored_as(retry)]
        said = verdict(transport.reply(retry))
        if standing == retry.shown:  # the first click was never stored: the retry counts
            assert not first[retry.user].acked, retry
            assert said == expected(retry.shown), retry
        else:
            assert standing == first[retry.user].shown, retry
            assert said == f"duplicate {LETTERS[standing]}", retry
    await eventually(lambda: transport.shown_count() == stored, 30)
    assert transport.bot is not None
    assert_no_secrets(transport.bot.stderr)


async def test_sigterm_mid_burst_answers_every_acknowledged_click(
    transport: Transport, tmp_path: Path
) -> None:
    db = tmp_path / "quiz.db"
    await transport.start(db)
    post_id = await transport.post()
    shots = [Click(f"U{i:04d}", i % 3, f"t-{i}") for i in range(CLICKS)]
    took = await burst_until(transport, signal.SIGTERM, shots)

    acked = [s for s in shots if s.acked]
    rows = answers_by_user(db, post_id)
    replied = [s for s in shots if transport.reply(s) is not None]
    print(
        f"\n{transport.name} SIGTERM {STOP_AFTER}s into {CLICKS} clicks over {SECONDS:.0f}s: "
        f"exit 0 in {took:.1f}s; {sum(1 for s in shots if s.sent_at)} sent, "
        f"{len(acked)} acked, {len(replied)} replied, {sum(len(c) for c in rows.values())} stored"
    )
    assert acked
    for shot in acked:
        assert verdict(transport.reply(shot)) == expected(shot.shown), shot
        assert rows.get(transport.stored_as(shot)) == [shot.shown], shot
    stored_as = {transport.stored_as(s) for s in acked}
    assert set(rows) == stored_as, "only what was acknowledged is stored"
    assert transport.bot is not None
    assert transport.bot.events("stopping") and transport.bot.events("stopped")
    assert len(transport.bot.events("click")) == len(acked)
    assert_no_secrets(transport.bot.stderr)
