"""SQLite: a transaction's clicks on posts, written together.

The writer thread gives up the GIL on every step of every statement and waits for it back
behind the event loop, so a transaction's clicks are read with one statement (`_Reads`: each
click's post, what its reply shows, whether the person met the question, answered the post,
and their card for it), decided here in the clicks' order by `bot.domain.scoring.kept` (of
two clicks that would claim the same row the first gets it, as when they run one by one),
and their first meetings and answers inserted with one statement each. Their standings rows
and cards are written at the transaction's end (`points.PendingPoints`, `cards.PendingCards`).
The transaction holds SQLite's write lock (BEGIN IMMEDIATE), so what it read stands.
"""

from __future__ import annotations

import json
from collections import namedtuple
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from sqlalchemy import BindParameter, bindparam, exists, func, literal_column, select, table
from sqlalchemy.engine import Connection
from sqlalchemy.sql.visitors import replacement_traverse

from bot.domain.records import AnswerStatus, PostAnswer, PostAnswerOutcome, PostRecord
from bot.domain.review import Source, Study, local_day
from bot.domain.scoring import kept
from bot.storage.mastery import card_of
from bot.storage.player import (
    NEWEST_SCHEDULED,
    POST_CHOICE,
    after_answer,
    player_columns,
    player_of,
    read_player,
)
from bot.storage.post_answers import ANSWER_COLUMNS, MEETING_COLUMNS
from bot.storage.records import post_record
from bot.storage.scores import Scored
from bot.storage.sqlite import compiled
from bot.storage.sqlite.cards import PendingCards
from bot.storage.sqlite.compiled import Compiled, bind, utc
from bot.storage.sqlite.points import PendingPoints
from bot.storage.tables import cards, first_meetings, posts
from bot.storage.transactions import accumulate


def write_clicks(conn: Connection, answers: Sequence[PostAnswer]) -> list[PostAnswerOutcome]:
    """The clicks' writes, in order, as each alone would run (see the module doc)."""
    batch = _Batch(conn)
    read = _READS.run(conn, answers)
    outcomes = [batch.decide(a, target) for a, target in zip(answers, read, strict=True)]
    compiled.run_rows(conn, _meetings, MEETING_COLUMNS, batch.meetings)
    compiled.run_rows(conn, _answers, ANSWER_COLUMNS, batch.stored)
    for at in batch.unread:  # the reply's facts, read once the answers are stored
        answer = answers[at]
        player = read_player(conn, answer.post.server_id, answer.user_id)
        outcomes[at] = replace(outcomes[at], player=player)
    return outcomes


class _Batch:
    """A transaction's clicks, decided in order: the rows they insert, and what each click
    before them in the batch claimed (of two that would claim the same row, the first gets
    it)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.meetings: list[dict[str, Any]] = []
        self.stored: list[dict[str, Any]] = []
        self.unread: list[int] = []
        """The NEW outcomes whose reply needs a read once the answers are stored."""
        self._decided = 0
        self._met: set[tuple[Any, ...]] = set()
        self._chosen: dict[tuple[int, str], int] = {}
        self._cards = accumulate(conn, PendingCards)
        self._points = accumulate(conn, PendingPoints)

    def decide(self, answer: PostAnswer, target: Any) -> PostAnswerOutcome:
        self._decided += 1
        server_id, user_id = answer.post.server_id, answer.user_id
        if target is None:
            nobody = read_player(self.conn, server_id, user_id)
            return PostAnswerOutcome(AnswerStatus.CLOSED, None, nobody, None)
        post = post_record(target)
        before = player_of(target, server_id)
        if post.closed_at is not None:
            return PostAnswerOutcome(AnswerStatus.CLOSED, target.earlier, before, post)
        earlier = target.earlier
        if earlier is None:
            earlier = self._chosen.get((post.id, user_id))
        if earlier is not None:  # the person's first click on the post stands
            return PostAnswerOutcome(AnswerStatus.DUPLICATE, earlier, before, post)
        points = self._store(answer, post, target, before.server.timezone)
        player = after_answer(before, target, answer.correct, points)
        if player is None:
            self.unread.append(self._decided - 1)
            player = before
        return PostAnswerOutcome(AnswerStatus.NEW, answer.choice, player, post, points)

    def _store(self, answer: PostAnswer, post: PostRecord, target: Any, zone: str) -> int:
        """A first click on an open post, by `kept`: its first meeting (if it is one) and
        answer to insert, its points and card held to the transaction's end; its points."""
        server_id, user_id = post.server_id, answer.user_id
        meeting = (server_id, post.season, user_id, post.deck_id, post.question_id)
        first = not target.met and meeting not in self._met
        key = (server_id, user_id, post.deck_id, post.question_id)
        study = Study(
            user_id, post.deck_id, post.question_id, answer.correct, answer.at, Source.PLAY
        )
        was = self._cards.now(key) or card_of(post.deck_id, post.question_id, target.card)
        now = kept(study, answer.points, first, was, local_day(answer.at, zone))
        if first:
            self._met.add(meeting)
            self.meetings.append(dict(zip(MEETING_COLUMNS, (*meeting, answer.at), strict=True)))
        self._chosen[(post.id, user_id)] = answer.choice
        row = (*meeting, post.id, answer.choice, answer.correct, now.points, answer.at)
        self.stored.append(dict(zip(ANSWER_COLUMNS, row, strict=True)))
        if now.points:
            scored = Scored(server_id, post.season, post.deck_id, user_id, now.points, answer.at)
            self._points.add(scored, zone)
        self._cards.put(key, was, now.card, answer.at)
        return now.points


