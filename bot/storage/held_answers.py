"""A game question's clicks, held until its reveal: stored at once, scored when it closes.

While a game's question is open nothing about a click on it may show anywhere (whether it
was right, points, totals, review, mastery): the answer would pass from one player to the
next. So a click on a game's post is stored in `held_answers` (acknowledged only once it
is, as any click), which only the reveal's close reads. Closing the post (`settle`, in the
closing transaction) writes each held click as the click it is, through the same write as a
click on any post (`bot.storage.post_answers`: the answer, the first meeting and its points, the
card and mastery), in the order the clicks came and at the times they were made, so every
rule of scoring stays in one place. Everything that reads `answers` therefore sees a game's
clicks only once its question is revealed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, delete, select
from sqlalchemy.engine import Connection

from bot.domain.records import AnswerStatus, PostAnswer, PostAnswerOutcome, PostRecord
from bot.storage.dialect import Dialect
from bot.storage.game_tables import held_answers
from bot.storage.player import POST_CHOICE, POST_CLICK, player_of, read_player
from bot.storage.records import post_record

HELD_CHOICE = select(held_answers.c.choice).where(
    held_answers.c.post_id == bindparam("post_id"), held_answers.c.user_id == bindparam("user_id")
)
"""The choice a person's held click made on a post, if any."""
_HELD = (
    select(held_answers)
    .where(held_answers.c.post_id == bindparam("post_id"))
    .order_by(held_answers.c.answered_at, held_answers.c.user_id)
)
_LET_GO = delete(held_answers).where(held_answers.c.post_id == bindparam("post_id"))


@dataclass(frozen=True)
class HeldAnswerWrite:
    """A click on a game's post, as the group commit runs it: held if the post is open and
    this is the person's first click on it (the key decides), nothing scored yet."""

    answer: PostAnswer
    dialect: Dialect

    def __call__(self, conn: Connection) -> PostAnswerOutcome:
        answer = self.answer
        server_id, user_id = answer.post.server_id, answer.user_id
        keys = {"post_id": answer.post.id, "server_id": server_id, "user_id": user_id}
        row = conn.execute(POST_CLICK, keys).first()  # FOR SHARE: a close waits, or wins
        if row is None:
            nobody = read_player(conn, server_id, user_id)
            return PostAnswerOutcome(AnswerStatus.CLOSED, None, nobody, None)
        post, before = post_record(row), player_of(row, server_id)
        if post.closed_at is not None:  # revealed: its held clicks are answers now
            earlier = conn.scalar(POST_CHOICE, keys)
            return PostAnswerOutcome(AnswerStatus.CLOSED, earlier, before, post)
        held = self.dialect.hold(
            conn,
            {
                "post_id": post.id,
                "user_id": user_id,
                "server_id": post.server_id,
                "choice": answer.choice,
                "correct": answer.correct,
                "points": answer.points,
                "answered_at": answer.at,
            },
        )
        if held is None:  # the person's first click stands
            earlier = conn.scalar(HELD_CHOICE, keys)
            return PostAnswerOutcome(AnswerStatus.DUPLICATE, earlier, before, post)
        return PostAnswerOutcome(AnswerStatus.NEW, answer.choice, before, post)


def settle(dialect: Dialect, conn: Connection, post: PostRecord) -> int:
    """Writes the post's held clicks as the clicks they are (`Dialect.write_clicks`, in the
    order they came), in the transaction that closes it, before it is marked closed; how
    many there were."""
    if post.game_id is None:
        return 0
    rows = conn.execute(_HELD, {"post_id": post.id}).all()
    if not rows:
        return 0
    dialect.write_clicks(
        conn,
        [PostAnswer(post, r.user_id, r.choice, r.correct, r.points, r.answered_at) for r in rows],
    )
    conn.execute(_LET_GO, {"post_id": post.id})
    return len(rows)
