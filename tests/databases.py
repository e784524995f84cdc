"""Fixtures for one storage contract on two databases and in memory: a test taking `db` or
`store` runs on both databases, one taking `any_store` on them and on `MemoryStore` too.
Import them into a conftest.py (as tests/contract/storage/conftest.py does) to use them elsewhere.

SQLite gets a fresh file per test (never :memory:, whose single shared connection would hide
concurrency bugs). PostgreSQL gets a fresh schema per test on QUIZBOT_TEST_POSTGRES_URL
(default: the local `test` database), dropped afterwards. An unreachable PostgreSQL fails
the tests instead of skipping them: a green run must mean both databases were checked.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.schema import CreateSchema, DropSchema

from bot.service.ports import QuizStore
from bot.storage import SqlStore, database_url, open_store
from bot.storage.memory import MemoryStore

SQL = ["sqlite", "postgresql"]
POSTGRES_URL = os.environ.get(
    "QUIZBOT_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


@dataclass
class Database:
    """A database for one test; `open` gives stores on it (closed when the test ends)."""

    kind: str
    url: str
    schema: str | None = None
    stores: list[SqlStore] = field(default_factory=list)

    async def open(self) -> SqlStore:
        store = await open_store(self.url, schema=self.schema)
        self.stores.append(store)
        return store


@asynccontextmanager
async def database(kind: str, tmp_path: Path) -> AsyncIterator[Database]:
    """A fresh SQL database of `kind` ("sqlite" or "postgresql"), its stores closed (and a
    PostgreSQL schema dropped) at the end."""
    if kind == "sqlite":
        database = Database("sqlite", f"sqlite:///{tmp_path / 'quizbot.db'}")
        try:
            yield database
        finally:
            for store in database.stores:
                await store.close()
        return
    url = database_url(POSTGRES_URL, Path.cwd())
    admin = create_async_engine(url, connect_args={"timeout": 5})
    schema = f"t_{uuid.uuid4().hex}"
    try:
        async with admin.begin() as conn:
            await conn.execute(CreateSchema(schema))
        database = Database("postgresql", url, schema)
        try:
            yield database
        finally:
            for store in database.stores:
                await store.close()
            async with admin.begin() as conn:
                await conn.execute(DropSchema(schema, cascade=True))
    finally:
        await admin.dispose()


@pytest.fixture(params=SQL)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    async with database(request.param, tmp_path) as opened:
        yield opened


@pytest.fixture
async def store(db: Database) -> SqlStore:
    """A SQL store, on each database."""
    return await db.open()


@pytest.fixture(params=[*SQL, "memory"])
async def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[QuizStore]:
    """Every `QuizStore`: the SQL one on each database, and `MemoryStore`."""
    if request.param == "memory":
        memory = MemoryStore()
        yield memory
        await memory.close()
        return
    async with database(request.param, tmp_path) as opened:
        yield await opened.open()


@pytest.fixture
async def pg_schema() -> AsyncIterator[str]:
    """A fresh schema on the test PostgreSQL, for tests of PostgreSQL alone."""
    admin = create_async_engine(database_url(POSTGRES_URL, Path.cwd()))
    schema = f"t_{uuid.uuid4().hex}"
    async with admin.begin() as conn:
        await conn.execute(CreateSchema(schema))
    try:
        yield schema
    finally:
        async with admin.begin() as conn:
            await conn.execute(DropSchema(schema, cascade=True))
        await admin.dispose()