class _Reads:
    """What a transaction's clicks read, in one statement that gives one row (a JSON array of
    each click's facts), so the writer thread waits for the GIL once for them all. A click's
    facts are the post's columns with what its reply shows (`player_columns`), the choice of
    the person's earlier answer to the post, whether they already met its question, and
    their card for it (a JSON array of `card_of`'s state, or null); None for a post not
    found. The click's values are read from a VALUES table (`clicks`) instead of bound."""

    ROWS = 200
    """Clicks a statement: 800 parameters, inside every SQLite's limit."""

    def __init__(self) -> None:
        user: Any = bindparam("user_id")
        met = exists().where(
            first_meetings.c.server_id == posts.c.server_id,
            first_meetings.c.season == posts.c.season,
            first_meetings.c.user_id == user,
            first_meetings.c.deck_id == posts.c.deck_id,
            first_meetings.c.question_id == posts.c.question_id,
        )
        card = select(
            func.json_array(
                cards.c.missed, cards.c.box, cards.c.due, cards.c.reviews, cards.c.got_right
            )
        ).where(
            cards.c.server_id == posts.c.server_id,
            cards.c.user_id == user,
            cards.c.deck_id == posts.c.deck_id,
            cards.c.question_id == posts.c.question_id,
        )
        facts: list[Any] = [
            *posts.c,
            *player_columns(scalar=True),
            NEWEST_SCHEDULED,
            POST_CHOICE.scalar_subquery().label("earlier"),
            met.label("met"),
            card.scalar_subquery().label("card"),
        ]
        one = select(func.json_array(*facts)).where(posts.c.id == bindparam("post_id"))
        each = func.json_array(literal_column("clicks.i"), one.scalar_subquery())
        stmt = select(func.json_group_array(each)).select_from(table("clicks"))
        # Named, not bound to a table: SQLAlchemy adds no FROM for them, and SQLite finds
        # `clicks` in the outermost query, however deep the subquery.
        from_clicks: dict[str, Any] = {
            name: literal_column(f"clicks.{name}") for name in ("post_id", "server_id", "user_id")
        }

        def click_value(element: Any) -> Any:
            if isinstance(element, BindParameter) and element.key in from_clicks:
                return from_clicks[element.key]
            return None

        self._select = Compiled(replacement_traverse(stmt, {}, click_value))  # type: ignore[call-overload]
        unbound = [n for n in self._select.names if n not in self._select.fixed]
        if unbound:
            raise AssertionError(f"the clicks' read leaves {unbound} unbound")
        self._fixed = [bind(self._select.fixed[n]) for n in self._select.names]
        self._row = namedtuple("ClickRead", [fact.name for fact in facts])  # type: ignore[misc]
        self._sql = lru_cache(maxsize=8)(self._sql_for)

    def run(self, conn: Connection, answers: Sequence[PostAnswer]) -> list[Any]:
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        read: list[Any] = []
        try:
            for some in compiled.pieces(answers, self.ROWS):
                args: list[Any] = []
                for i, answer in enumerate(some):
                    args += (i, answer.post.id, answer.post.server_id, answer.user_id)
                sql = self._sql(len(some))
                (found,) = compiled.run(cursor, sql, args + self._fixed).fetchone()
                facts = sorted(json.loads(found), key=lambda pair: int(pair[0]))
                read += [None if f is None else self._made(f) for _, f in facts]
        finally:
            cursor.close()
        return read

    def _made(self, facts: list[Any]) -> Any:
        target: Any = self._row(*facts)
        card = target.card
        return target._replace(
            opened_at=utc(target.opened_at),
            closed_at=utc(target.closed_at),
            closes_at=utc(target.closes_at),
            card=json.loads(card) if isinstance(card, str) else card,
        )

    def _sql_for(self, rows: int) -> str:
        values = compiled.values(4, rows)
        return (
            f"WITH clicks(i, post_id, server_id, user_id) AS (VALUES {values}) {self._select.sql}"
        )


_READS = _Reads()


@lru_cache(maxsize=8)
def _meetings(rows: int) -> str:
    return (
        "INSERT INTO first_meetings (server_id, season, user_id, deck_id, question_id, met_at) "
        f"VALUES {compiled.values(len(MEETING_COLUMNS), rows)}"
    )


@lru_cache(maxsize=8)
def _answers(rows: int) -> str:
    values = compiled.values(len(ANSWER_COLUMNS), rows)
    return f"INSERT INTO answers ({', '.join(ANSWER_COLUMNS)}) VALUES {values}"
