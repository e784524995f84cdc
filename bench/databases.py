"""Where the benchmarks keep data: a SQLite file in a temp folder, or a PostgreSQL schema of
their own (`bench_<pid>_<tag>`) on the test database, dropped afterwards."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.storage.url import database_url

POSTGRES_URL = os.environ.get(
    "QUIZBOT_BENCH_POSTGRES_URL",
    os.environ.get("QUIZBOT_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"),
)
KINDS = ("sqlite", "postgresql")


@dataclass(frozen=True)
class Place:
    kind: str
    url: str
    """A URL `open_store` takes (sqlite+aiosqlite:///... or postgresql+asyncpg://...)."""
    schema: str | None = None
    path: Path | None = None
    """The SQLite file."""

    @property
    def dsn(self) -> str:
        """The PostgreSQL URL for asyncpg itself."""
        return self.url.replace("postgresql+asyncpg://", "postgresql://")


def pg_url() -> str:
    return database_url(POSTGRES_URL, Path.cwd())


async def postgres_version() -> str | None:
    engine = create_async_engine(pg_url(), connect_args={"timeout": 5})
    try:
        async with engine.connect() as conn:
            return str((await conn.execute(text("SHOW server_version"))).scalar_one())
    except Exception:
        return None
    finally:
        await engine.dispose()


@asynccontextmanager
async def place(kind: str, tag: str) -> AsyncIterator[Place]:
    """A fresh, empty place for one benchmark; gone afterwards."""
    if kind == "sqlite":
        folder = Path(tempfile.mkdtemp(prefix=f"quizbench-{tag}-"))
        try:
            path = folder / "bench.db"
            yield Place("sqlite", f"sqlite+aiosqlite:///{path}", path=path)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    schema = f"bench_{os.getpid()}_{tag}"
    admin = create_async_engine(pg_url(), connect_args={"timeout": 5})
    try:
        async with admin.begin() as conn:
            await conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
            await conn.execute(text(f"CREATE SCHEMA {schema}"))
        try:
            yield Place("postgresql", pg_url(), schema=schema)
        finally:
            async with admin.begin() as conn:
                await conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    finally:
        await admin.dispose()
