"""What differs between the store's two databases, behind one face: `Dialect`, chosen once,
in `SqlStore.__init__` (`bot.storage.sql`, by `bot.storage.dialects.dialect_for`), and handed
to every aggregate as `_sql`.

The aggregates (`posts`, `runs`, `reviews`, `servers`, `standings`, ...) say what is written
and read in SQLAlchemy Core, the same on both. Where the two databases part, they ask their
dialect: `bot.storage.sqlite.dialect.Sqlite` (a click's write batched per transaction on
the driver's own cursor, standings and cards written at the transaction's end) or
`bot.storage.postgres.dialect.Postgres` (a click in one statement, rows locked as read).
Each package reads alone; neither imports the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import URL, ColumnElement, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from bot.domain.records import PostAnswer, PostAnswerOutcome
from bot.domain.review import Card, Study

if TYPE_CHECKING:
    from bot.storage.mastery import MasteryCounts
    from bot.storage.scores import ScoreCounts, Scored

Insert = sqlite.Insert | postgresql.Insert


class Dialect(Protocol):
    """One database's ways with the statements the store shares."""

    name: str
    migration_options: dict[str, Any]
    """Execution options of the migrations' transaction (`engine.migrate`)."""
    cannot_write: dict[str, str]
    """What to check, per kind of trouble (`trouble.passing`), when the database cannot be
    written to at start."""
    score_counts: type[ScoreCounts]
    """The transaction's score counts (`accumulate`), written the database's way."""
    mastery_counts: type[MasteryCounts]

    def lock_migrations(self, conn: Connection) -> None:
        """Two processes starting at once migrate one after the other from here on."""
        ...

    def named(self, url: URL) -> str:
        """The database, as people name it in a message."""
        ...

    def insert(self, table: Table) -> Insert:
        """The database's INSERT, which knows ON CONFLICT."""
        ...

    def write_clicks(
        self, conn: Connection, answers: Sequence[PostAnswer]
    ) -> list[PostAnswerOutcome]:
        """Clicks on posts (not a game's open question), in order, as each alone would be
        written (`bot.storage.post_answers`)."""
        ...

    def hold(self, conn: Connection, params: dict[str, Any]) -> Any:
        """A game question's click held (`bot.storage.held_answers`): its row, or None if
        the person's earlier click holds the key."""
        ...

    def server_zone(self, conn: Connection, server_id: str) -> str: ...

    def add_points(self, conn: Connection, scored: Scored, zone: str) -> None:
        """A scoring answer's six standings rows, and the score counts they move."""
        ...

    def card(self, conn: Connection, server_id: str, study: Study) -> Card:
        """The person's card for the study's question as this transaction has it (locked
        on PostgreSQL until it ends)."""
        ...

    def put_card(
        self, conn: Connection, server_id: str, study: Study, was: Card, now: Card
    ) -> None:
        """The card moved from `was` (as `card` gave it) to `now` by `study`, and the
        person's mastery count with it when `mastered` flips."""
        ...

    def pending_written(self, conn: Connection) -> None:
        """Whatever the transaction holds back to write at its end, written now: before
        it reads or deletes those rows itself."""
        ...

    def python_order(self, text: ColumnElement[str]) -> ColumnElement[str]:
        """`text` ordered as Python orders str (code points)."""
        ...

    def serialize(self, conn: Connection, space: int, key: str) -> None:
        """Transactions of one `key` (in `space`) run one after the other from here on."""
        ...
