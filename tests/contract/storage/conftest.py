"""Every test here runs on SQLite and PostgreSQL (see tests/databases.py); one taking
`store` runs on `MemoryStore` too, so it states the contract of every `QuizStore`. A test of
the SQL store itself takes `sql_store` or `db`."""

import pytest

from bot.service.ports import QuizStore
from bot.storage import SqlStore
from tests.databases import Database, any_store, db, pg_schema

__all__ = ["any_store", "db", "pg_schema"]


@pytest.fixture
def store(any_store: QuizStore) -> QuizStore:
    return any_store


@pytest.fixture
async def sql_store(db: Database) -> SqlStore:
    return await db.open()
