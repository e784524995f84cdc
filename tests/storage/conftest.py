"""Every test here runs on SQLite and PostgreSQL: see tests/storage/databases.py."""

from tests.storage.databases import db, store

__all__ = ["db", "store"]
