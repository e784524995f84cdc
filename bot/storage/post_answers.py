"""A click's write: the answer to a post, its points and what its reply shows, in the
transaction that the group commit gives it.

On SQLite the clicks of a transaction are written together (`PostAnswerWrite.run_many`): a
read each, then their first meetings and their answers claimed with a statement each for all
of them, and their standings rows and cards at the transaction's end
(`bot.storage.scores.PendingPoints`, `bot.storage.mastery.PendingPlays`).

On PostgreSQL a click is one statement (`CLICK`, data-modifying CTEs): the post read FOR
SHARE, the user's first meeting with the question claimed, the answer inserted if the post
is open and this is the user's first click (scoring only if the meeting was theirs to
claim), the six standings rows of a scoring answer, the reply's facts, and the person's card
for the question moved (the answer's part of `bot.domain.review.after_study`, in SQL) with
their mastery count when it flips, in one round trip.

Score and mastery counts, shared by everyone, are written at the transaction's end.
"""

from __future__ import annotations

import json
from collections import namedtuple
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Date,
    Select,
    String,
    bindparam,
    case,
    cast,
    exists,
    false,
    func,
    literal,
    literal_column,
    null,
    or_,
    select,
    table,
    true,
    union_all,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection
from sqlalchemy.sql.visitors import replacement_traverse

from bot.domain.leaderboard import ALL_TIME
from bot.domain.records import AnswerStatus, Player, PostAnswer, PostAnswerOutcome, PostRecord
from bot.storage import compiled
from bot.storage.compiled import Compiled, bind, utc
from bot.storage.mastery import MasteryCounts, keep_played
from bot.storage.player import (
    MINE,
    NEWEST_SCHEDULED,
    POST_CHOICE,
    AnyRow,
    after_answer,
    player_columns,
    player_of,
    read_player,
)
from bot.storage.records import post_record
from bot.storage.scores import ScoreCounts, Scored, add_points
from bot.storage.tables import (
    ALL_DECKS,
    UtcDateTime,
    answers,
    cards,
    first_meetings,
    mastery,
    posts,
    servers,
    standings,
)
from bot.storage.transactions import accumulate


def _params(answer: PostAnswer) -> dict[str, Any]:
    return {
        "post_id": answer.post.id,
        "server_id": answer.post.server_id,
        "user_id": answer.user_id,
        "choice": answer.choice,
        "correct": answer.correct,
        "points": answer.points,
        "answered_at": answer.at,
    }


