"""`Dialect` on SQLite (see the package doc)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote

from sqlalchemy import URL, ColumnElement, Table
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Connection

from bot.domain.records import PostAnswer, PostAnswerOutcome
from bot.domain.review import Card, Study
from bot.storage.game_tables import held_answers
from bot.storage.mastery import MasteryCounts
from bot.storage.scores import ScoreCounts, Scored
from bot.storage.sqlite.cards import ZONE_OF, PendingCards, SqliteMasteryCounts
from bot.storage.sqlite.click import write_clicks
from bot.storage.sqlite.points import PendingPoints, SqliteScoreCounts
from bot.storage.transactions import accumulate, written

_hold = sqlite.insert(held_answers)
_HOLD = _hold.on_conflict_do_nothing(
    index_elements=[held_answers.c.post_id, held_answers.c.user_id]
).returning(held_answers.c.choice)


class Sqlite:
    name = "sqlite"
    score_counts: type[ScoreCounts] = SqliteScoreCounts
    mastery_counts: type[MasteryCounts] = SqliteMasteryCounts

    def __init__(self) -> None:
        self.migration_options: dict[str, Any] = {}
        self.cannot_write = {
            "read-only": "check that the bot's user may write the file and its folder, and that "
            "the disk is mounted read-write",
            "full": "free some disk space",
            "locked": "another process holds its write lock (a second quizbot, a migration, "
            "a sqlite3 shell); stop it or try again",
            "cannot open": "check that the file and its folder exist and the bot may open them",
        }

    def lock_migrations(self, conn: Connection) -> None:
        """Nothing to do: the migrations' write transaction holds SQLite's write lock."""

    def named(self, url: URL) -> str:
        return unquote((url.database or "").removeprefix("file:"))  # the file

    def insert(self, table: Table) -> sqlite.Insert:
        return sqlite.insert(table)

    def write_clicks(
        self, conn: Connection, answers: Sequence[PostAnswer]
    ) -> list[PostAnswerOutcome]:
        return write_clicks(conn, answers)

    def hold(self, conn: Connection, params: dict[str, Any]) -> Any:
        return conn.execute(_HOLD, params).first()

    def server_zone(self, conn: Connection, server_id: str) -> str:
        zone: str | None = ZONE_OF.scalar(conn, {"server_id": server_id})
        return zone or "UTC"

    def add_points(self, conn: Connection, scored: Scored, zone: str) -> None:
        """At the transaction's end (`PendingPoints`)."""
        accumulate(conn, PendingPoints).add(scored, zone)

    def card(self, conn: Connection, server_id: str, study: Study) -> Card:
        key = (server_id, study.user_id, study.deck_id, study.question_id)
        return accumulate(conn, PendingCards).card(conn, key)

    def put_card(
        self, conn: Connection, server_id: str, study: Study, was: Card, now: Card
    ) -> None:
        """At the transaction's end (`PendingCards`)."""
        key = (server_id, study.user_id, study.deck_id, study.question_id)
        accumulate(conn, PendingCards).put(key, was, now, study.at)

    def pending_written(self, conn: Connection) -> None:
        written(conn, PendingPoints)
        written(conn, PendingCards)

    def python_order(self, text: ColumnElement[str]) -> ColumnElement[str]:
        return text  # SQLite compares text by its bytes: code point order

    def serialize(self, conn: Connection, space: int, key: str) -> None:
        """Nothing to do: a write transaction holds SQLite's one write lock."""
