"""The SQL store: `QuizStore` on SQLite and PostgreSQL, and the Alembic migrations it ships."""

from bot.storage.engine import upgrade
from bot.storage.sql import SqlStore, open_store
from bot.storage.url import database_url

__all__ = ["SqlStore", "database_url", "open_store", "upgrade"]
