"""Store errors and files: PostgreSQL trouble read by SQLSTATE (a real deadlock and a real
server-side disconnect on the local PostgreSQL become StoreUnavailable, "try again", not
"something went wrong"), and a new SQLite file that only its owner can read."""

from __future__ import annotations

import asyncio
import stat
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.service.ports import StoreUnavailable
from bot.storage import open_store
from bot.storage.engine import store_engine
from bot.storage.transactions import RolledBack, Transactions
from tests.databases import POSTGRES_URL


@dataclass
class Pg:
    engine: AsyncEngine
    table: str


@pytest.fixture
async def pg() -> AsyncIterator[Pg]:
    engine = store_engine(POSTGRES_URL)
    table = f"deadlock_{uuid.uuid4().hex[:8]}"
    async with engine.begin() as conn:
        await conn.execute(text(f"CREATE TABLE {table} (id int PRIMARY KEY, n int)"))
        await conn.execute(text(f"INSERT INTO {table} VALUES (1, 0), (2, 0)"))
    yield Pg(engine, table)
    async with engine.begin() as conn:
        await conn.execute(text(f"DROP TABLE {table}"))
    await engine.dispose()


async def test_a_real_deadlock_is_try_again(pg: Pg) -> None:
    table = pg.table
    both_hold_one = asyncio.Barrier(2)

    async def cross(first: int, second: int) -> None:
        async with pg.engine.begin() as conn:
            await conn.execute(text(f"UPDATE {table} SET n = n + 1 WHERE id = {first}"))
            await both_hold_one.wait()
            await conn.execute(text(f"UPDATE {table} SET n = n + 1 WHERE id = {second}"))

    results = await asyncio.gather(cross(1, 2), cross(2, 1), return_exceptions=True)
    failed = [r for r in results if isinstance(r, BaseException)]
    assert len(failed) == 1, results  # PostgreSQL broke the cycle by aborting one
    assert isinstance(failed[0], StoreUnavailable), repr(failed[0])
    assert isinstance(failed[0], RolledBack)  # safe to run again


async def test_a_store_write_caught_in_a_real_deadlock_is_run_again(pg: Pg) -> None:
    """Two writes that lock the same rows in opposite orders: PostgreSQL aborts one, and
    the store runs it once more instead of telling the person to try again; both land."""
    table = pg.table
    tx = Transactions(pg.engine)
    runs: list[int] = []

    def cross(first: int, second: int) -> Callable[[Connection], int]:
        def work(conn: Connection) -> int:
            runs.append(first)
            conn.execute(text(f"UPDATE {table} SET n = n + 1 WHERE id = {first}"))
            conn.execute(text("SELECT pg_sleep(0.3)"))
            conn.execute(text(f"UPDATE {table} SET n = n + 1 WHERE id = {second}"))
            return first

        return work

    try:  # keys 0 and 1: two lanes whatever the hash seed (a str key's lane is random)
        done = await asyncio.gather(tx.write(cross(1, 2), key=0), tx.write(cross(2, 1), key=1))
    finally:
        await tx.close()
    assert sorted(done) == [1, 2]  # neither was told to try again
    assert len(runs) == 3  # one of them ran twice: the deadlock really happened
    async with pg.engine.connect() as conn:
        rows = (await conn.execute(text(f"SELECT id, n FROM {table} ORDER BY id"))).all()
    assert [tuple(r) for r in rows] == [(1, 2), (2, 2)]


async def test_a_write_rolled_back_twice_is_try_again(pg: Pg) -> None:
    tx = Transactions(pg.engine)

    def always(conn: Connection) -> None:
        raise RolledBack()

    try:
        with pytest.raises(StoreUnavailable):
            await tx.write(always)
    finally:
        await tx.close()


async def test_a_connection_the_server_terminates_is_try_again(pg: Pg) -> None:
    async with pg.engine.connect() as victim:
        pid = (await victim.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        async with pg.engine.connect() as admin:
            await admin.execute(text(f"SELECT pg_terminate_backend({pid})"))
            await admin.commit()
        with pytest.raises(StoreUnavailable):
            await victim.execute(text("SELECT 1"))


def test_sqlstates_are_classified() -> None:
    from bot.storage.engine import transient_sqlstate

    for state in ("40P01", "40001", "57P01", "57P02", "57P03", "08006", "08001", "53300"):
        assert transient_sqlstate(state), state
    for state in ("23505", "42P01", "22P02", None, ""):
        assert not transient_sqlstate(state), state


async def test_a_new_sqlite_file_and_its_wal_are_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "quizbot.db"
    store = await open_store(f"sqlite:///{path}")
    try:
        await store.set_meta("k", "v")  # a write: the WAL exists now
        for name in ("quizbot.db", "quizbot.db-wal", "quizbot.db-shm"):
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name
    finally:
        await store.close()