@dataclass(frozen=True)
class PostAnswerWrite:
    """One click's write, as the group commit runs it, inside a transaction it may share."""

    answer: PostAnswer

    def __call__(self, conn: Connection) -> PostAnswerOutcome:
        if conn.dialect.name == "postgresql":
            row = conn.execute(CLICK, _params(self.answer)).one()
            counts = accumulate(conn, ScoreCounts)
            board = (self.answer.post.server_id, row.season)
            # json_agg comes back decoded (SQLAlchemy types it JSON); a string is decoded here.
            added = json.loads(row.added) if isinstance(row.added, str) else row.added
            for period, deck, total in added or ():
                counts.move((*board, period, deck), total - row.new_points, total)
            if row.mastery_total is not None:  # the card's `mastered` flipped
                step = 1 if row.card_now else -1
                accumulate(conn, MasteryCounts).move(
                    self.answer.post.server_id, row.mastery_total - step, row.mastery_total
                )
            return self._outcome(conn, row)
        return self.run_many(conn, [self])[0]

    def _outcome(self, conn: Connection, row: AnyRow) -> PostAnswerOutcome:
        answer = self.answer
        server_id, user_id = answer.post.server_id, answer.user_id
        before = player_of(row, server_id)
        if row.id is None:
            return PostAnswerOutcome(AnswerStatus.CLOSED, None, before, None)
        post = post_record(row)
        if post.closed_at is not None:
            return PostAnswerOutcome(AnswerStatus.CLOSED, row.earlier, before, post)
        if row.new_id is None:
            earlier = row.earlier
            if earlier is None:  # the first click was in flight, unseen by this snapshot
                earlier = conn.scalar(POST_CHOICE, {"post_id": post.id, "user_id": user_id})
            return PostAnswerOutcome(AnswerStatus.DUPLICATE, earlier, before, post)
        after = after_answer(before, row, answer.correct, row.new_points)
        player = after or read_player(conn, server_id, user_id)
        return PostAnswerOutcome(AnswerStatus.NEW, answer.choice, player, post, row.new_points)

    @classmethod
    def run_many(cls, conn: Connection, writes: list[PostAnswerWrite]) -> list[PostAnswerOutcome]:
        """Several clicks' writes in one transaction, in order, as each alone would run.

        On SQLite the writer thread gives up the GIL on every step of every statement and
        waits for it back behind the event loop, so a transaction's clicks are read with one
        statement (`_Reads`: each click's post, what its reply shows, whether the person met
        the question and answered the post), decided here in the clicks' order (of two
        clicks that would claim the same row the first gets it, as when they run one by
        one), and their first meetings and answers inserted with one statement each. The
        transaction holds SQLite's write lock (BEGIN IMMEDIATE), so what it read stands."""
        if conn.dialect.name != "sqlite":
            return [write(conn) for write in writes]
        outcomes: list[PostAnswerOutcome | None] = []
        meetings: list[dict[str, Any]] = []
        stored: list[dict[str, Any]] = []
        met_here: set[tuple[Any, ...]] = set()
        chosen_here: dict[tuple[int, str], int] = {}
        new: list[tuple[int, PostAnswer, Any, PostRecord, Player, bool]] = []
        for write, target in zip(writes, _READS.run(conn, writes), strict=True):
            answer = write.answer
            if target is None:
                nobody = read_player(conn, answer.post.server_id, answer.user_id)
                outcomes.append(PostAnswerOutcome(AnswerStatus.CLOSED, None, nobody, None))
                continue
            post = post_record(target)
            before = player_of(target, answer.post.server_id)
            if post.closed_at is not None:
                closed = PostAnswerOutcome(AnswerStatus.CLOSED, target.earlier, before, post)
                outcomes.append(closed)
                continue
            earlier = target.earlier
            if earlier is None:
                earlier = chosen_here.get((post.id, answer.user_id))
            if earlier is not None:  # the person's first click on the post stands
                outcomes.append(PostAnswerOutcome(AnswerStatus.DUPLICATE, earlier, before, post))
                continue
            row = _row(answer, post)
            key = _meeting_key(row)
            met = not target.met and key not in met_here
            if met:
                met_here.add(key)
                meetings.append(row)
            else:
                row["points"] = 0
            chosen_here[(post.id, answer.user_id)] = answer.choice
            stored.append(row)
            new.append((len(outcomes), answer, target, post, before, met))
            outcomes.append(None)
        compiled.run_rows(conn, _sqlite_meetings, _MEETING_COLUMNS, meetings)
        compiled.run_rows(conn, _sqlite_answers, _ANSWER_COLUMNS, stored)
        for at, answer, target, post, before, met in new:
            outcomes[at] = _stored(conn, answer, target, post, before, met)
        return [outcome for outcome in outcomes if outcome is not None]


def _stored(
    conn: Connection, answer: PostAnswer, target: Any, post: PostRecord, before: Player, met: bool
) -> PostAnswerOutcome:
    """A click's answer, stored: its points (only at the person's first meeting with the
    question) and its card, written at the transaction's end."""
    server_id, user_id = answer.post.server_id, answer.user_id
    points = answer.points if met else 0
    if points:
        scored = Scored(server_id, post.season, post.deck_id, user_id, points, answer.at)
        add_points(conn, scored, before.server.timezone)
    keep_played(
        conn,
        server_id,
        user_id,
        post.deck_id,
        post.question_id,
        answer.correct,
        answer.at,
        before.server.timezone,
    )
    after = after_answer(before, target, answer.correct, points)
    player = after or read_player(conn, server_id, user_id)
    return PostAnswerOutcome(AnswerStatus.NEW, answer.choice, player, post, points)


class _Reads:
    """SQLite: what a transaction's clicks read, in one statement that gives one row (a
    JSON array of each click's facts), so the writer thread waits for the GIL once for them
    all. A click's facts are `POST_CLICK`'s columns, the choice of the person's earlier
    answer to the post, and whether they already met its question; None for a post not
    found. The statement is `POST_CLICK`'s parts with the click's values read from a VALUES
    table (`clicks`) instead of bound."""

    ROWS = 200
    """Clicks a statement: 800 parameters, inside every SQLite's limit."""

    def __init__(self) -> None:
        met = exists().where(
            first_meetings.c.server_id == posts.c.server_id,
            first_meetings.c.season == posts.c.season,
            first_meetings.c.user_id == bindparam("user_id"),
            first_meetings.c.deck_id == posts.c.deck_id,
            first_meetings.c.question_id == posts.c.question_id,
        )
        facts: list[Any] = [
            *posts.c,
            *player_columns(scalar=True),
            NEWEST_SCHEDULED,
            POST_CHOICE.scalar_subquery().label("earlier"),
            met.label("met"),
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

    def run(self, conn: Connection, writes: list[PostAnswerWrite]) -> list[Any]:
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        read: list[Any] = []
        try:
            for some in compiled.pieces(writes, self.ROWS):
                args: list[Any] = []
                for i, write in enumerate(some):
                    answer = write.answer
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
        return target._replace(
            opened_at=utc(target.opened_at),
            closed_at=utc(target.closed_at),
            closes_at=utc(target.closes_at),
        )

    def _sql_for(self, rows: int) -> str:
        values = compiled.values(4, rows)
        return (
            f"WITH clicks(i, post_id, server_id, user_id) AS (VALUES {values}) {self._select.sql}"
        )


_READS = _Reads()


_MEETING_COLUMNS = ("server_id", "season", "user_id", "deck_id", "question_id", "answered_at")
_ANSWER_COLUMNS = (
    "server_id",
    "season",
    "user_id",
    "deck_id",
    "question_id",
    "post_id",
    "choice",
    "correct",
    "points",
    "answered_at",
)


def _meeting_key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["server_id"], row["season"], row["user_id"], row["deck_id"], row["question_id"])


