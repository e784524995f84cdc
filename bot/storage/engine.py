"""The store's engines: connections tuned for the store, database trouble made
StoreUnavailable ("try again", see `trouble`), and the migrations applied under a lock by a
process that can write (a database it cannot write to is refused at start, in one line).

On SQLite, write transactions start with BEGIN IMMEDIATE: a deferred transaction that reads
and then writes gets SQLITE_BUSY at once when another writer holds the lock, ignoring
busy_timeout; an immediate one waits for the lock up to busy_timeout instead.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, event, text
from sqlalchemy.engine import Connection, Dialect, ExceptionContext
from sqlalchemy.engine import make_url as engine_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry

from bot.config import SetupError
from bot.service.ports import StoreUnavailable
from bot.storage.dialects import dialect_for
from bot.storage.transactions import BUSY_MS, LOCK_WAIT, READ, WRITE, RolledBack
from bot.storage.trouble import (
    ROLLED_BACK,
    TroubleLog,
    describe,
    passing,
    reopens,
    sqlstate_of,
    transient_sqlstate,
)
from bot.storage.url import database_url

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["sqlstate_of", "transient_sqlstate"]  # where tests and tools found them first

MIGRATIONS = Path(__file__).with_name("migrations")
_SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def store_engine(
    url: str,
    *,
    schema: str | None = None,
    autocommit: bool = False,
    trouble: TroubleLog | None = None,
) -> AsyncEngine:
    """An async engine for `url` (anything `database_url` accepts), tuned for the store.

    `schema` (PostgreSQL only) puts the tables in that existing schema via search_path:
    tests use it to isolate each test in a fresh schema. `autocommit` (PostgreSQL): pooled
    connections rest in autocommit, so the liveness ping at checkout is one round trip, not
    three (BEGIN, ping, ROLLBACK); the store names the isolation of its transactions.
    `trouble`: where its database trouble is logged (the store's, shared by its engines).
    """
    url = database_url(url, Path.cwd())
    connect_args: dict[str, Any] = {}
    if schema is not None:
        if not url.startswith("postgresql"):
            raise ValueError("a schema is a PostgreSQL setting; SQLite has one per file")
        if not _SCHEMA_NAME.fullmatch(schema):
            raise ValueError(f"schema {schema!r} is not a plain SQL identifier")
        connect_args["server_settings"] = {"search_path": schema}
    if url.startswith("sqlite"):
        _owner_only(engine_url(url).database)
        engine = create_async_engine(url, connect_args=connect_args)
        tune_sqlite(engine.sync_engine)
    else:
        engine = create_async_engine(
            url,
            connect_args={"timeout": 5, **connect_args},
            **({"isolation_level": "AUTOCOMMIT"} if autocommit else {}),
        )
        _ping_when_idle(engine.sync_engine)
    translate_errors(engine.sync_engine, trouble)
    return engine


def _owner_only(path: str | None) -> None:
    """Creates a new SQLite file readable by its owner only (0600): it holds every answer and,
    with OAuth, the workspaces' (encrypted) tokens. SQLite gives the -wal and -shm files the
    mode of the database file. An existing file keeps the mode its owner chose."""
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


IDLE_PING_SECONDS = 1.0
"""A pooled connection idle longer than this is pinged before use."""


def _ping_when_idle(engine: Engine) -> None:
    """The bot runs for weeks: a pooled connection may have been dropped by a database
    restart, so one that sat idle is pinged at checkout and replaced if dead. One used within
    the last second is not (HikariCP's "alive bypass window"): in a burst of clicks, a ping
    per transaction would be a third of its round trips."""

    @event.listens_for(engine, "checkin")
    def _checkin(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        since = record.info.get("idle_since")  # none yet: the connection was just opened
        if since is None or time.monotonic() - since < IDLE_PING_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as e:
            raise DisconnectionError("the pooled connection is gone") from e  # the pool
            # replaces it with a new one and checks out again


def translate_errors(engine: Engine, trouble: TroubleLog | None = None) -> None:
    """Database trouble becomes StoreUnavailable, said in the log by `trouble` (see
    `_unavailable` and `_connect`)."""
    said = trouble or TroubleLog()
    event.listen(engine, "handle_error", functools.partial(_unavailable, said))
    event.listen(engine, "do_connect", functools.partial(_connect, said))


def _connect(
    trouble: TroubleLog, dialect: Dialect, _record: object, cargs: Any, cparams: Any
) -> Any:
    """Opens a connection; a refused or timed-out one is StoreUnavailable (SQLAlchemy passes
    only DBAPI errors to handle_error, and asyncpg raises OSError for a refused socket)."""
    try:
        return dialect.connect(*cargs, **cparams)
    except (OSError, TimeoutError) as e:
        trouble.refused("unreachable", e)
        raise StoreUnavailable() from e


def _unavailable(trouble: TroubleLog, context: ExceptionContext) -> BaseException | None:
    """Turns "the database cannot take this right now" into StoreUnavailable.

    A dropped or refused connection, a timeout, SQLite still locked after busy_timeout, a
    full disk, a read-only file or server, an I/O error (`trouble.passing`): nothing was
    written, so the caller can safely ask the user to try again. A connection that met a
    read-only database is replaced (`trouble.reopens`), so the store sees the database as
    it is once that ends. Anything else (a bug, a constraint) is left as it is.
    """
    original = context.original_exception
    if not isinstance(original, Exception):
        return None  # a cancelled task (or Ctrl+C) must stay a cancellation
    if sqlstate_of(original) in ROLLED_BACK:
        return RolledBack()
    kind = passing(original) or ("unreachable" if context.is_disconnect else None)
    if kind is None:
        return None
    if reopens(original):
        context.is_disconnect = True
    trouble.refused(kind, original)
    return StoreUnavailable()


def tune_sqlite(engine: Engine) -> None:
    """WAL (readers never block the writer), a busy wait, enforced foreign keys, and our own
    BEGIN: pysqlite's is disabled (isolation_level=None) so we can say IMMEDIATE."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")  # safe with WAL; fsyncs at checkpoints
            # ms a writer waits for another process's lock; a click's write waits less
            # (`transactions.lock_wait`), and the connection remembers what it was told
            cursor.execute(f"PRAGMA busy_timeout={BUSY_MS}")
            record.info[LOCK_WAIT] = BUSY_MS
            cursor.execute("PRAGMA foreign_keys=ON")
            # The store checkpoints the log in a thread of its own (`transactions`); a commit
            # checkpoints only if that falls far behind, as a backstop (40 MB of log).
            cursor.execute("PRAGMA wal_autocheckpoint=10000")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        options = connection.get_execution_options()
        if options.get(WRITE, False):
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        elif not options.get(READ, False):
            connection.exec_driver_sql("BEGIN")
        # A store read is one statement: in autocommit it sees one snapshot all the same,
        # and saves the BEGIN's round trips to the driver's thread.


async def upgrade(url: str, *, schema: str | None = None) -> None:
    """Applies the migrations to head (`quizbot db upgrade`); a no-op when already there.
    Raises `CannotWrite` if the database cannot be written to."""
    engine = store_engine(url, schema=schema, trouble=TroubleLog(quiet=True))
    try:
        await migrate(engine)
    finally:
        await engine.dispose()


class CannotWrite(SetupError):
    """The database cannot be written to at start (read-only, full, locked, unreachable):
    said in one line, before anything is promised to anyone."""


_WHY_ELSE = "is the database server running, and the URL right?"
_PROBE = text("UPDATE alembic_version SET version_num = version_num")
"""A write that changes nothing: SQLite (which starts even BEGIN IMMEDIATE on a read-only
file) and PostgreSQL (a standby) refuse it when the database is read-only."""


async def migrate(engine: AsyncEngine) -> None:
    """Runs Alembic in one write transaction on `engine`, so two processes starting at once
    migrate one after the other (SQLite's write lock, a PostgreSQL advisory lock), and
    writes in it: a database with nothing to migrate may still be one this process cannot
    write to, which is said now (`CannotWrite`) rather than to the first person to click."""
    dialect = dialect_for(engine.dialect.name)
    options: dict[str, Any] = {WRITE: True, **dialect.migration_options}
    try:
        async with engine.execution_options(**options).begin() as connection:
            await connection.run_sync(dialect.lock_migrations)
            await connection.run_sync(_alembic_upgrade)
            await connection.execute(_PROBE)
    except StoreUnavailable as refused:
        cause = refused.__cause__ or refused
        kind = passing(cause) or "unreachable"
        where = dialect.named(engine.url)
        why = dialect.cannot_write.get(kind, _WHY_ELSE)
        raise CannotWrite(
            f"the database {where} cannot be written to ({kind}: {describe(cause)}): {why}"
        ) from refused


def _alembic_upgrade(connection: Connection) -> None:
    """Alembic's upgrade to head, unless the database is there already. Alembic is imported
    only to migrate: it would load itself, its environment and every migration script to find
    that out (about 0.25 s of every start of the bot and of each CLI command)."""
    if _current_revision(connection) == HEAD:
        return
    from alembic import command  # here: see the docstring

    config = _alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


HEAD = "0015"
"""The newest migration's revision. A test holds it to Alembic's own head; were it behind, a
start would only run Alembic's upgrade (a no-op) as before."""


def _current_revision(connection: Connection) -> str | None:
    """The revision Alembic stored (its `alembic_version` table, as `MigrationContext` reads
    it), or None for a database never migrated."""
    if not connection.dialect.has_table(connection, "alembic_version"):
        return None
    found = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return found[0] if len(found) == 1 else None


def _alembic_config() -> Config:
    from alembic.config import Config  # here: only to migrate

    return Config(str(MIGRATIONS / "alembic.ini"))
