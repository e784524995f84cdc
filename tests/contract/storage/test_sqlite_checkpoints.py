"""SQLite's write-ahead log is checkpointed by the store in a thread of its own, soon after
writes, instead of by the commit that happens to fill the log (which held every click of a
burst queued behind it); a checkpoint that fails is said once and tried again by itself."""

from __future__ import annotations

import asyncio
import logging
import shutil
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from bot.domain.records import NewPost
from bot.service.ports import StoreUnavailable
from bot.storage import checkpoints, open_store
from tests.contract.storage.faults import read_only, twin
from tests.factories import click

AT = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def _answers_in_the_file_itself(path: Path, copy: Path) -> int:
    """Answers the database file holds without its log: what was checkpointed (0 while the
    file has no tables yet or was copied in the middle of a checkpoint)."""
    shutil.copyfile(path, copy)
    try:
        with sqlite3.connect(copy) as conn:
            return int(conn.execute("SELECT count(*) FROM answers").fetchone()[0])
    except sqlite3.DatabaseError:
        return 0


async def test_answers_reach_the_database_file_soon_after_a_burst(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "CHECKPOINT_EVERY", 0.2)
    path = tmp_path / "quizbot.db"
    store = await open_store(f"sqlite:///{path}")
    try:
        post = await store.create_post(
            NewPost("slack:T1", "C1", "demo", "q1", (0, 1, 2), "en", "U0", 1, AT)
        )
        outcomes = await asyncio.gather(
            *(click(store, post, f"U{i}", i % 3, i % 3 == 0, AT) for i in range(40))
        )
        assert len(outcomes) == 40
        copy = tmp_path / "without-log.db"
        deadline = time.monotonic() + 10
        while True:  # a second or so: the checkpoint follows the writes
            found = _answers_in_the_file_itself(path, copy)
            if found == 40 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        assert found == 40
    finally:
        await store.close()


def _meta_in_the_file_itself(path: Path, copy: Path) -> set[str]:
    shutil.copyfile(path, copy)
    try:
        with sqlite3.connect(copy) as conn:
            return {key for (key,) in conn.execute("SELECT key FROM meta")}
    except sqlite3.DatabaseError:
        return set()


async def test_a_failing_checkpoint_is_said_once_and_tried_again_without_new_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The store's connections read-only (tests/contract/storage/faults.py): each checkpoint fails.
    It is logged once, without a traceback, and tried again on its own; once the file is
    writable again the log reaches the file with no new write to prompt it."""
    monkeypatch.setattr(checkpoints, "CHECKPOINT_EVERY", 0.05)
    path = tmp_path / "quizbot.db"
    store = await open_store(f"sqlite:///{path}")
    other = sqlite3.connect(path, isolation_level=None)  # another writer, whose rows wait
    other.execute("PRAGMA wal_autocheckpoint=0")  # in the log for the store to checkpoint
    tries: list[str] = []

    def traced(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.set_trace_callback(
            lambda sql: tries.append(sql) if "wal_checkpoint" in sql else None
        )

    engine = twin(store)
    event.listen(engine, "connect", traced)
    caplog.set_level(logging.INFO, logger="quizbot")
    try:
        with read_only(store, path):
            other.executemany("INSERT INTO meta VALUES (?, 'v')", [(f"k{i}",) for i in range(9)])
            with pytest.raises(StoreUnavailable):
                await store.set_meta("refused", "v")  # a write, so a checkpoint follows
            deadline = time.monotonic() + 20
            while True:
                if len(tries) >= 4 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.05)
            assert len(tries) >= 4, tries  # tried again, with no write since
        failed = [r for r in caplog.records if getattr(r, "event", None) == "checkpoint_failed"]
        assert len(failed) == 1, [r.getMessage() for r in failed]
        assert not [r for r in caplog.records if r.exc_info]

        wanted = {f"k{i}" for i in range(9)}
        copy = tmp_path / "without-log.db"
        deadline = time.monotonic() + 20
        while True:
            found = _meta_in_the_file_itself(path, copy)
            if wanted <= found or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        assert wanted <= found, found
        recovered = [
            r for r in caplog.records if getattr(r, "event", None) == "checkpoint_recovered"
        ]
        assert len(recovered) == 1
    finally:
        event.remove(engine, "connect", traced)
        other.close()
        await store.close()
