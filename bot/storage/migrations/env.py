"""Alembic's entry point: migrations run on the store's own async engine.

`bot.storage.engine.upgrade` passes in a connection already inside its transaction (with the
SQLite pragmas and write lock, or the PostgreSQL search_path of its schema), so the app and
its migrations agree on where the tables are. Run by hand (`alembic -x url=...`), it opens
an engine the same way.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import context
from sqlalchemy.engine import Connection

from bot.storage.engine import store_engine
from bot.storage.tables import metadata
from bot.storage.url import database_url

config = context.config


def _ours(name: str | None, type_: str, parents: object) -> bool:
    """slack_sdk creates its OAuth tables (slack_*) itself: autogenerate must leave them be."""
    return not (type_ == "table" and name is not None and name.startswith("slack_"))


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite ALTERs copy the table
        include_name=_ours,
    )
    with context.begin_transaction():
        context.run_migrations()


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///quizbot.db ...")
    return database_url(url, Path.cwd())


async def _run_standalone(url: str) -> None:
    engine = store_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    url = _url()
    context.configure(
        url=url,
        target_metadata=metadata,
        literal_binds=True,
        include_name=_ours,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()
elif (connection := config.attributes.get("connection")) is not None:
    _run(connection)
else:
    asyncio.run(_run_standalone(_url()))
