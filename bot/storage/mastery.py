"""Cards and mastery kept as answers are stored: each answer (to a post, in a run, in review)
moves its person's card for that question (`bot.domain.review.after_study`, the one rule),
and when the card's `mastered` flips, the person's count and the server's mastery counts
move with it, in the transaction that stored the answer.

So review reads a person's cards (one row per question they met) and the mastery board reads
ten rows of an index plus a sum over the distinct counts above the caller's, whatever the
server's history. The per-person rows (`cards`, `mastery`) are written only in that person's
lane of the group commit; the shared `mastery_counts` rows are summed per transaction and
written once, in key order, as its last statements (`MasteryCounts`), as score counts are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from bot.domain.records import Standing
from bot.domain.review import Card, Source, Study, after_study, local_day
from bot.storage import compiled
from bot.storage.compiled import Compiled, bind
from bot.storage.tables import cards, mastery, mastery_counts, servers
from bot.storage.transactions import accumulate, written

_CARD_KEY = (cards.c.server_id, cards.c.user_id, cards.c.deck_id, cards.c.question_id)

_CARD = select(cards.c.missed, cards.c.box, cards.c.due, cards.c.reviews, cards.c.got_right).where(
    *(column == bindparam(column.name) for column in _CARD_KEY)
)
_ZONE = select(servers.c.timezone).where(servers.c.server_id == bindparam("server_id"))
_STMTS: dict[tuple[str, str], Any] = {}


def _build(dialect: str, name: str) -> Any:
    ins: Any
    if name == "card":
        ins = (sqlite.insert if dialect == "sqlite" else postgresql.insert)(cards)
        return ins.on_conflict_do_update(
            index_elements=list(_CARD_KEY),
            set_={
                c: ins.excluded[c]
                for c in ("missed", "box", "due", "reviews", "got_right", "mastered")
            },
        )
    if name == "mastery":
        ins = (sqlite.insert if dialect == "sqlite" else postgresql.insert)(mastery)
        return ins.on_conflict_do_update(
            index_elements=[mastery.c.server_id, mastery.c.user_id],
            set_={
                "mastered": mastery.c.mastered + ins.excluded.mastered,
                "reached_at": ins.excluded.reached_at,
            },
        ).returning(mastery.c.mastered)
    ins = (sqlite.insert if dialect == "sqlite" else postgresql.insert)(mastery_counts)
    return ins.on_conflict_do_update(
        index_elements=[mastery_counts.c.server_id, mastery_counts.c.mastered],
        set_={"users": mastery_counts.c.users + ins.excluded.users},
    )


def _stmt(conn: Connection, name: str) -> Any:
    """The dialect's upserts, built once per dialect."""
    key = (conn.dialect.name, name)
    found = _STMTS.get(key)
    if found is None:
        found = _STMTS[key] = _build(conn.dialect.name, name)
    return found


# A click's card statements on SQLite's own cursor (`bot.storage.compiled`): SQLAlchemy's
# per-execution bookkeeping would cost several times the statements themselves.
_SQLITE_CARD = Compiled(_CARD)
_SQLITE_CARD_UP = Compiled(_build("sqlite", "card"))
_SQLITE_MASTERY_UP = Compiled(_build("sqlite", "mastery"))
_SQLITE_ZONE = Compiled(_ZONE)


def server_zone(conn: Connection, server_id: str) -> str:
    keys = {"server_id": server_id}
    if conn.dialect.name == "sqlite":
        zone: str | None = _SQLITE_ZONE.scalar(conn, keys)
    else:
        zone = conn.scalar(_ZONE, keys)
    return zone or "UTC"


def _card_of(study: Study, row: Any) -> Card:
    if row is None:
        return Card(study.deck_id, study.question_id, False, 0, None, 0, False)
    due = date.fromisoformat(row.due) if isinstance(row.due, str) else row.due
    return Card(
        study.deck_id,
        study.question_id,
        bool(row.missed),
        int(row.box),
        due,
        int(row.reviews),
        bool(row.got_right),
    )


def keep_card(conn: Connection, server_id: str, study: Study, zone: str | None = None) -> Card:
    """Applies one stored answer (`study`) to its person's card, in the transaction that
    stored it, and moves their mastery count if the card's `mastered` flips. `zone`: the
    server's, if the caller knows it (a card's due day is fixed in it now)."""
    keys = {
        "server_id": server_id,
        "user_id": study.user_id,
        "deck_id": study.deck_id,
        "question_id": study.question_id,
    }
    on_sqlite = conn.dialect.name == "sqlite"
    if on_sqlite:
        written(conn, PendingPlays)
        before = _card_of(study, _SQLITE_CARD.first(conn, keys))
    else:  # the row locked: a person's other process cannot move it meanwhile
        before = _card_of(study, conn.execute(_CARD.with_for_update(), keys).first())
    day = local_day(study.at, zone or server_zone(conn, server_id))
    after = after_study(before, study, day)
    row = keys | {
        "missed": after.missed,
        "box": after.box,
        "due": after.due,
        "reviews": after.reviews,
        "got_right": after.right,
        "mastered": after.mastered,
    }
    if on_sqlite:
        row["due"] = None if after.due is None else after.due.isoformat()
        _SQLITE_CARD_UP.execute(conn, row).close()
    else:
        conn.execute(_stmt(conn, "card"), row)
    if after.mastered != before.mastered:
        step = 1 if after.mastered else -1
        moved = {
            "server_id": server_id,
            "user_id": study.user_id,
            "mastered": step,
            "reached_at": study.at,
        }
        if on_sqlite:
            total = int(_SQLITE_MASTERY_UP.scalar(conn, moved))
        else:
            total = int(conn.execute(_stmt(conn, "mastery"), moved).scalar_one())
        accumulate(conn, MasteryCounts).move(server_id, total - step, total)
    return after


