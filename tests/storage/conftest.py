"""Every test here runs on SQLite and PostgreSQL: see tests/storage/databases.py."""

from tests.storage.databases import db, pg_schema, store

__all__ = ["db", "pg_schema", "store"]
