"""Fixtures for one storage contract on two databases and in memory: a test taking `db` or
`store` runs on both databases, one taking `any_store` on them and on `MemoryStore` too.
Import them into a conftest.py (as tests/contract/storage/conftest.py does) to use them elsewhere.

SQLite gets a file per test (never :memory:, whose single shared connection would hide
concurrency bugs): a copy of one migrated to head (tests/templates.py), unless the test
made the file itself. PostgreSQL: a test that only opens stores gets this process's schema
migrated to head, emptied after it; one that reads `db.schema` before opening a store (to
build an old schema, say) gets a fresh empty schema of its own, dropped afterwards, as
every test did before. An unreachable PostgreSQL fails the tests instead of skipping them:
a green run must mean both databases were checked.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.schema import CreateSchema, DropSchema

from bot.service.ports import QuizStore
from bot.storage import SqlStore, database_url, open_store
from bot.storage.memory import MemoryStore
from tests.templates import SharedSchema, on_thread, plain, seed_sqlite

SQL = ["sqlite", "postgresql"]
POSTGRES_URL = os.environ.get(
    "QUIZBOT_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


@dataclass
class Database:
    """A database for one test; `open` gives stores on it (closed when the test ends)."""

    kind: str
    url: str
    folder: Path | None = None
    """SQLite: where its file is."""
    stores: list[SqlStore] = field(default_factory=list)
    _schema: str | None = None
    _own_schema: bool = False

    @property
    def schema(self) -> str | None:
        """PostgreSQL: the schema of this test's tables. Read before any `open`, it is a
        fresh empty schema of the test's own (nothing migrated yet)."""
        if self.kind == "postgresql" and self._schema is None:
            self._schema = on_thread(_create_schema(self.url))
            self._own_schema = True
        return self._schema

    async def open(self) -> SqlStore:
        if self.kind == "sqlite" and self.folder is not None:
            seed_sqlite(self.folder / "quizbot.db")
        elif self.kind == "postgresql" and self._schema is None:
            self._schema = SHARED.lend()
        store = await open_store(self.url, schema=self._schema)
        self.stores.append(store)
        return store

    async def close(self) -> None:
        for store in self.stores:
            await store.close()
        if self._schema is None:
            return
        if self._own_schema:
            await _drop_schema(self.url, self._schema)
        else:
            SHARED.give_back()


SHARED = SharedSchema(database_url(POSTGRES_URL, Path.cwd()))
"""This process's migrated PostgreSQL schema (tests/templates.py); tests/conftest.py drops
it when the session ends."""


async def _create_schema(url: str) -> str:
    schema = f"t_{uuid.uuid4().hex}"
    connection = await asyncpg.connect(plain(url), timeout=5)
    try:
        await connection.execute(f"CREATE SCHEMA {schema}")
    finally:
        await connection.close()
    return schema


async def _drop_schema(url: str, schema: str) -> None:
    connection = await asyncpg.connect(plain(url), timeout=5)
    try:
        await connection.execute(f"DROP SCHEMA {schema} CASCADE")
    finally:
        await connection.close()


@asynccontextmanager
async def database(kind: str, tmp_path: Path) -> AsyncIterator[Database]:
    """A SQL database of `kind` ("sqlite" or "postgresql") for one test, its stores closed
    (and a PostgreSQL schema dropped or emptied) at the end."""
    if kind == "sqlite":
        database = Database("sqlite", f"sqlite:///{tmp_path / 'quizbot.db'}", tmp_path)
    else:
        database = Database("postgresql", database_url(POSTGRES_URL, Path.cwd()))
    try:
        yield database
    finally:
        await database.close()


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
