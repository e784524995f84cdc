"""Database trouble: clicks during an outage get "try again", nothing half-written, and the
bot recovers by itself when the database is back."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.bootstrap import capabilities
from bot.domain.actor import Actor
from bot.domain.clock import SystemClock
from bot.domain.errors import QuizError
from bot.domain.records import AnswerStatus
from bot.storage import database_url, open_store
from tests import factories
from tests.storage.databases import POSTGRES_URL


class Proxy:
    """A TCP proxy on loopback to PostgreSQL that the test can cut and restore."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.server: asyncio.Server | None = None
        self.port = 0
        self.pipes: set[asyncio.Task[None]] = set()
        self.writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self.writers |= {writer, up_writer}
        for src, dst in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pipe(src, dst))
            self.pipes.add(task)
            task.add_done_callback(self.pipes.discard)

    @staticmethod
    async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        dst.close()

    async def cut(self) -> None:
        """Drops every connection and refuses new ones, like a database restart."""
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()
        for w in self.writers:
            w.transport.abort()
        self.writers.clear()
        for task in list(self.pipes):
            task.cancel()

    async def restore(self) -> None:
        await self.start()  # the same port again


def user(name: str) -> Actor:
    return Actor("slack:T1", name)


async def test_postgresql_cut_mid_burst_then_back(pg_schema: str) -> None:
    from sqlalchemy.engine import make_url

    target = make_url(database_url(POSTGRES_URL, Path.cwd()))
    proxy = Proxy(target.host or "127.0.0.1", target.port or 5432)
    await proxy.start()
    url = target.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    store = await open_store(url, schema=pg_schema)
    quiz = capabilities(store=store, decks=factories.library(), clock=SystemClock())
    try:
        view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
        before = await asyncio.gather(
            *(quiz.answering.answer(user(f"a{i}"), view.post.id, 0) for i in range(20))
        )
        assert all(r.status is AnswerStatus.NEW for r in before)

        await proxy.cut()
        outcomes = await asyncio.gather(
            *(quiz.answering.answer(user(f"b{i}"), view.post.id, 0) for i in range(20)),
            return_exceptions=True,
        )
        polite = [o for o in outcomes if isinstance(o, QuizError) and o.key == "try_again"]
        print(f"\noutage: {len(outcomes)} clicks, {len(polite)} told to try again")
        assert len(polite) == 20, outcomes  # every click in the window, none lost silently

        await proxy.restore()
        after = await asyncio.gather(
            *(quiz.answering.answer(user(f"b{i}"), view.post.id, 0) for i in range(20))
        )
        assert all(r.status is AnswerStatus.NEW for r in after)  # the retries count, once
        assert await store.answer_count(view.post.id) == 40
        print(
            f"recovered without a restart: {await store.answer_count(view.post.id)} answers stored"
        )
    finally:
        await store.close()
        await proxy.cut()


HOLD_LOCK = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
con.execute("COMMIT")
"""


def hold_lock(path: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(path), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


async def test_sqlite_locked_by_another_process(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    store = await open_store(f"sqlite:///{path}")
    quiz = capabilities(store=store, decks=factories.library(), clock=SystemClock())
    try:
        view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")

        short = hold_lock(path, 1.0)  # released within busy_timeout: the click just waits
        started = time.monotonic()
        waited = await quiz.answering.answer(user("patient"), view.post.id, 0)
        assert waited.status is AnswerStatus.NEW
        assert time.monotonic() - started >= 0.5
        short.wait(timeout=10)

        long = hold_lock(path, 8.0)  # held past busy_timeout: a polite error, nothing written
        with pytest.raises(QuizError) as err:
            await quiz.answering.answer(user("unlucky"), view.post.id, 0)
        assert err.value.key == "try_again"
        long.wait(timeout=20)
        assert await store.post_answer_of(view.post.id, "unlucky") is None
        again = await quiz.answering.answer(user("unlucky"), view.post.id, 0)
        assert again.status is AnswerStatus.NEW
    finally:
        await store.close()


async def test_a_cancelled_query_stays_a_cancellation(tmp_path: Path) -> None:
    """Shutdown cancels tasks mid-query; turning that into "try again" would keep them alive."""
    store = await open_store(f"sqlite:///{tmp_path / 'c.db'}")
    quiz = capabilities(store=store, decks=factories.library(), clock=SystemClock())
    try:
        view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
        for delay in (0, 0.001, 0.002, 0.005):

            async def click_forever() -> None:
                while True:
                    # a cancellation turned into a QuizError would be suppressed here and loop
                    with contextlib.suppress(QuizError):
                        await quiz.answering.answer(user("u"), view.post.id, 0)

            task = asyncio.create_task(click_forever())
            await asyncio.sleep(delay)
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=5)
            assert done and task.cancelled(), f"cancellation lost (after {delay}s)"
    finally:
        await store.close()
