"""Database trouble seen from Slack: a click is still acknowledged, its user is told politely
to click again, nothing is stored for it, and the bot recovers by itself (no restart).

PostgreSQL sits behind the cuttable TCP proxy of tests/contract/storage/test_store_outage.py; SQLite
is locked by another process, as a backup or a second bot would.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bot.storage import open_store
from tests.contract.storage.test_store_outage import hold_lock
from tests.reliability.conftest import (
    RIGHT,
    TRY_AGAIN,
    WRONG,
    LiveFactory,
    Shot,
    proxied_postgres,
    reply_text,
    send_click,
)

BEFORE, DURING = 10, 10


async def test_postgresql_cut_and_back_through_the_slack_endpoint(
    make_live: LiveFactory, pg_schema: str
) -> None:
    proxy, url = await proxied_postgres(pg_schema)
    try:
        live = await make_live(store=await open_store(url, schema=pg_schema))
        post_id = await live.post()
        before = [Shot(f"UOK{i}", 0, f"ok-{i}") for i in range(BEFORE)]
        await asyncio.gather(*(send_click(live.tester, post_id, s) for s in before))
        for shot in before:
            assert RIGHT in reply_text(await live.reply(shot.key))

        await proxy.cut()
        during = [Shot(f"UCUT{i}", i % 2, f"cut-{i}") for i in range(DURING)]
        await asyncio.gather(*(send_click(live.tester, post_id, s) for s in during))
        bodies = [await live.reply(s.key) for s in during]
        told = [reply_text(b) for b in bodies]
        print(
            f"\nPostgreSQL cut: {len(during)} clicks sent, "
            f"{sum(s.status == 200 for s in during)} acked, "
            f"{sum(TRY_AGAIN in t for t in told)} told to try again "
            f"(slowest ack {max(s.elapsed for s in during):.2f}s)"
        )
        assert all(s.status == 200 for s in during)
        assert all(TRY_AGAIN in t for t in told), told
        assert all(b["response_type"] == "ephemeral" and not b["replace_original"] for b in bodies)

        await proxy.restore()
        assert await live.app.store.answer_count(post_id) == BEFORE  # nothing from the cut
        again = [Shot(s.user, s.shown, f"again-{i}") for i, s in enumerate(during)]
        for shot in again:  # the same users click again, with nothing restarted
            await send_click(live.tester, post_id, shot)
            text = reply_text(await live.reply(shot.key))
            assert (RIGHT if shot.shown == 0 else WRONG) in text, text
        store = live.app.store
        assert await store.answer_count(post_id) == BEFORE + DURING
        for shot in during:
            assert await store.post_answer_of(post_id, shot.user) == shot.shown
        print(f"restored: {await store.answer_count(post_id)} answers stored, once each")
    finally:
        await proxy.cut()


async def test_sqlite_locked_by_another_process(make_live: LiveFactory, tmp_path: Path) -> None:
    live = await make_live()
    post_id = await live.post()
    db = tmp_path / "live0" / "quiz.db"  # make_live's first bot

    short = hold_lock(db, 1.0)  # released before the click's deadline: the click just waits
    patient = await send_click(live.tester, post_id, Shot("UPATIENT", 0, "patient"))
    assert patient.status == 200
    assert RIGHT in reply_text(await live.reply("patient"))
    short.wait(timeout=30)

    held = hold_lock(db, 7.0)  # held past the click's deadline: a polite reply, nothing stored
    started = time.monotonic()
    unlucky = await send_click(live.tester, post_id, Shot("UUNLUCKY", 1, "unlucky"))
    assert unlucky.status == 200
    told = reply_text(await live.reply("unlucky"))
    waited = time.monotonic() - started
    print(
        f"\nSQLite locked: ack in {unlucky.elapsed:.2f}s, the reply after {waited:.1f}s: "
        f"{told.splitlines()[0]!r}"
    )
    assert TRY_AGAIN in told
    assert held.poll() is None  # told while the lock was still held, not after its release
    assert await live.app.store.post_answer_of(post_id, "UUNLUCKY") is None
    held.wait(timeout=30)

    await send_click(live.tester, post_id, Shot("UUNLUCKY", 1, "unlucky-again"))
    assert WRONG in reply_text(await live.reply("unlucky-again"))
    assert await live.app.store.post_answer_of(post_id, "UUNLUCKY") == 1
    assert await live.app.store.answer_count(post_id) == 2
