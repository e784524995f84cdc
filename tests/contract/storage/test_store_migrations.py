"""Migrations: they build the schema tables.py describes, on both databases, exactly once."""

from __future__ import annotations

import ast
import asyncio
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, event, inspect, text
from sqlalchemy.engine import Connection

from bot.domain.records import NewSchedule
from bot.storage import engine, upgrade
from bot.storage.engine import MIGRATIONS, store_engine
from bot.storage.sqlite import compiled
from bot.storage.tables import metadata

if TYPE_CHECKING:
    from tests.databases import Database

HEAD = ScriptDirectory.from_config(Config(str(MIGRATIONS / "alembic.ini"))).get_current_head()


@contextmanager
def statements() -> Iterator[list[str]]:
    """Every SQL statement any engine sends while the block runs, and those a SQLite click's
    write runs on the driver's own cursor (`bot.storage.sqlite.compiled.run`)."""
    sent: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(statement)

    direct = compiled.run

    def run(cursor: Any, sql: str, args: Any) -> Any:
        sent.append(sql)
        return direct(cursor, sql, args)

    event.listen(Engine, "before_cursor_execute", record)
    compiled.run = run  # type: ignore[assignment]
    try:
        yield sent
    finally:
        compiled.run = direct  # type: ignore[assignment]
        event.remove(Engine, "before_cursor_execute", record)


async def on_engine(db: Database, fn: Any) -> Any:
    engine = store_engine(db.url, schema=db.schema)
    try:
        async with engine.begin() as conn:
            return await conn.run_sync(fn)
    finally:
        await engine.dispose()


def heads(conn: Connection) -> tuple[str, ...]:
    return MigrationContext.configure(conn).get_current_heads()


async def test_migrations_reach_head_and_second_open_changes_nothing(db: Database) -> None:
    assert HEAD == "0015"
    first = await db.open()
    await first.set_meta("k", "v")
    await first.close()
    with statements() as sent:
        second = await db.open()
        await upgrade(db.url, schema=db.schema)
    ddl = [s for s in sent if s.lstrip().upper().startswith(("CREATE", "ALTER", "DROP", "INSERT"))]
    assert ddl == []
    assert await second.get_meta("k") == "v"
    assert await on_engine(db, heads) == (HEAD,)


def test_a_start_knows_the_newest_migration() -> None:
    """`engine.HEAD` lets a start skip Alembic; it must be Alembic's own head."""
    assert engine.HEAD == HEAD


async def test_a_start_at_head_does_not_load_alembic(db: Database) -> None:
    """A database already migrated opens without importing Alembic (0.25 s of each start);
    one a migration behind is brought to head."""
    await upgrade(db.url, schema=db.schema)
    opens = (
        "import asyncio, sys\n"
        "from bot.storage import upgrade\n"
        f"asyncio.run(upgrade({db.url!r}, schema={db.schema!r}))\n"
        "print('alembic' in sys.modules)\n"
    )
    child = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-c", opens], capture_output=True, text=True
    )
    assert child.stdout.strip() == "False", child.stderr

    def one_behind(conn: Connection) -> None:
        conn.execute(text("UPDATE alembic_version SET version_num = '0014'"))

    await on_engine(db, one_behind)  # 0015 only adds tables: a second run of it must fail
    with pytest.raises(Exception, match="suggestion"):
        await upgrade(db.url, schema=db.schema)


async def test_upgrade_alone_creates_the_schema(db: Database) -> None:
    await upgrade(db.url, schema=db.schema)
    tables = await on_engine(db, lambda conn: set(inspect(conn).get_table_names()))
    assert tables == {*metadata.tables, "alembic_version"}
    assert await on_engine(db, heads) == (HEAD,)


async def test_migrated_schema_matches_tables_module(db: Database) -> None:
    await upgrade(db.url, schema=db.schema)

    def diff(conn: Connection) -> list[Any]:
        return list(compare_metadata(MigrationContext.configure(conn), metadata))

    assert await on_engine(db, diff) == []


async def test_downgrade_to_base_and_back(db: Database) -> None:
    await upgrade(db.url, schema=db.schema)

    def downgrade(conn: Connection) -> set[str]:
        config = Config(str(MIGRATIONS / "alembic.ini"))
        config.attributes["connection"] = conn
        command.downgrade(config, "base")
        return set(inspect(conn).get_table_names())

    assert await on_engine(db, downgrade) == {"alembic_version"}
    store = await db.open()
    assert await store.get_meta("k") is None


async def test_a_downgrade_keeps_a_schedule_on_the_default_it_followed(db: Database) -> None:
    """Before 0014 a schedule named its deck: one that followed the server's default is
    given the deck that default named (one with no default set keeps "", which the code of
    then took as the first deck)."""
    store = await db.open()
    await store.set_server_default_deck("slack:T1", "ours")
    for server in ("slack:T1", "slack:T2"):
        await store.put_schedule(
            NewSchedule(server, "C1", "09:00", "UTC", None, "daily", "boss", datetime.now(UTC))
        )
    await store.close()

    def downgrade(conn: Connection) -> list[tuple[str, str]]:
        config = Config(str(MIGRATIONS / "alembic.ini"))
        config.attributes["connection"] = conn
        command.downgrade(config, "0012")
        rows = conn.execute(text("SELECT server_id, deck_id FROM schedules ORDER BY server_id"))
        return [(row.server_id, row.deck_id) for row in rows]

    assert await on_engine(db, downgrade) == [("slack:T1", "ours"), ("slack:T2", "")]


async def test_sqlite_connection_settings(tmp_path: Any) -> None:
    engine = store_engine(f"sqlite:///{tmp_path / 'q.db'}")
    try:
        async with engine.connect() as conn:
            settings = [
                (await conn.execute(text(pragma))).scalar_one()
                for pragma in (
                    "PRAGMA journal_mode",
                    "PRAGMA busy_timeout",
                    "PRAGMA foreign_keys",
                    "PRAGMA synchronous",
                )
            ]
    finally:
        await engine.dispose()
    assert settings == ["wal", 5000, 1, 1]  # synchronous=1 is NORMAL


def test_migrations_ship_inside_the_package() -> None:
    names = {p.relative_to(MIGRATIONS).as_posix() for p in MIGRATIONS.rglob("*") if p.is_file()}
    shipped = {"alembic.ini", "env.py", "script.py.mako"}
    versions = {
        "versions/0001_initial.py",
        "versions/0002_schedules.py",
        "versions/0003_standings.py",
    }
    assert shipped | versions <= names


def test_no_migration_runs_the_live_domain_rules() -> None:
    """A migration is a snapshot: one that needs a rule (0009's card rule) carries a frozen
    copy, so changing the live rule later cannot change what it does on a fresh install.
    (Column types from `bot.storage.tables` are storage's own, not rules.)"""
    importing: dict[str, list[str]] = {}
    for path in sorted((MIGRATIONS / "versions").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            ruled = [n for n in names if n.startswith(("bot.domain", "bot.service"))]
            if ruled:
                importing[path.name] = ruled
    assert importing == {}
