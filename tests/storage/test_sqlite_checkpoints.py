"""SQLite's write-ahead log is checkpointed by the store in a thread of its own, soon after
writes, instead of by the commit that happens to fill the log (which held every click of a
burst queued behind it)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.domain.records import NewPost
from bot.storage import open_store, transactions
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
    monkeypatch.setattr(transactions, "CHECKPOINT_EVERY", 0.2)
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
