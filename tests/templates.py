"""Databases migrated once per test process, instead of 14 migrations per test.

SQLite: `seed_sqlite(path)` copies a file migrated to head (made on first use) to `path`,
unless a file is already there (a test that builds an old schema keeps it). A store opened
on it finds nothing to migrate.

PostgreSQL: `SharedSchema` is one schema migrated to head per process. A test that only
opens stores on it gets it empty: after each such test its rows are deleted, its sequences
restarted, and its catalog (tables, columns, indexes, constraints, grants, the Alembic
revision) compared with the one it had when migrated; on any difference, or when the clean
up fails, the schema is dropped and the next test gets a newly migrated one. A schema cannot
be copied in PostgreSQL, and CREATE DATABASE ... TEMPLATE costs a second per DROP DATABASE
here, so rows are deleted instead (DELETE, not TRUNCATE: ten times faster on empty tables).

Both run their asyncio on a thread of their own (`on_thread`), so sync code (a property, a
harness helper) can use them, whichever test's event loop is running.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import asyncpg

T = TypeVar("T")

_lock = threading.Lock()


def on_thread(work: Coroutine[Any, Any, T]) -> T:
    """Runs `work` to completion in a fresh event loop on another thread, and returns its
    result; the caller's loop (if any) waits, blocked, as a fixture's setup would."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = asyncio.run(work)
        except BaseException as error:
            box["error"] = error

    thread = threading.Thread(target=run, name="test-database-template")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


_folder: Path | None = None
_sqlite: Path | None = None


def _sqlite_template() -> Path:
    global _folder, _sqlite
    with _lock:
        if _sqlite is None:
            from bot.storage import open_store

            _folder = Path(tempfile.mkdtemp(prefix="quizbot-template-"))
            atexit.register(shutil.rmtree, _folder, True)
            path = _folder / "migrated.db"

            async def migrate() -> None:
                store = await open_store(f"sqlite:///{path}")
                await store.close()

            on_thread(migrate())
            leftovers = [p.name for p in _folder.iterdir() if p != path]
            assert not leftovers, f"the template did not close cleanly: {leftovers}"
            _sqlite = path
        return _sqlite


def seed_sqlite(path: Path) -> Path:
    """`path` holds a SQLite database migrated to head: a copy of the template, unless a
    database is there already."""
    if not path.exists():
        shutil.copyfile(_sqlite_template(), path)
    return path


def plain(url: str) -> str:
    """asyncpg's spelling of a SQLAlchemy PostgreSQL URL."""
    return url.replace("postgresql+asyncpg://", "postgresql://")


_FINGERPRINT = """
SELECT md5(coalesce(string_agg(x, E'\\n' ORDER BY x), '')) FROM (
  SELECT 'col ' || table_name || '.' || column_name || ' ' || data_type || ' '
         || coalesce(column_default, '') || ' ' || is_nullable AS x
    FROM information_schema.columns WHERE table_schema = $1
  UNION ALL SELECT 'idx ' || indexdef FROM pg_indexes WHERE schemaname = $1
  UNION ALL SELECT 'con ' || conname || ' ' || pg_get_constraintdef(c.oid)
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1
  UNION ALL SELECT 'rel ' || c.relname || ' ' || c.relkind::text || ' '
         || coalesce(c.relacl::text, '')
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
  UNION ALL SELECT 'trg ' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT t.tgisinternal
  UNION ALL SELECT 'fn ' || p.proname FROM pg_proc p JOIN pg_namespace n
    ON n.oid = p.pronamespace WHERE n.nspname = $1
  UNION ALL SELECT 'schema ' || coalesce(n.nspacl::text, '') || ' ' || n.nspowner::text
    FROM pg_namespace n WHERE n.nspname = $1
) parts
"""


async def _drop_orphans(connection: asyncpg.Connection) -> None:
    """Drops the shared schemas of test processes that are gone (killed before their
    session ended), named t_shared_<pid>_<random>."""
    for row in await connection.fetch(
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_shared\\_%'"
    ):
        pid = row["nspname"].split("_")[2]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(asyncpg.PostgresError):
                await connection.execute(f"DROP SCHEMA IF EXISTS {row['nspname']} CASCADE")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SharedSchema:
    """One PostgreSQL schema migrated to head, lent to one test at a time (see the module)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.name: str | None = None
        self._clean = ""
        self._fingerprint = ""
        self._revision = ""
        self.dropped: list[str] = []

    def lend(self) -> str:
        """The schema's name, migrated and empty (migrated now on first use)."""
        with _lock:
            if self.name is None:
                self.name = on_thread(self._create())
            return self.name

    async def _create(self) -> str:
        from bot.storage import open_store

        name = f"t_shared_{os.getpid()}_{uuid.uuid4().hex[:12]}"
        connection = await asyncpg.connect(plain(self.url), timeout=10)
        try:
            await _drop_orphans(connection)
            await connection.execute(f"CREATE SCHEMA {name}")
            self.dropped.append(name)  # until it is whole, as close() drops these
            store = await open_store(self.url, schema=name)
            await store.close()
            tables = await connection.fetch(
                "SELECT tablename FROM pg_tables WHERE schemaname = $1 "
                "AND tablename <> 'alembic_version' ORDER BY 1",
                name,
            )
            sequences = await connection.fetch(
                "SELECT sequencename FROM pg_sequences WHERE schemaname = $1 ORDER BY 1", name
            )
            statements = [f'DELETE FROM {name}."{t["tablename"]}"' for t in tables]
            statements += [
                f'ALTER SEQUENCE {name}."{s["sequencename"]}" RESTART' for s in sequences
            ]
            self._clean = ";\n".join(statements)
            self._fingerprint = await connection.fetchval(_FINGERPRINT, name)
            self._revision = await connection.fetchval(
                f"SELECT version_num FROM {name}.alembic_version"
            )
        finally:
            await connection.close()
        self.dropped.remove(name)
        return name

    def give_back(self) -> None:
        """Empties the schema for the next test; drops it if the test changed its shape."""
        with _lock:
            if self.name is not None and not on_thread(self._cleaned(self.name)):
                self.dropped.append(self.name)
                self.name = None

    async def _cleaned(self, name: str) -> bool:
        connection = await asyncpg.connect(plain(self.url), timeout=10)
        try:
            async with connection.transaction():
                await connection.execute("SET LOCAL lock_timeout = '5s'")
                await connection.execute("SET LOCAL session_replication_role = replica")
                await connection.execute(self._clean)
            same = await connection.fetchval(_FINGERPRINT, name) == self._fingerprint
            revision = await connection.fetchval(f"SELECT version_num FROM {name}.alembic_version")
            if same and revision == self._revision:
                return True
        except (asyncpg.PostgresError, OSError):
            pass
        finally:
            await connection.close()
        await self._drop(name)
        return False

    async def _drop(self, name: str) -> None:
        connection = await asyncpg.connect(plain(self.url), timeout=10)
        try:
            await connection.execute("SET lock_timeout = '10s'")
            await connection.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        except asyncpg.PostgresError:
            pass  # left for close() to try again
        finally:
            await connection.close()

    def close(self) -> None:
        """Drops every schema this process made (at the end of the session)."""
        names = [*self.dropped, *([self.name] if self.name else [])]
        self.name = None
        self.dropped = []

        async def drop_all() -> None:
            for name in names:
                await self._drop(name)

        if names:
            on_thread(drop_all())
