"""SQLite faults made real for the store's tests: another process holding the write lock, a
full database, a read-only one.

- Locked: a second process opens the file and holds `BEGIN IMMEDIATE` (`hold_write_lock`),
  as a second quizbot, a migration or a sqlite3 shell would.
- Full: SQLite's own SQLITE_FULL ("database or disk is full"), met by the store's own
  connections: each is held to the pages the file has when the store checks it out
  (`PRAGMA max_page_count`, which is a per-connection limit: set on a second connection it
  would bind only that one). A tiny filesystem would need root to mount.
- Read-only: the file's mode (chmod 0444), where that binds this process. Tests may run as
  root, which writes whatever the mode says; there the store's connections are opened with
  SQLite's read-only open instead (`?mode=ro`), which SQLite treats as it treats a file it
  may not write. `READ_ONLY_ROUTE` says which one this run used.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, event

from bot.storage import SqlStore

HOLD_WRITE_LOCK = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
con.execute("ROLLBACK")
"""


def hold_write_lock(path: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding `path`'s write lock (BEGIN IMMEDIATE) for `seconds`; returns
    once it holds it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_WRITE_LOCK, str(path), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def twin(store: SqlStore) -> Engine:
    """The stdlib-driver engine the SQLite store runs its transactions on."""
    engine = store._tx._sqlite
    assert engine is not None, "a SQLite store"
    return engine


@contextlib.contextmanager
def full(store: SqlStore) -> Iterator[None]:
    """While the block runs, the store's SQLite says "database or disk is full" to a write
    that needs one more page. After it, the store's connections are opened afresh (as the
    disk freed would let them grow again)."""
    engine = twin(store)

    def held(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        (pages,) = dbapi_connection.execute("PRAGMA page_count").fetchone()
        dbapi_connection.execute(f"PRAGMA max_page_count={pages}")

    event.listen(engine, "checkout", held)
    try:
        yield
    finally:
        event.remove(engine, "checkout", held)
        engine.dispose()  # the limit was per connection: fresh ones have none


def chmod_binds(path: Path) -> bool:
    """Whether a mode without write permission stops this process writing `path` (not for
    root, nor for a process with CAP_DAC_OVERRIDE)."""
    mode = stat.S_IMODE(path.stat().st_mode)
    path.chmod(0o444)
    try:
        os.close(os.open(path, os.O_WRONLY))
    except PermissionError:
        return True
    else:
        return False
    finally:
        path.chmod(mode)


READ_ONLY_ROUTE: list[str] = []
"""The route the read-only tests of this run took ("chmod" or "mode=ro"), for their output."""


def read_only_url(path: Path) -> str:
    """A database URL under which `path` cannot be written to by this process or its
    children: `path` made 0444 where that binds, else SQLite's read-only open. Undo the
    chmod with `writable_again`."""
    if chmod_binds(path):
        path.chmod(0o444)
        READ_ONLY_ROUTE.append("chmod")
        return f"sqlite:///{path}"
    READ_ONLY_ROUTE.append("mode=ro")
    return f"sqlite:///file:{path}?mode=ro"


def writable_again(path: Path) -> None:
    path.chmod(0o600)


@contextlib.contextmanager
def read_only(store: SqlStore, path: Path) -> Iterator[str]:
    """While the block runs, the store's connections are read-only, as they are when opened
    while the file cannot be written (a pooled connection opened during the fault, or a
    start): the file is made 0444 where that binds (else opened with `?mode=ro`), and the
    store's idle connections closed, so it opens new ones. When the block ends the file is
    writable again; the store must find that out by itself (nothing is reopened for it).
    Yields the route taken."""
    engine = twin(store)
    route = "chmod" if chmod_binds(path) else "mode=ro"
    READ_ONLY_ROUTE.append(route)

    connect = engine.dialect.connect

    def read_only_open(*cargs: Any, **cparams: Any) -> Any:
        target = str(cargs[0])
        if not target.startswith("file:"):
            target = f"file:{quote(target)}"
        target = target.split("?")[0] + "?mode=ro"
        return connect(target, *cargs[1:], **{**cparams, "uri": True})

    if route == "chmod":
        path.chmod(0o444)
    else:
        engine.dialect.connect = read_only_open  # type: ignore[method-assign]
    engine.dispose()
    try:
        yield route
    finally:
        if route == "chmod":
            writable_again(path)
        else:
            del engine.dialect.connect  # the dialect's own again
