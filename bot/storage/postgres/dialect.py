"""`Dialect` on PostgreSQL (see the package doc)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import URL, ColumnElement, Integer, Table, bindparam, func, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection

from bot.domain.records import PostAnswer, PostAnswerOutcome
from bot.domain.review import Card, Study
from bot.storage.game_tables import held_answers
from bot.storage.mastery import ZONE, MasteryCounts
from bot.storage.postgres import cards, points
from bot.storage.postgres.cards import PostgresMasteryCounts
from bot.storage.postgres.click import write_clicks
from bot.storage.postgres.points import PostgresScoreCounts
from bot.storage.scores import ScoreCounts, Scored

_hold = postgresql.insert(held_answers)
_HOLD = _hold.on_conflict_do_nothing(
    index_elements=[held_answers.c.post_id, held_answers.c.user_id]
).returning(held_answers.c.choice)
_MIGRATION_LOCK = 0x71756977
"""With `pg_advisory_xact_lock`, serializes concurrent upgrades of one database ("quiw")."""
_LOCK = select(
    func.pg_advisory_xact_lock(bindparam("space", type_=Integer), func.hashtext(bindparam("key")))
)


class Postgres:
    name = "postgresql"
    score_counts: type[ScoreCounts] = PostgresScoreCounts
    mastery_counts: type[MasteryCounts] = PostgresMasteryCounts

    def __init__(self) -> None:
        # The migrations' transaction is one, whatever the engine's default isolation.
        self.migration_options: dict[str, Any] = {"isolation_level": "READ COMMITTED"}
        self.cannot_write = {
            "read-only": "the server takes no writes (a standby?): point the URL at the primary",
            "out of resources": "the server is out of disk, memory or connections",
        }

    def lock_migrations(self, conn: Connection) -> None:
        """A transaction-scoped advisory lock of its own."""
        conn.execute(select(func.pg_advisory_xact_lock(_MIGRATION_LOCK)))

    def named(self, url: URL) -> str:
        return url.render_as_string(hide_password=True)

    def insert(self, table: Table) -> postgresql.Insert:
        return postgresql.insert(table)

    def write_clicks(
        self, conn: Connection, answers: Sequence[PostAnswer]
    ) -> list[PostAnswerOutcome]:
        return write_clicks(conn, answers)

    def hold(self, conn: Connection, params: dict[str, Any]) -> Any:
        return conn.execute(_HOLD, params).first()

    def server_zone(self, conn: Connection, server_id: str) -> str:
        zone: str | None = conn.scalar(ZONE, {"server_id": server_id})
        return zone or "UTC"

    def add_points(self, conn: Connection, scored: Scored, zone: str) -> None:
        points.add_points(conn, scored, zone)

    def card(self, conn: Connection, server_id: str, study: Study) -> Card:
        return cards.card(conn, server_id, study)

    def put_card(
        self, conn: Connection, server_id: str, study: Study, was: Card, now: Card
    ) -> None:
        cards.put_card(conn, server_id, study, was, now)

    def pending_written(self, conn: Connection) -> None:
        """Nothing is held back: every row is written as the answer is stored."""

    def python_order(self, text: ColumnElement[str]) -> ColumnElement[str]:
        return text.collate("C")

    def serialize(self, conn: Connection, space: int, key: str) -> None:
        """A transaction-scoped advisory lock on (space, hash of key)."""
        conn.execute(_LOCK, {"space": space, "key": key})
