"""SQLite: cards and mastery counts, held by the transaction and written at its end.

A transaction's answers move cards in memory (`PendingCards`: the card as the transaction
has it, read once), and the cards are written as its last statements, an upsert per hundred
cards, with the people's mastery counts when their `mastered` flipped; for the same reason
as standings (`bot.storage.sqlite.points`): each statement costs the writer thread a wait
for the GIL.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy.engine import Connection

from bot.domain.review import Card
from bot.storage.mastery import CARD, CARD_STATE, ZONE, CardKey, MasteryCounts, card_of
from bot.storage.sqlite import compiled
from bot.storage.sqlite.compiled import Compiled, bind
from bot.storage.transactions import accumulate

_CARD = Compiled(CARD)
ZONE_OF = Compiled(ZONE)
"""The server's zone, on the driver's own cursor."""


class SqliteMasteryCounts(MasteryCounts):
    def write(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        compiled.add_counts(conn, "mastery_counts", ("server_id", "mastered"), rows)


class PendingCards:
    """The cards a transaction's answers moved: as it found them (`was`) and as they are now,
    written at its end with the mastery counts they move. In the order they were first moved;
    whatever reads a card or a mastery count in the transaction first writes these
    (`Sqlite.pending_written`)."""

    ROWS = 100
    FEEDS = True
    """Flushed before the mastery counts it moves (`transactions._flush`)."""

    def __init__(self) -> None:
        self._cards: dict[CardKey, tuple[Card, Card]] = {}
        """key -> (the card as the transaction found it, the card now)."""
        self._last: dict[tuple[str, str], datetime] = {}
        """(server, user) -> when their last answer moving a card was given."""

    def now(self, key: CardKey) -> Card | None:
        """The card as this transaction moved it, if it did."""
        found = self._cards.get(key)
        return None if found is None else found[1]

    def card(self, conn: Connection, key: CardKey) -> Card:
        """The card as this transaction has it: moved here, or read (one statement)."""
        now = self.now(key)
        if now is not None:
            return now
        server, user, deck, question = key
        keys = {"server_id": server, "user_id": user, "deck_id": deck, "question_id": question}
        return card_of(deck, question, _CARD.first(conn, keys))

    def put(self, key: CardKey, was: Card, now: Card, at: datetime) -> None:
        """The card moved to `now`; `was` is how it was read, if this is its first move."""
        found = self._cards.get(key)
        self._cards[key] = (was if found is None else found[0], now)
        self._last[(key[0], key[1])] = at

    def flush(self, conn: Connection) -> None:
        moved, self._cards = list(self._cards.items()), {}
        last, self._last = self._last, {}
        if not moved:
            return
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for rows in compiled.pieces(moved, self.ROWS):
                compiled.run(
                    cursor,
                    _cards_up(len(rows)),
                    [value for key, (_, card) in rows for value in (*key, *_state(card))],
                )
        finally:
            cursor.close()
        steps: defaultdict[tuple[str, str], int] = defaultdict(int)
        for key, (was, now) in moved:
            if now.mastered != was.mastered:
                steps[(key[0], key[1])] += 1 if now.mastered else -1
        counted = sorted((person, step) for person, step in steps.items() if step)
        if counted:
            _count(conn, counted, last, self.ROWS)


def _count(
    conn: Connection,
    moved: list[tuple[tuple[str, str], int]],
    last: dict[tuple[str, str], datetime],
    per: int,
) -> None:
    """People's mastery counts moved by `moved` steps: their counts read with one statement,
    written with another, and the server's counts moved to match."""
    counts = accumulate(conn, SqliteMasteryCounts)
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        for some in compiled.pieces(moved, per):
            people = [value for (key, _) in some for value in key]
            had = {
                (server, user): int(count)
                for server, user, count in compiled.json_rows(
                    cursor, _mastery_of(len(some)), _MASTERY_OF, people
                )
            }
            rows = [value for (key, step) in some for value in (*key, step, bind(last[key]))]
            compiled.run(cursor, _mastery_up(len(some)), rows)
            for key, step in some:
                was = had.get(key, 0)
                counts.move(key[0], was, was + step)
    finally:
        cursor.close()


def _state(card: Card) -> tuple[Any, ...]:
    """The card's columns as SQLite stores them (`CARD_STATE`)."""
    due = None if card.due is None else card.due.isoformat()
    return (int(card.missed), card.box, due, card.reviews, int(card.right), int(card.mastered))


_MASTERY_OF = ("server_id", "user_id", "mastered")


@lru_cache(maxsize=8)
def _mastery_of(people: int) -> str:
    """The mastery counts of `people` (server, user) pairs, each found by the primary key."""
    rows = compiled.values(2, people)
    return (
        f"WITH wanted(s, u) AS (VALUES {rows}) "
        "SELECT server_id, user_id, mastered FROM wanted "
        "JOIN mastery ON server_id = wanted.s AND user_id = wanted.u"
    )


@lru_cache(maxsize=8)
def _mastery_up(people: int) -> str:
    """`people` mastery counts moved by a step each (a person with no row gets one)."""
    rows = compiled.values(4, people)
    return (
        f"INSERT INTO mastery (server_id, user_id, mastered, reached_at) VALUES {rows} "
        "ON CONFLICT (server_id, user_id) DO UPDATE SET "
        "mastered = mastery.mastered + excluded.mastered, reached_at = excluded.reached_at"
    )


@lru_cache(maxsize=8)
def _cards_up(count: int) -> str:
    rows = compiled.values(4 + len(CARD_STATE), count)
    keys = "server_id, user_id, deck_id, question_id"
    return (
        f"INSERT INTO cards ({keys}, {', '.join(CARD_STATE)}) VALUES {rows} "
        f"ON CONFLICT ({keys}) DO UPDATE SET "
        + ", ".join(f"{c} = excluded.{c}" for c in CARD_STATE)
    )