@lru_cache(maxsize=8)
def _sqlite_meetings(rows: int) -> str:
    return (
        "INSERT INTO first_meetings (server_id, season, user_id, deck_id, question_id, met_at) "
        f"VALUES {compiled.values(len(_MEETING_COLUMNS), rows)}"
    )


@lru_cache(maxsize=8)
def _sqlite_answers(rows: int) -> str:
    values = compiled.values(len(_ANSWER_COLUMNS), rows)
    return f"INSERT INTO answers ({', '.join(_ANSWER_COLUMNS)}) VALUES {values}"


def _row(answer: PostAnswer, post: PostRecord) -> dict[str, Any]:
    return {
        "server_id": post.server_id,
        "season": post.season,
        "user_id": answer.user_id,
        "deck_id": post.deck_id,
        "question_id": post.question_id,
        "post_id": post.id,
        "choice": answer.choice,
        "correct": answer.correct,
        "points": answer.points,
        "answered_at": answer.at,
    }


def period_keys_sql(at: ColumnElement[Any], zone: ColumnElement[Any]) -> list[ColumnElement[str]]:
    """`bot.domain.leaderboard.answer_keys` in PostgreSQL's words (week from its Monday, month,
    all time, in the server's zone), so a click's standings need no second round trip for
    the zone; a contract test holds the two to the same keys across zones and DST."""
    local = func.timezone(zone, at)
    return [
        literal("w") + func.to_char(func.date_trunc("week", local), "YYYY-MM-DD"),
        literal("m") + func.to_char(local, "YYYY-MM"),
        literal(ALL_TIME, String),
    ]


def _click() -> Select[Any]:
    """The PostgreSQL click statement (see the module doc)."""
    at = bindparam("answered_at", type_=UtcDateTime())
    points = bindparam("points", type_=standings.c.points.type)
    clicked = posts.alias("clicked")
    newest = posts.alias("newest_scheduled")
    post = (
        select(
            clicked,
            select(newest.c.id)
            .where(newest.c.server_id == clicked.c.server_id, newest.c.schedule_id.is_not(None))
            .order_by(newest.c.opened_at.desc(), newest.c.id.desc())
            .limit(1)
            .scalar_subquery()
            .label("newest_scheduled"),
        )
        .where(clicked.c.id == bindparam("post_id"))
        .with_for_update(read=True, of=clicked)
        .cte("post")
    )
    met = (
        postgresql.insert(first_meetings)
        .from_select(
            ["server_id", "season", "user_id", "deck_id", "question_id", "met_at"],
            select(
                post.c.server_id,
                post.c.season,
                bindparam("user_id"),
                post.c.deck_id,
                post.c.question_id,
                at,
            ).where(post.c.closed_at.is_(None)),
        )
        .on_conflict_do_nothing()
        .returning(first_meetings.c.met_at)
        .cte("met")
    )
    new_answer = (
        postgresql.insert(answers)
        .from_select(
            list(_ANSWER_COLUMNS),
            select(
                post.c.server_id,
                post.c.season,
                bindparam("user_id"),
                post.c.deck_id,
                post.c.question_id,
                post.c.id,
                bindparam("choice"),
                bindparam("correct"),
                case((exists(select(met.c.met_at)), points), else_=0),
                at,
            ).where(post.c.closed_at.is_(None)),
        )
        .on_conflict_do_nothing(index_elements=[answers.c.post_id, answers.c.user_id])
        .returning(
            answers.c.id,
            answers.c.server_id,
            answers.c.season,
            answers.c.deck_id,
            answers.c.question_id,
            answers.c.points,
        )
        .cte("new_answer")
    )
    scored = select(new_answer.c.points).scalar_subquery()
    zone = func.coalesce(
        select(servers.c.timezone)
        .where(servers.c.server_id == new_answer.c.server_id)
        .scalar_subquery(),
        "UTC",
    )
    boards = union_all(
        *(
            select(
                new_answer.c.server_id,
                new_answer.c.season,
                key.label("period"),
                deck.label("deck_key"),
                new_answer.c.points,
            ).where(new_answer.c.points > 0)
            for key in period_keys_sql(at, zone)
            for deck in (new_answer.c.deck_id, literal(ALL_DECKS, String))
        )
    ).subquery("boards")
    added_insert = postgresql.insert(standings).from_select(
        ["server_id", "season", "period", "deck_key", "user_id", "points", "reached_at"],
        select(
            boards.c.server_id,
            boards.c.season,
            boards.c.period,
            boards.c.deck_key,
            bindparam("user_id"),
            boards.c.points,
            at,
        ),
    )
    added = (
        added_insert.on_conflict_do_update(
            index_elements=list(standings.primary_key.columns),
            set_={
                "points": standings.c.points + added_insert.excluded.points,
                "reached_at": func.greatest(
                    standings.c.reached_at, added_insert.excluded.reached_at
                ),
            },
        )
        .returning(
            standings.c.server_id,
            standings.c.season,
            standings.c.period,
            standings.c.deck_key,
            standings.c.points,
        )
        .cte("added")
    )
    card_now, mastery_total = _card_ctes(post, new_answer, at, zone)
    columns: list[Any] = [
        post,
        select(new_answer.c.id).scalar_subquery().label("new_id"),
        card_now.label("card_now"),
        mastery_total.label("mastery_total"),
        scored.label("new_points"),
        POST_CHOICE.scalar_subquery().label("earlier"),
        *player_columns(),
    ]
    columns.append(
        select(
            func.json_agg(func.json_build_array(added.c.period, added.c.deck_key, added.c.points))
        )
        .scalar_subquery()
        .label("added")
    )
    return select(*columns).select_from(MINE.outerjoin(post, true()))


