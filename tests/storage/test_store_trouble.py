"""SQLite trouble other than a lock, and a lock held too long (issue 32, findings 8, 9, 15):
a full disk or a read-only file is "try again" for a click, said in the log once a minute
at most, never "something went wrong" with a traceback per click, and never retried once
per click of a batch; a read-only database is refused at start in one line and fails
`/healthz`; a click's wait for another process's lock ends before its deadline; the store
recovers by itself when the trouble ends.

The faults are real SQLite errors on the store's own connections (tests/storage/faults.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from bot.bootstrap import capabilities
from bot.domain.actor import Actor
from bot.domain.clock import SystemClock
from bot.domain.records import AnswerStatus, PostAnswer, PostAnswerOutcome
from bot.service.ports import StoreUnavailable
from bot.service.services import Capabilities
from bot.storage import SqlStore, open_store
from bot.storage.trouble import TroubleLog
from tests import factories
from tests.storage.faults import (
    full,
    hold_write_lock,
    read_only,
    read_only_url,
    twin,
    writable_again,
)

CLICKS = 64


def user(name: str) -> Actor:
    return Actor("slack:T1", name)


def events(records: Sequence[logging.LogRecord], name: str) -> list[logging.LogRecord]:
    return [r for r in records if getattr(r, "event", None) == name]


async def sqlite_quiz(path: Path) -> tuple[SqlStore, Capabilities]:
    store = await open_store(f"sqlite:///{path}")
    return store, capabilities(store=store, decks=factories.library(), clock=SystemClock())


async def test_a_full_disk_is_try_again_for_every_click_said_once_and_not_retried_per_click(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store, quiz = await sqlite_quiz(tmp_path / "full.db")
    begins: list[str] = []

    def count_begins(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("BEGIN"):
            begins.append(statement)

    try:
        view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
        event.listen(twin(store), "before_cursor_execute", count_begins)
        caplog.set_level(logging.INFO, logger="quizbot")
        with full(store):
            outcomes = await asyncio.gather(
                *(quiz.answering.answer(user(f"u{i}"), view.post.id, i % 3) for i in range(CLICKS)),
                return_exceptions=True,
            )
        event.remove(twin(store), "before_cursor_execute", count_begins)
        refused = [i for i, o in enumerate(outcomes) if isinstance(o, StoreUnavailable)]
        bugs = [o for o in outcomes if isinstance(o, Exception) and type(o) is not StoreUnavailable]
        print(
            f"\nfull: {CLICKS} clicks, {len(refused)} told to try again, "
            f"{CLICKS - len(refused)} stored, {len(begins)} transactions begun"
        )
        assert bugs == []  # never "something went wrong"
        assert len(refused) >= CLICKS // 2  # the disk really was full for them
        assert len(begins) <= 4  # the batch failed once, not once per click again
        for i, outcome in enumerate(outcomes):
            stored = await store.post_answer_of(view.post.id, f"u{i}")
            assert (stored is None) == (i in refused), (i, outcome)

        said = events(caplog.records, "store_trouble")
        assert len(said) == 1 and "full" in said[0].getMessage(), said
        assert not [r for r in caplog.records if r.exc_info], "no traceback per click"

        again = await asyncio.gather(  # the disk freed: the same people click again
            *(quiz.answering.answer(user(f"u{i}"), view.post.id, i % 3) for i in refused)
        )
        assert all(r.status is AnswerStatus.NEW for r in again)
        assert await store.answer_count(view.post.id) == CLICKS
        assert len(events(caplog.records, "store_recovered")) == 1
    finally:
        await store.close()


async def test_a_read_only_database_while_running_is_try_again_and_healthz_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "ro.db"
    store, quiz = await sqlite_quiz(path)
    try:
        view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
        await store.writable()
        caplog.set_level(logging.INFO, logger="quizbot")
        with read_only(store, path) as route:
            outcomes = await asyncio.gather(
                *(quiz.answering.answer(user(f"u{i}"), view.post.id, 0) for i in range(10)),
                return_exceptions=True,
            )
            assert all(type(o) is StoreUnavailable for o in outcomes), outcomes
            with pytest.raises(StoreUnavailable):
                await store.writable()  # what /healthz asks
            assert await store.answer_count(view.post.id) == 0  # reads still work
        print(f"\nread-only ({route}): 10 clicks told to try again, /healthz failing")
        said = events(caplog.records, "store_trouble")
        assert len(said) == 1 and "read-only" in said[0].getMessage(), said
        assert not [r for r in caplog.records if r.exc_info]

        await store.writable()  # writable again, and the store sees it without a restart
        again = await quiz.answering.answer(user("u0"), view.post.id, 0)
        assert again.status is AnswerStatus.NEW
    finally:
        await store.close()


async def test_a_read_only_database_is_refused_at_start_in_one_line(tmp_path: Path) -> None:
    from bot.config import SetupError

    path = tmp_path / "ro.db"
    store = await open_store(f"sqlite:///{path}")  # up to date: nothing left to migrate
    await store.close()
    url = read_only_url(path)
    try:
        with pytest.raises(SetupError) as refused:
            await open_store(url)
    finally:
        writable_again(path)
    said = str(refused.value)
    print(f"\n{url}: {said}")
    assert "\n" not in said
    assert "read-only" in said and str(path) in said
    store = await open_store(f"sqlite:///{path}")  # writable again: it starts
    await store.close()


async def test_a_click_waits_for_another_processs_lock_no_longer_than_its_deadline(
    tmp_path: Path,
) -> None:
    """The lock is released 1.5 s in, well within SQLite's 5 s busy wait; the click had
    half a second left. It is refused, and not stored later behind its clicker's back."""
    path = tmp_path / "locked.db"
    store, quiz = await sqlite_quiz(path)
    try:
        view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
        holder = hold_write_lock(path, 1.5)
        try:
            with pytest.raises(StoreUnavailable):
                await quiz.answering.answer(
                    user("late"), view.post.id, 0, deadline=time.monotonic() + 0.5
                )
        finally:
            holder.wait(timeout=30)
        assert await store.post_answer_of(view.post.id, "late") is None
        waited = await quiz.answering.answer(
            user("late"), view.post.id, 0, deadline=time.monotonic() + 2
        )
        assert waited.status is AnswerStatus.NEW
    finally:
        await store.close()


