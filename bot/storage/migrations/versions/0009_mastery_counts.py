"""Cards and mastery counts, backfilled: the mastery board without replaying every answer.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04

`/quiz leaderboard mastery` rebuilt every person's cards from every answer of the server on
each call (1,000,000 answers: 12.7 s, the event loop blocked 6.7 s). From here each answer
moves its person's card (`cards`), and a card whose `mastered` flips moves the person's
count (`mastery`) and the server's counts of people per count (`mastery_counts`), in the
transaction that stores the answer (`bot.storage.mastery`).

The backfill folds every answer already stored, in time order, through the rule the store
applied at write time when this migration was written (`bot.domain.review.after_study` of
2026-12-04, copied below as `_after_study` so that a later change of the live rule cannot
change what this migration does on a fresh install), in the server's current time zone; it
streams one card at a time, so its memory does not grow with the history.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date, datetime, timedelta
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import UtcDateTime

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 5000


# The card rule as it stood at this revision (bot.domain.review, 2026-12-04), frozen.
_INTERVALS = (1, 3, 7, 16, 35)
_AGAIN_AFTER = _INTERVALS[0]


class _Card(NamedTuple):  # not a dataclass: alembic loads this file outside sys.modules
    missed: bool = False
    box: int = 0
    due: date | None = None
    reviews: int = 0
    right: bool = False

    @property
    def mastered(self) -> bool:
        return self.box >= 1 if self.missed else self.right


def _after_study(card: _Card, correct: bool, review: bool, day: date) -> _Card:
    """The card after one more answer (`review`: given in review), on local date `day`."""
    if not review:
        if correct:
            return card._replace(right=True)
        return card._replace(missed=True, box=0, due=day)
    reviews = card.reviews + 1
    if not card.missed:
        return card._replace(reviews=reviews)
    if not correct:
        return card._replace(box=0, due=day + timedelta(days=_AGAIN_AFTER), reviews=reviews)
    box = card.box + 1
    due = day + timedelta(days=_INTERVALS[box - 1]) if box <= len(_INTERVALS) else None
    return card._replace(box=box, due=due, reviews=reviews)


def _local_day(at: datetime, zone: str) -> date:
    return at.astimezone(ZoneInfo(zone)).date()


def upgrade() -> None:
    op.create_table(
        "cards",
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("deck_id", sa.String(), nullable=False),
        sa.Column("question_id", sa.String(), nullable=False),
        sa.Column("missed", sa.Boolean(), nullable=False),
        sa.Column("box", sa.Integer(), nullable=False),
        sa.Column("due", sa.Date(), nullable=True),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("got_right", sa.Boolean(), nullable=False),
        sa.Column("mastered", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint(
            "server_id", "user_id", "deck_id", "question_id", name=op.f("pk_cards")
        ),
    )
    op.create_table(
        "mastery",
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("mastered", sa.Integer(), nullable=False),
        sa.Column("reached_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("server_id", "user_id", name=op.f("pk_mastery")),
    )
    op.create_table(
        "mastery_counts",
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("mastered", sa.Integer(), nullable=False),
        sa.Column("users", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("server_id", "mastered", name=op.f("pk_mastery_counts")),
    )
    _backfill(op.get_bind())
    op.create_index(
        "ix_mastery_rank",
        "mastery",
        ["server_id", sa.text("mastered DESC"), "reached_at", "user_id"],
    )


def downgrade() -> None:
    op.drop_index("ix_mastery_rank", table_name="mastery")
    op.drop_table("mastery_counts")
    op.drop_table("mastery")
    op.drop_table("cards")


_answers = sa.table(
    "answers",
    sa.column("id", sa.Integer()),
    sa.column("server_id", sa.String()),
    sa.column("user_id", sa.String()),
    sa.column("deck_id", sa.String()),
    sa.column("question_id", sa.String()),
    sa.column("correct", sa.Boolean()),
    sa.column("answered_at", UtcDateTime()),
)
_reviews = sa.table("review_answers", *(sa.column(c.name, c.type) for c in _answers.c))
_servers = sa.table("servers", sa.column("server_id", sa.String()), sa.column("timezone"))
_cards = sa.table(
    "cards",
    *(
        sa.column(name)
        for name in ("server_id", "user_id", "deck_id", "question_id", "missed", "box")
    ),
    sa.column("due", sa.Date()),
    *(sa.column(name) for name in ("reviews", "got_right", "mastered")),
)
_mastery = sa.table(
    "mastery",
    sa.column("server_id"),
    sa.column("user_id"),
    sa.column("mastered"),
    sa.column("reached_at", UtcDateTime()),
)


def _studies(bind: sa.Connection) -> Iterator[Any]:
    """Every answer and review answer, a card's together, in time order (a play answer
    before a review answer of the same instant, as the reads that replayed them had it)."""
    columns = [
        "server_id",
        "user_id",
        "deck_id",
        "question_id",
        "correct",
        "answered_at",
        "id",
    ]
    played = sa.select(*(_answers.c[c] for c in columns), sa.literal(0).label("kind"))
    reviewed = sa.select(*(_reviews.c[c] for c in columns), sa.literal(1).label("kind"))
    every = sa.union_all(played, reviewed).subquery()
    stmt = sa.select(every).order_by(
        every.c.server_id,
        every.c.user_id,
        every.c.deck_id,
        every.c.question_id,
        every.c.answered_at,
        every.c.kind,
        every.c.id,
    )
    yield from bind.execute(stmt.execution_options(yield_per=BATCH))


def _backfill(bind: sa.Connection) -> None:
    zones = {r.server_id: r.timezone or "UTC" for r in bind.execute(sa.select(_servers))}
    rows: list[dict[str, Any]] = []
    people: dict[tuple[str, str], tuple[int, datetime]] = {}
    key: tuple[str, str, str, str] | None = None
    card: _Card | None = None
    flipped: datetime | None = None

    def close() -> None:
        if key is None or card is None:
            return
        server_id, user_id, deck_id, question_id = key
        rows.append(
            {
                "server_id": server_id,
                "user_id": user_id,
                "deck_id": deck_id,
                "question_id": question_id,
                "missed": card.missed,
                "box": card.box,
                "due": card.due,
                "reviews": card.reviews,
                "got_right": card.right,
                "mastered": card.mastered,
            }
        )
        if flipped is not None:  # its count changed then (up or down), as the store has it
            count, reached = people.get((server_id, user_id), (0, flipped))
            people[(server_id, user_id)] = (count + card.mastered, max(reached, flipped))
        if len(rows) >= BATCH:
            bind.execute(sa.insert(_cards), rows)
            rows.clear()

    for r in _studies(bind):
        here = (r.server_id, r.user_id, r.deck_id, r.question_id)
        if here != key:
            close()
            key, flipped = here, None
            card = _Card()
        assert card is not None
        day = _local_day(r.answered_at, zones.get(r.server_id, "UTC"))
        after = _after_study(card, bool(r.correct), bool(r.kind), day)
        if after.mastered != card.mastered:
            flipped = r.answered_at
        card = after
    close()
    if rows:
        bind.execute(sa.insert(_cards), rows)
    mastered = [
        {"server_id": s, "user_id": u, "mastered": n, "reached_at": at}
        for (s, u), (n, at) in people.items()
        if n > 0
    ]
    for start in range(0, len(mastered), BATCH):
        bind.execute(sa.insert(_mastery), mastered[start : start + BATCH])
    op.execute(
        "INSERT INTO mastery_counts (server_id, mastered, users)"
        " SELECT server_id, mastered, count(*) FROM mastery WHERE mastered > 0"
        " GROUP BY server_id, mastered"
    )
