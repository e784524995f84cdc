"""PostgreSQL: a card read locked, moved, and written at once, with the mastery counts."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection

from bot.domain.review import Card, Study
from bot.storage.mastery import CARD, CARD_KEY, CARD_STATE, MasteryCounts, card_keys, card_of
from bot.storage.tables import cards, mastery, mastery_counts
from bot.storage.transactions import accumulate

_LOCKED_CARD = CARD.with_for_update()
_card_up = postgresql.insert(cards)
_CARD_UP = _card_up.on_conflict_do_update(
    index_elements=list(CARD_KEY), set_={c: _card_up.excluded[c] for c in CARD_STATE}
)
_mastery_up = postgresql.insert(mastery)
_MASTERY_UP = _mastery_up.on_conflict_do_update(
    index_elements=[mastery.c.server_id, mastery.c.user_id],
    set_={
        "mastered": mastery.c.mastered + _mastery_up.excluded.mastered,
        "reached_at": _mastery_up.excluded.reached_at,
    },
).returning(mastery.c.mastered)
_counts_up = postgresql.insert(mastery_counts)
_COUNTS_UP = _counts_up.on_conflict_do_update(
    index_elements=[mastery_counts.c.server_id, mastery_counts.c.mastered],
    set_={"users": mastery_counts.c.users + _counts_up.excluded.users},
)


class PostgresMasteryCounts(MasteryCounts):
    def write(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        conn.execute(_COUNTS_UP, rows)


def card(conn: Connection, server_id: str, study: Study) -> Card:
    """The card, its row locked: a person's other process cannot move it meanwhile."""
    row = conn.execute(_LOCKED_CARD, card_keys(server_id, study)).first()
    return card_of(study.deck_id, study.question_id, row)


def put_card(conn: Connection, server_id: str, study: Study, was: Card, now: Card) -> None:
    keys = card_keys(server_id, study)
    state = (now.missed, now.box, now.due, now.reviews, now.right, now.mastered)
    conn.execute(_CARD_UP, keys | dict(zip(CARD_STATE, state, strict=True)))
    if now.mastered != was.mastered:
        step = 1 if now.mastered else -1
        moved = {
            "server_id": server_id,
            "user_id": study.user_id,
            "mastered": step,
            "reached_at": study.at,
        }
        total = int(conn.execute(_MASTERY_UP, moved).scalar_one())
        accumulate(conn, PostgresMasteryCounts).move(server_id, total - step, total)