def _card_ctes(post: Any, new_answer: Any, at: Any, zone: Any) -> tuple[Any, Any]:
    """`bot.domain.review.after_study` for an answer to a post, in the click statement: the
    card's row moved (right: `got_right`; wrong: missed, box 0, due today in the server's
    zone) and the person's mastery count when `mastered` flips. The card as it was is read
    from the statement's snapshot. A contract test holds this to the domain's rule."""
    correct = bindparam("correct", type_=cards.c.got_right.type)
    user: Any = bindparam("user_id")
    was = (
        select(cards.c.mastered)
        .where(
            cards.c.server_id == post.c.server_id,
            cards.c.user_id == user,
            cards.c.deck_id == post.c.deck_id,
            cards.c.question_id == post.c.question_id,
        )
        .scalar_subquery()
    )
    today = cast(func.timezone(zone, at), Date)
    ins = postgresql.insert(cards).from_select(
        [c.name for c in cards.c],
        select(
            new_answer.c.server_id,
            user,
            new_answer.c.deck_id,
            new_answer.c.question_id,
            ~correct,
            literal(0),
            case((correct, null()), else_=today),
            literal(0),
            correct,
            correct,
        ),
    )
    missed_now = ins.excluded.missed
    card_up = (
        ins.on_conflict_do_update(
            index_elements=[
                cards.c.server_id,
                cards.c.user_id,
                cards.c.deck_id,
                cards.c.question_id,
            ],
            set_={
                "missed": or_(cards.c.missed, missed_now),
                "box": case((missed_now, 0), else_=cards.c.box),
                "due": case((missed_now, ins.excluded.due), else_=cards.c.due),
                "got_right": or_(cards.c.got_right, ins.excluded.got_right),
                "mastered": case(
                    (missed_now, false()), (cards.c.missed, cards.c.box >= 1), else_=true()
                ),
            },
        )
        .returning(cards.c.server_id, cards.c.user_id, cards.c.mastered)
        .cte("card_up")
    )
    step = case((card_up.c.mastered, 1), else_=-1)
    counted = postgresql.insert(mastery).from_select(
        ["server_id", "user_id", "mastered", "reached_at"],
        select(card_up.c.server_id, card_up.c.user_id, step, at).where(
            card_up.c.mastered != func.coalesce(was, false())
        ),
    )
    moved = (
        counted.on_conflict_do_update(
            index_elements=[mastery.c.server_id, mastery.c.user_id],
            set_={
                "mastered": mastery.c.mastered + counted.excluded.mastered,
                "reached_at": counted.excluded.reached_at,
            },
        )
        .returning(mastery.c.mastered)
        .cte("mastery_moved")
    )
    return (
        select(card_up.c.mastered).scalar_subquery(),
        select(moved.c.mastered).scalar_subquery(),
    )


CLICK = _click()
