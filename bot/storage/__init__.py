"""The stores: `QuizStore` on SQLite and PostgreSQL (`sql`, one module per aggregate; where
the two databases differ, `dialect` and the `sqlite` and `postgres` packages), in memory
(`memory`, imported from there), and the Alembic migrations the SQL store ships."""

from bot.storage.engine import upgrade
from bot.storage.sql import SqlStore, open_store
from bot.storage.suggestions import SqlSuggestions
from bot.storage.url import database_url

__all__ = ["SqlStore", "SqlSuggestions", "database_url", "open_store", "upgrade"]