def keep_played(
    conn: Connection,
    server_id: str,
    user_id: str,
    deck_id: str,
    question_id: str,
    correct: bool,
    at: datetime,
    zone: str | None = None,
) -> None:
    """`keep_card` for an answer to a post or in a run (on SQLite at the transaction's end:
    `PendingPlays`)."""
    study = Study(user_id, deck_id, question_id, correct, at, Source.PLAY)
    if conn.dialect.name == "sqlite":
        accumulate(conn, PendingPlays).add(server_id, study, zone or server_zone(conn, server_id))
        return
    keep_card(conn, server_id, study, zone)


class PendingPlays:
    """SQLite: a transaction's answers to posts and runs, applied to their cards at its end,
    a read and an upsert per hundred cards instead of per answer (as `PendingPoints` does
    for standings, and for the same reason: each statement costs the writer thread a wait
    for the GIL). In the order they were stored; whatever reads a card or a mastery count
    in the transaction first writes these (`transactions.written`)."""

    ROWS = 100
    FEEDS = True
    """Flushed before the mastery counts it moves (`transactions._flush`)."""

    def __init__(self) -> None:
        self._plays: list[tuple[str, Study, str]] = []

    def add(self, server_id: str, study: Study, zone: str) -> None:
        self._plays.append((server_id, study, zone))

    def flush(self, conn: Connection) -> None:
        plays, self._plays = self._plays, []
        if not plays:
            return
        keys = list(dict.fromkeys(_key(server, study) for server, study, _ in plays))
        stored: dict[CardKey, Card] = {}
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for some in compiled.pieces(keys, self.ROWS):
                found = compiled.json_rows(
                    cursor, _sqlite_cards_of(len(some)), _CARDS_OF, [v for k in some for v in k]
                )
                for server, user, deck, question, *state in found:
                    stored[(server, user, deck, question)] = _stored_card(deck, question, state)
            now: dict[CardKey, Card] = {}
            for server, study, zone in plays:
                key = _key(server, study)
                card = now.get(key) or stored.get(key) or _card_of(study, None)
                now[key] = after_study(card, study, local_day(study.at, zone))
            written_cards = list(now.items())
            for rows in compiled.pieces(written_cards, self.ROWS):
                compiled.run(
                    cursor,
                    _sqlite_cards_up(len(rows)),
                    [value for key, card in rows for value in (*key, *_card_state(card))],
                )
        finally:
            cursor.close()
        steps: defaultdict[tuple[str, str], int] = defaultdict(int)
        for key, card in now.items():
            was = stored.get(key)
            if card.mastered != (was is not None and was.mastered):
                steps[(key[0], key[1])] += 1 if card.mastered else -1
        last = {(server, study.user_id): study.at for server, study, _ in plays}
        moved = sorted((key, step) for key, step in steps.items() if step)
        if moved:
            self._count(conn, moved, last)

    def _count(
        self,
        conn: Connection,
        moved: list[tuple[tuple[str, str], int]],
        last: dict[tuple[str, str], datetime],
    ) -> None:
        """People's mastery counts moved by `moved` steps: their counts read with one
        statement, written with another, and the server's counts moved to match."""
        counts = accumulate(conn, MasteryCounts)
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for some in compiled.pieces(moved, self.ROWS):
                people = [value for (key, _) in some for value in key]
                had = {
                    (server, user): int(count)
                    for server, user, count in compiled.json_rows(
                        cursor, _sqlite_mastery_of(len(some)), _MASTERY_OF, people
                    )
                }
                rows = [value for (key, step) in some for value in (*key, step, bind(last[key]))]
                compiled.run(cursor, _sqlite_mastery_up(len(some)), rows)
                for key, step in some:
                    was = had.get(key, 0)
                    counts.move(key[0], was, was + step)
        finally:
            cursor.close()


CardKey = tuple[str, str, str, str]
"""(server, user, deck, question)."""


def _key(server_id: str, study: Study) -> CardKey:
    return (server_id, study.user_id, study.deck_id, study.question_id)


def _stored_card(deck_id: str, question_id: str, state: list[Any]) -> Card:
    missed, box, due, reviews, got_right = state
    day = date.fromisoformat(due) if isinstance(due, str) else due
    return Card(deck_id, question_id, bool(missed), int(box), day, int(reviews), bool(got_right))