async def test_a_click_whose_transaction_gave_up_at_an_earlier_deadline_waits_on(
    tmp_path: Path,
) -> None:
    """Three clicks behind another process's lock, held 1.5 s: the first and the second
    have half a second or less, the third four. The second and third share a transaction,
    which gives up at the second's deadline; the third waits on, up to its own, and is
    stored once the lock is released."""
    path = tmp_path / "locked.db"
    store, quiz = await sqlite_quiz(path)
    try:
        view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
        at = datetime.now(UTC)

        def click(name: str, seconds: float) -> asyncio.Task[Any]:
            answer = PostAnswer(view.post, name, 0, True, 1, at)
            deadline = time.monotonic() + seconds
            return asyncio.create_task(store.answer_post(answer, deadline=deadline))

        holder = hold_write_lock(path, 1.5)
        try:
            first = click("first", 0.3)  # takes the writer, and waits for the lock
            await asyncio.sleep(0)
            second, third = click("second", 0.5), click("third", 4.0)  # one transaction
            outcomes = await asyncio.gather(first, second, third, return_exceptions=True)
        finally:
            holder.wait(timeout=30)
        assert all(isinstance(o, StoreUnavailable) for o in outcomes[:2]), outcomes
        assert isinstance(outcomes[2], PostAnswerOutcome), outcomes[2]
        stored = {
            u
            for u in ("first", "second", "third")
            if await store.post_answer_of(view.post.id, u) is not None
        }
        assert stored == {"third"}
    finally:
        await store.close()


def test_the_trouble_log_says_a_kind_once_a_minute_with_what_it_left_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    trouble = TroubleLog(clock=lambda: now[0])
    caplog.set_level(logging.INFO, logger="quizbot.storage")
    full_disk = OSError("database or disk is full")
    for _ in range(100):
        trouble.refused("full", full_disk)
        now[0] += 0.5  # a refusal every half second: 50 s in all
    trouble.refused("locked", OSError("database is locked"))  # another kind: said at once
    now[0] += 11
    trouble.refused("full", full_disk)  # a minute after the first line
    trouble.cleared()
    trouble.cleared()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 4, lines
    assert "(full)" in lines[0] and "more like it" not in lines[0]
    assert "(locked)" in lines[1]
    assert "99 more like it since the last line" in lines[2]
    assert "writes commit again; 102 refusals" in lines[3]
