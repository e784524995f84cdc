"""`quizbot db backup PATH`: a consistent copy of the SQLite database, taken while the bot runs.

A file copy of a live SQLite database (its `-wal` beside it) can be torn; the `sqlite3` shell's
`.backup` is not in the slim container image. SQLite's online backup API, which Python's
`sqlite3` module has, copies a snapshot page by page under a read transaction, so writers go
on (WAL mode) and the copy is one self-contained file. PostgreSQL is `pg_dump`'s job.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from sqlalchemy.engine import make_url

from bot.storage.url import database_url


class BackupRefused(ValueError):
    """What the backup cannot do, said in one line (the CLI prints it as an error)."""


def backup_sqlite(url: str, base_dir: Path, target: Path) -> str:
    """Copies the configured SQLite database to `target` (a new file); returns one line
    saying what was written."""
    parsed = make_url(database_url(url, base_dir))
    if not parsed.drivername.startswith("sqlite"):
        raise BackupRefused(
            "quizbot db backup copies a SQLite database; this one is PostgreSQL: use "
            "pg_dump (docs/operations.md#backups), e.g. pg_dump -Fc -f quizbot.dump DATABASE"
        )
    source = Path(parsed.database or "")
    if not source.is_file():
        raise BackupRefused(f"no database at {source}: nothing to back up")
    if target.exists():
        raise BackupRefused(f"{target} exists already: name a new file")
    if not target.parent.is_dir():
        raise BackupRefused(f"no folder {target.parent} to write {target.name} in")
    size = _copy(source, target)
    return f"{source} -> {target}: {size // 1024} KiB, checked (PRAGMA quick_check: ok)"


def _copy(source: Path, target: Path) -> int:
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        with (
            closing(sqlite3.connect(source, timeout=30)) as src,
            closing(sqlite3.connect(partial)) as dst,
        ):
            src.backup(dst)  # every page in one step: one consistent snapshot
            dst.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal to carry
            (verdict,) = dst.execute("PRAGMA quick_check").fetchone()
        if verdict != "ok":
            raise BackupRefused(f"the copy failed its check ({verdict}); nothing written")
        partial.rename(target)
    finally:
        partial.unlink(missing_ok=True)
    return target.stat().st_size