def _card_state(card: Card) -> tuple[Any, ...]:
    """The card's columns as SQLite stores them (`_CARD_STATE`)."""
    due = None if card.due is None else card.due.isoformat()
    return (int(card.missed), card.box, due, card.reviews, int(card.right), int(card.mastered))


_CARD_STATE = ("missed", "box", "due", "reviews", "got_right", "mastered")


@lru_cache(maxsize=8)
def _sqlite_cards_of(keys: int) -> str:
    """The stored cards of `keys` (server, user, deck, question) keys, each found by the
    primary key (a row-value IN list would scan the table)."""
    rows = compiled.values(4, keys)
    return (
        f"WITH wanted(s, u, d, q) AS (VALUES {rows}) "
        "SELECT server_id, user_id, deck_id, question_id, missed, box, due, reviews, got_right "
        "FROM wanted JOIN cards ON server_id = wanted.s AND user_id = wanted.u "
        "AND deck_id = wanted.d AND question_id = wanted.q"
    )


_CARDS_OF = (
    "server_id",
    "user_id",
    "deck_id",
    "question_id",
    "missed",
    "box",
    "due",
    "reviews",
    "got_right",
)
_MASTERY_OF = ("server_id", "user_id", "mastered")


@lru_cache(maxsize=8)
def _sqlite_mastery_of(people: int) -> str:
    """The mastery counts of `people` (server, user) pairs, each found by the primary key."""
    rows = compiled.values(2, people)
    return (
        f"WITH wanted(s, u) AS (VALUES {rows}) "
        "SELECT server_id, user_id, mastered FROM wanted "
        "JOIN mastery ON server_id = wanted.s AND user_id = wanted.u"
    )


@lru_cache(maxsize=8)
def _sqlite_mastery_up(people: int) -> str:
    """`people` mastery counts moved by a step each (a person with no row gets one)."""
    rows = compiled.values(4, people)
    return (
        f"INSERT INTO mastery (server_id, user_id, mastered, reached_at) VALUES {rows} "
        "ON CONFLICT (server_id, user_id) DO UPDATE SET "
        "mastered = mastery.mastered + excluded.mastered, reached_at = excluded.reached_at"
    )


@lru_cache(maxsize=8)
def _sqlite_cards_up(count: int) -> str:
    rows = compiled.values(4 + len(_CARD_STATE), count)
    keys = "server_id, user_id, deck_id, question_id"
    return (
        f"INSERT INTO cards ({keys}, {', '.join(_CARD_STATE)}) VALUES {rows} "
        f"ON CONFLICT ({keys}) DO UPDATE SET "
        + ", ".join(f"{c} = excluded.{c}" for c in _CARD_STATE)
    )


class MasteryCounts:
    """One transaction's moves of people between mastery counts, per (server, count)."""

    def __init__(self) -> None:
        self._users: defaultdict[tuple[str, int], int] = defaultdict(int)

    def move(self, server_id: str, old: int, new: int) -> None:
        """A person went from `old` questions mastered to `new` (0 is not counted)."""
        if new > 0:
            self._users[(server_id, new)] += 1
        if old > 0:
            self._users[(server_id, old)] -= 1

    def flush(self, conn: Connection) -> None:
        rows = [
            {"server_id": server_id, "mastered": count, "users": users}
            for (server_id, count), users in sorted(self._users.items())
            if users
        ]
        self._users.clear()
        if rows and conn.dialect.name == "sqlite":
            compiled.add_counts(conn, "mastery_counts", ("server_id", "mastered"), rows)
        elif rows:
            conn.execute(_stmt(conn, "counts"), rows)


def _person(table: Any, server_id: str, user_id: str) -> ColumnElement[bool]:
    return and_(table.c.server_id == server_id, table.c.user_id == user_id)


def forget_mastery(conn: Connection, server_id: str, user_id: str) -> None:
    """Deletes a person's cards and count, and takes them out of the server's counts."""
    written(conn, PendingPlays)
    count = conn.scalar(select(mastery.c.mastered).where(_person(mastery, server_id, user_id)))
    if count:
        accumulate(conn, MasteryCounts).move(server_id, count, 0)
    conn.execute(delete(mastery).where(_person(mastery, server_id, user_id)))
    conn.execute(delete(cards).where(_person(cards, server_id, user_id)))


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
        ).where(_person(cards, server_id, user_id))
    )
    return [
        Card(
            r.deck_id,
            r.question_id,
            bool(r.missed),
            int(r.box),
            r.due,
            int(r.reviews),
            bool(r.got_right),
        )
        for r in rows
    ]


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
        select(mastery.c.mastered, mastery.c.reached_at).where(_person(mastery, server_id, user_id))
    ).first()
    if row is None or row.mastered <= 0:
        return None
    better = conn.scalar(
        select(func.sum(mastery_counts.c.users)).where(
            mastery_counts.c.server_id == server_id, mastery_counts.c.mastered > row.mastered
        )
    )
    return Standing(user_id, int(row.mastered), row.reached_at, int(better or 0) + 1)
