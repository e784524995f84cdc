"""Cards and mastery kept as answers are stored: each answer (to a post, in a run, in review)
moves its person's card for that question (`bot.domain.review.after_study`, through
`bot.domain.scoring.kept` for answers that may score), and when the card's `mastered` flips,
the person's count and the server's mastery counts move with it, in the transaction that
stored the answer.

So review reads a person's cards (one row per question they met) and the mastery board reads
ten rows of an index plus a sum over the distinct counts above the caller's, whatever the
server's history. The per-person rows (`cards`, `mastery`) are written only in that person's
lane of the group commit; the shared `mastery_counts` rows are summed per transaction and
written once, in key order, as its last statements (`MasteryCounts`), as score counts are.
How a card is read and written is the dialect's (`Dialect.card`, `Dialect.put_card`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, func, select
from sqlalchemy.engine import Connection

from bot.domain.records import Standing
from bot.domain.review import Card, Study
from bot.storage.count_moves import CountMoves
from bot.storage.tables import cards, mastery, mastery_counts, servers

CARD_KEY = (cards.c.server_id, cards.c.user_id, cards.c.deck_id, cards.c.question_id)
CARD_STATE = ("missed", "box", "due", "reviews", "got_right", "mastered")
"""A card's columns besides its key, as the dialects' upserts write them."""
CARD = select(cards.c.missed, cards.c.box, cards.c.due, cards.c.reviews, cards.c.got_right).where(
    *(column == bindparam(column.name) for column in CARD_KEY)
)
"""A card by its key (`card_keys`)."""
ZONE = select(servers.c.timezone).where(servers.c.server_id == bindparam("server_id"))

CardKey = tuple[str, str, str, str]
"""(server, user, deck, question)."""


def card_keys(server_id: str, study: Study) -> dict[str, str]:
    return {
        "server_id": server_id,
        "user_id": study.user_id,
        "deck_id": study.deck_id,
        "question_id": study.question_id,
    }


def card_of(deck_id: str, question_id: str, state: Sequence[Any] | None) -> Card:
    """A card from its stored (missed, box, due, reviews, got_right); a new one for None."""
    if state is None:
        return Card.new(deck_id, question_id)
    missed, box, due, reviews, got_right = state
    day = date.fromisoformat(due) if isinstance(due, str) else due
    return Card(deck_id, question_id, bool(missed), int(box), day, int(reviews), bool(got_right))


class MasteryCounts(CountMoves):
    """One transaction's moves of people between mastery counts, per (server, count); each
    dialect writes them its way (`write`)."""

    KEYS = ("server_id", "mastered")

    def move(self, server_id: str, old: int, new: int) -> None:
        """A person went from `old` questions mastered to `new` (0 is not counted)."""
        if new > 0:
            self._users[(server_id, new)] += 1
        if old > 0:
            self._users[(server_id, old)] -= 1


def person(table: Any, server_id: str, user_id: str) -> ColumnElement[bool]:
    return and_(table.c.server_id == server_id, table.c.user_id == user_id)


def read_cards(conn: Connection, server_id: str, user_id: str) -> list[Card]:
    rows = conn.execute(
        select(
            cards.c.deck_id,
            cards.c.question_id,
            cards.c.missed,
            cards.c.box,
            cards.c.due,
            cards.c.reviews,
            cards.c.got_right,
        ).where(person(cards, server_id, user_id))
    )
    return [card_of(r.deck_id, r.question_id, tuple(r)[2:]) for r in rows]


def read_board(conn: Connection, server_id: str, limit: int) -> Sequence[Standing]:
    """The top `limit` of the server's mastery board, ranked (ties share a rank)."""
    top = (
        select(mastery.c.user_id, mastery.c.mastered, mastery.c.reached_at)
        .where(mastery.c.server_id == server_id, mastery.c.mastered > 0)
        .order_by(mastery.c.mastered.desc(), mastery.c.reached_at, mastery.c.user_id)
        .limit(limit)
        .subquery("top")
    )
    ranked = select(top, func.rank().over(order_by=top.c.mastered.desc()).label("rank")).order_by(
        top.c.mastered.desc(), top.c.reached_at, top.c.user_id
    )
    return [
        Standing(r.user_id, int(r.mastered), r.reached_at, int(r.rank))
        for r in conn.execute(ranked)
    ]


def read_standing(conn: Connection, server_id: str, user_id: str) -> Standing | None:
    """One person's row of the mastery board: 1 + the people with more mastered."""
    row = conn.execute(
        select(mastery.c.mastered, mastery.c.reached_at).where(person(mastery, server_id, user_id))
    ).first()
    if row is None or row.mastered <= 0:
        return None
    better = conn.scalar(
        select(func.sum(mastery_counts.c.users)).where(
            mastery_counts.c.server_id == server_id, mastery_counts.c.mastered > row.mastered
        )
    )
    return Standing(user_id, int(row.mastered), row.reached_at, int(better or 0) + 1)
