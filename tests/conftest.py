"""Fixtures every suite shares: `db` and `store` run a test on a SQLite file and on PostgreSQL."""

from tests.storage.databases import db, store

__all__ = ["db", "store"]
