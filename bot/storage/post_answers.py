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
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import (
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
    null,
    or_,
    select,
    true,
    union_all,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection

from bot.domain.leaderboard import ALL_TIME
from bot.domain.records import AnswerStatus, Player, PostAnswer, PostAnswerOutcome, PostRecord
from bot.storage import compiled
from bot.storage.compiled import Compiled, bind, utc
from bot.storage.mastery import MasteryCounts, keep_played
from bot.storage.player import (
    MINE,
    POST_CHOICE,
    POST_CLICK,
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

        On SQLite each click's first read is its own statement, but their first meetings
        and answers are claimed with one statement each for the lot (`_Claims`): every
        statement costs the writer thread a wait for the GIL behind the event loop. Rows are
        claimed in the clicks' order, so of two clicks that claim the same row the first
        gets it, as when they run one by one."""
        if conn.dialect.name != "sqlite":
            return [write(conn) for write in writes]
        outcomes: list[PostAnswerOutcome | None] = []
        claims = _Claims()
        reads: list[tuple[int, PostAnswer, Any, PostRecord, Player]] = []
        for write in writes:
            answer = write.answer
            keys = _keys(answer)
            target = _SQLITE_CLICK.first(conn, keys)
            if target is None:
                nobody = read_player(conn, answer.post.server_id, answer.user_id)
                outcomes.append(PostAnswerOutcome(AnswerStatus.CLOSED, None, nobody, None))
                continue
            target = target._replace(
                opened_at=utc(target.opened_at), closed_at=utc(target.closed_at)
            )
            post = post_record(target)
            before = player_of(target, answer.post.server_id)
            if post.closed_at is not None:
                earlier = _SQLITE_CHOICE.scalar(conn, keys)
                outcomes.append(PostAnswerOutcome(AnswerStatus.CLOSED, earlier, before, post))
                continue
            reads.append((len(outcomes), answer, target, post, before))
            claims.add(_row(answer, post))
            outcomes.append(None)
        for (at, answer, target, post, before), (met, stored) in zip(
            reads, claims.claim(conn), strict=True
        ):
            outcomes[at] = _stored(conn, answer, target, post, before, met, stored)
        return [outcome for outcome in outcomes if outcome is not None]


def _keys(answer: PostAnswer) -> dict[str, Any]:
    return {
        "post_id": answer.post.id,
        "server_id": answer.post.server_id,
        "user_id": answer.user_id,
    }


def _stored(
    conn: Connection,
    answer: PostAnswer,
    target: Any,
    post: PostRecord,
    before: Player,
    met: bool,
    stored: bool,
) -> PostAnswerOutcome:
    """A click on an open post, once its first meeting (`met`) and its answer (`stored`)
    were claimed: the first click of a person on a post stands; points only at a first
    meeting."""
    if not stored:  # its first click claimed the meeting
        earlier = _SQLITE_CHOICE.scalar(conn, _keys(answer))
        return PostAnswerOutcome(AnswerStatus.DUPLICATE, earlier, before, post)
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


class _Claims:
    """SQLite: the first meetings and answers of a transaction's clicks, each inserted for
    all of them with one statement (a hundred rows a statement) that returns the rows it
    took; a row two clicks claim goes to the first."""

    ROWS = 90
    """Rows a statement: at most 900 parameters, inside every SQLite's limit."""

    def __init__(self) -> None:
        self._rows: list[dict[str, Any]] = []

    def add(self, row: dict[str, Any]) -> None:
        self._rows.append(row)

    def claim(self, conn: Connection) -> list[tuple[bool, bool]]:
        """Per click, in order: (its first meeting was claimed, its answer was stored)."""
        rows = self._rows
        if not rows:
            return []
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            met = _first_takers(
                rows,
                [_meeting_key(row) for row in rows],
                self._insert(cursor, _sqlite_meetings, _MEETING_COLUMNS, rows),
            )
            for row, first in zip(rows, met, strict=True):
                row["points"] = row["points"] if first else 0
            stored = _first_takers(
                rows,
                [(row["post_id"], row["user_id"]) for row in rows],
                self._insert(cursor, _sqlite_answers, _ANSWER_COLUMNS, rows),
            )
        finally:
            cursor.close()
        return list(zip(met, stored, strict=True))

    def _insert(
        self,
        cursor: Any,
        statement: Any,
        columns: tuple[str, ...],
        rows: list[dict[str, Any]],
    ) -> list[tuple[Any, ...]]:
        taken: list[tuple[Any, ...]] = []
        for start in range(0, len(rows), self.ROWS):
            some = rows[start : start + self.ROWS]
            args = [bind(row[c]) for row in some for c in columns]
            taken += compiled.run(cursor, statement(len(some)), args).fetchall()
        return taken


def _first_takers(
    rows: list[dict[str, Any]], keys: list[tuple[Any, ...]], taken: list[tuple[Any, ...]]
) -> list[bool]:
    """Per row, whether it took its key: the first row with each key returned."""
    left = {tuple(key) for key in taken}
    out = []
    for key in keys:
        out.append(key in left)
        left.discard(key)
    return out


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
    values = ", ".join(["(?, ?, ?, ?, ?, ?)"] * rows)
    return (
        "INSERT INTO first_meetings (server_id, season, user_id, deck_id, question_id, met_at) "
        f"VALUES {values} ON CONFLICT DO NOTHING "
        "RETURNING server_id, season, user_id, deck_id, question_id"
    )


@lru_cache(maxsize=8)
def _sqlite_answers(rows: int) -> str:
    values = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * rows)
    return (
        f"INSERT INTO answers ({', '.join(_ANSWER_COLUMNS)}) "
        f"VALUES {values} ON CONFLICT (post_id, user_id) DO NOTHING RETURNING post_id, user_id"
    )


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


_SQLITE_CLICK = Compiled(POST_CLICK)
_SQLITE_CHOICE = Compiled(POST_CHOICE)


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
