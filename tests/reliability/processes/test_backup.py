"""The backup guide's commands that run outside Docker (docs/operations.md#backups):
`quizbot db backup` copies a SQLite database that is being written, into one checked file
that restores; it refuses what it cannot do in one line; and the PostgreSQL line (`pg_dump
-Fc`, `pg_restore --clean`) brings the bot's tables back."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from tests.reliability.processes.test_play import environ

ROOT = Path(__file__).resolve().parents[3]


def quizbot(folder: Path, *args: str, answers: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=folder,
        env=environ(LANG="C.UTF-8"),
    )


def answers_of(database: Path) -> int:
    with sqlite3.connect(database) as db:
        (count,) = db.execute("SELECT count(*) FROM answers").fetchone()
    return int(count)


def test_a_backup_taken_during_writes_is_one_checked_file_that_restores(tmp_path: Path) -> None:
    played = quizbot(tmp_path, "play", "--user", "mitu", answers="a\n" * 30)
    assert played.returncode == 0, played.stderr
    live = tmp_path / "quizbot.db"
    stored = answers_of(live)
    assert stored > 0

    stop = threading.Event()
    written = [0]

    def writer() -> None:  # another process's writes while the copy is taken (WAL mode)
        with sqlite3.connect(live, timeout=30) as db:
            db.execute("CREATE TABLE IF NOT EXISTS churn (n INTEGER)")
            while not stop.is_set():
                db.execute("INSERT INTO churn VALUES (?)", (written[0],))
                db.commit()
                written[0] += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        (tmp_path / "backups").mkdir()
        made = quizbot(tmp_path, "db", "backup", "backups/quizbot-2026-12-05.db")
    finally:
        stop.set()
        thread.join()
    assert made.returncode == 0, made.stderr
    copy = tmp_path / "backups" / "quizbot-2026-12-05.db"
    assert made.stdout.startswith(f"{live} -> backups/quizbot-2026-12-05.db: ")
    assert made.stdout.rstrip().endswith("checked (PRAGMA quick_check: ok)")
    assert sorted(p.name for p in copy.parent.iterdir()) == [copy.name]  # one file, no -wal
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        (churn,) = db.execute("SELECT count(*) FROM churn").fetchone()
        (top,) = db.execute("SELECT coalesce(max(n), -1) FROM churn").fetchone()
    assert churn == top + 1 <= written[0]  # a snapshot: every row up to some moment, no gaps
    assert answers_of(copy) == stored

    # The guide's restore: the bot stopped, the copy in the database's place, its -wal gone.
    for stale in tmp_path.glob("quizbot.db*"):
        stale.unlink()
    shutil.copy(copy, live)
    exported = quizbot(tmp_path, "export", "--server", "local", "--out", "out")
    assert exported.returncode == 0, exported.stderr
    rows = (tmp_path / "out" / "local-answers.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + stored


def test_backup_refuses_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    nothing = quizbot(tmp_path, "db", "backup", "copy.db")
    assert nothing.returncode == 2
    assert (
        nothing.stderr == f"error: no database at {tmp_path / 'quizbot.db'}: nothing to back up\n"
    )
    assert not (tmp_path / "quizbot.db").exists() and not (tmp_path / "copy.db").exists()

    quizbot(tmp_path, "play", "--user", "mitu", answers="q\n")
    (tmp_path / "copy.db").write_text("keep me", encoding="utf-8")
    kept = quizbot(tmp_path, "db", "backup", "copy.db")
    assert kept.returncode == 2 and "copy.db exists already: name a new file" in kept.stderr
    assert (tmp_path / "copy.db").read_text(encoding="utf-8") == "keep me"

    (tmp_path / "config.toml").write_text(
        '[database]\nurl = "postgresql://quizbot@db/quizbot"\n', encoding="utf-8"
    )
    postgres = quizbot(tmp_path, "db", "backup", "pg.db")
    assert postgres.returncode == 2 and postgres.stderr.count("\n") == 1
    assert "this one is PostgreSQL: use pg_dump" in postgres.stderr


async def test_the_pg_dump_line_brings_the_bots_tables_back() -> None:
    """`pg_dump -Fc` then `pg_restore --clean --if-exists`, as the guide writes them, on a
    migrated quizbot schema of the test PostgreSQL."""
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("pg_dump and pg_restore are not installed here")
    from sqlalchemy import text
    from sqlalchemy.engine import make_url
    from sqlalchemy.ext.asyncio import create_async_engine
    from sqlalchemy.schema import CreateSchema, DropSchema

    from bot.storage import database_url, open_store
    from tests.databases import POSTGRES_URL

    url = database_url(POSTGRES_URL, Path.cwd())
    schema = f"t_{uuid.uuid4().hex}"
    admin = create_async_engine(url)
    async with admin.begin() as conn:
        await conn.execute(CreateSchema(schema))
    try:
        store = await open_store(url, schema=schema)  # migrated, as the bot leaves it
        await store.set_user_locale("discord:1", "u1", "bn")
        await store.close()
        plain = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        dump = Path(f"/tmp/{schema}.dump")
        dumped = await asyncio.to_thread(
            subprocess.run,
            ["pg_dump", "-Fc", "-n", schema, "-f", str(dump), plain],
            capture_output=True,
            text=True,
        )
        if dumped.returncode != 0 and "server version mismatch" in dumped.stderr:
            pytest.skip(dumped.stderr.strip())
        assert dumped.returncode == 0, dumped.stderr
        async with admin.begin() as conn:
            await conn.execute(text(f"DROP TABLE {schema}.user_settings CASCADE"))
        restored = await asyncio.to_thread(
            subprocess.run,
            ["pg_restore", "--clean", "--if-exists", "-d", plain, str(dump)],
            capture_output=True,
            text=True,
        )
        assert restored.returncode == 0, restored.stderr
        await asyncio.to_thread(dump.unlink)
        store = await open_store(url, schema=schema)
        try:
            assert await store.user_locale("discord:1", "u1") == "bn"
        finally:
            await store.close()
    finally:
        async with admin.begin() as conn:
            await conn.execute(DropSchema(schema, cascade=True))
        await admin.dispose()
