"""The one choice of database: the `Dialect` (`bot.storage.dialect`) of each."""

from __future__ import annotations

from bot.storage.dialect import Dialect
from bot.storage.postgres.dialect import Postgres
from bot.storage.sqlite.dialect import Sqlite


def dialect_for(name: str) -> Dialect:
    """The dialect of a database SQLAlchemy names `name` ("sqlite" or "postgresql")."""
    if name == "sqlite":
        return Sqlite()
    if name == "postgresql":
        return Postgres()
    raise ValueError(f"unsupported database {name!r}")
