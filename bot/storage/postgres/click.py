"""PostgreSQL: a click is one statement (`CLICK`, data-modifying CTEs).

The post read FOR SHARE, the user's first meeting with the question claimed, the answer
inserted if the post is open and this is the user's first click (scoring only if the
meeting was theirs to claim), the six standings rows of a scoring answer, the reply's facts,
and the person's card for the question moved (the answer's part of
`bot.domain.review.after_study`) with their mastery count when it flips, in one round trip.
This is `bot.domain.scoring.kept` said in SQL, for speed: tests/storage/test_store_kept.py
holds the two to the same results over many click sequences.

Score and mastery counts, shared by everyone, are written at the transaction's end.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
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
from bot.domain.records import AnswerStatus, PostAnswer, PostAnswerOutcome
from bot.storage.player import (
    MINE,
    POST_CHOICE,
    AnyRow,
    after_answer,
    player_columns,
    player_of,
    read_player,
)
from bot.storage.post_answers import ANSWER_COLUMNS
from bot.storage.postgres.cards import PostgresMasteryCounts
from bot.storage.postgres.points import PostgresScoreCounts
from bot.storage.records import post_record
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


def write_clicks(conn: Connection, clicks: Sequence[PostAnswer]) -> list[PostAnswerOutcome]:
    """The clicks' writes, in order: a statement each."""
    return [write_click(conn, answer) for answer in clicks]


def write_click(conn: Connection, answer: PostAnswer) -> PostAnswerOutcome:
    row = conn.execute(
        CLICK,
        {
            "post_id": answer.post.id,
            "server_id": answer.post.server_id,
            "user_id": answer.user_id,
            "choice": answer.choice,
            "correct": answer.correct,
            "points": answer.points,
            "answered_at": answer.at,
        },
    ).one()
    counts = accumulate(conn, PostgresScoreCounts)
    board = (answer.post.server_id, row.season)
    # json_agg comes back decoded (SQLAlchemy types it JSON); a string is decoded here.
    added = json.loads(row.added) if isinstance(row.added, str) else row.added
    for period, deck, total in added or ():
        counts.move((*board, period, deck), total - row.new_points, total)
    if row.mastery_total is not None:  # the card's `mastered` flipped
        step = 1 if row.card_now else -1
        accumulate(conn, PostgresMasteryCounts).move(
            answer.post.server_id, row.mastery_total - step, row.mastery_total
        )
    return _outcome(conn, answer, row)


def _outcome(conn: Connection, answer: PostAnswer, row: AnyRow) -> PostAnswerOutcome:
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
    post = _post_cte()
    new_answer = _answer_cte(post, _meeting_cte(post, at), at)
    zone = func.coalesce(
        select(servers.c.timezone)
        .where(servers.c.server_id == new_answer.c.server_id)
        .scalar_subquery(),
        "UTC",
    )
    added = _standings_cte(new_answer, at, zone)
    card_up = _card_cte(new_answer, at, zone)
    mastery_total = _mastery_cte(post, card_up, at)
    columns: list[Any] = [
        post,
        select(new_answer.c.id).scalar_subquery().label("new_id"),
        select(card_up.c.mastered).scalar_subquery().label("card_now"),
        mastery_total.label("mastery_total"),
        select(new_answer.c.points).scalar_subquery().label("new_points"),
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


def _post_cte() -> Any:
    """The clicked post, FOR SHARE (a close waits, or wins), with its server's newest daily
    post."""
    clicked = posts.alias("clicked")
    newest = posts.alias("newest_scheduled")
    return (
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


def _while_open(post: Any, *more: Any) -> Any:
    """The clicker's row for the post's question (server, season, user, deck, question),
    then `more`: none while the post is closed."""
    return select(
        post.c.server_id,
        post.c.season,
        bindparam("user_id"),
        post.c.deck_id,
        post.c.question_id,
        *more,
    ).where(post.c.closed_at.is_(None))


def _meeting_cte(post: Any, at: Any) -> Any:
    """The person's first meeting with the open post's question, claimed: a row only if
    theirs to claim."""
    return (
        postgresql.insert(first_meetings)
        .from_select(
            ["server_id", "season", "user_id", "deck_id", "question_id", "met_at"],
            _while_open(post, at),
        )
        .on_conflict_do_nothing()
        .returning(first_meetings.c.met_at)
        .cte("met")
    )


def _answer_cte(post: Any, met: Any, at: Any) -> Any:
    """The answer, if the post is open and this is the person's first click on it: the
    offered points if the meeting was claimed here (`kept`), else 0."""
    points = bindparam("points", type_=standings.c.points.type)
    return (
        postgresql.insert(answers)
        .from_select(
            list(ANSWER_COLUMNS),
            _while_open(
                post,
                post.c.id,
                bindparam("choice"),
                bindparam("correct"),
                case((exists(select(met.c.met_at)), points), else_=0),
                at,
            ),
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


def _standings_cte(new_answer: Any, at: Any, zone: Any) -> Any:
    """A scoring answer's six standings rows, added to (`bot.domain.scoring.boards`)."""
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
    return (
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


def _card_cte(new_answer: Any, at: Any, zone: Any) -> Any:
    """`bot.domain.review.after_study` for an answer to a post, in the click statement: the
    card's row moved (right: `got_right`; wrong: missed, box 0, due today in the server's
    zone). tests/storage/test_store_kept.py holds this to the domain's rule."""
    correct = bindparam("correct", type_=cards.c.got_right.type)
    today = cast(func.timezone(zone, at), Date)
    ins = postgresql.insert(cards).from_select(
        [c.name for c in cards.c],
        select(
            new_answer.c.server_id,
            bindparam("user_id"),
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
    return (
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


def _mastery_cte(post: Any, card_up: Any, at: Any) -> Any:
    """The person's mastery count moved when the card's `mastered` flipped (the card as it
    was is read from the statement's snapshot): the new count, or NULL."""
    was = (
        select(cards.c.mastered)
        .where(
            cards.c.server_id == post.c.server_id,
            cards.c.user_id == bindparam("user_id"),
            cards.c.deck_id == post.c.deck_id,
            cards.c.question_id == post.c.question_id,
        )
        .scalar_subquery()
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
    return select(moved.c.mastered).scalar_subquery()


CLICK = _click()
