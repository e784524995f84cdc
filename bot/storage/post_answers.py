"""A click's write: the answer to a post, its points and what its reply shows, in the
transaction that the group commit gives it.

What is written is the same on both databases: the post is read (FOR SHARE on PostgreSQL,
so a close waits or wins); a click on a closed post, or a person's second click, writes
nothing and says so (CLOSED, DUPLICATE, with the choice that stands); a first click on an
open post claims the person's first meeting with the question and is stored with the points
and card move `bot.domain.scoring.kept` gives it (points only if the meeting was theirs to
claim), adding to its six standings rows, moving the person's card and, when its `mastered`
flips, their mastery count; score and mastery counts, shared by everyone, at the
transaction's end.

How is the dialect's (`Dialect.write_clicks`): on SQLite a transaction's clicks together
(`bot.storage.sqlite.click`), on PostgreSQL one statement a click
(`bot.storage.postgres.click`). A game's open question holds its clicks instead
(`bot.storage.held_answers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.engine import Connection

from bot.domain.records import PostAnswer, PostAnswerOutcome

if TYPE_CHECKING:
    from bot.storage.dialect import Dialect

MEETING_COLUMNS = ("server_id", "season", "user_id", "deck_id", "question_id", "met_at")
"""A first meeting's columns, in the order the dialects' inserts list them."""
ANSWER_COLUMNS = (
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
"""An answer to a post's columns, in the order the dialects' inserts list them."""


@dataclass(frozen=True)
class PostAnswerWrite:
    """One click's write, as the group commit runs it, inside a transaction it may share."""

    answer: PostAnswer
    dialect: Dialect

    def __call__(self, conn: Connection) -> PostAnswerOutcome:
        return self.dialect.write_clicks(conn, [self.answer])[0]

    @classmethod
    def run_many(cls, conn: Connection, writes: list[PostAnswerWrite]) -> list[PostAnswerOutcome]:
        """Several clicks' writes in one transaction, in order, as each alone would run
        (`transactions._run` hands a transaction's clicks side by side here)."""
        return writes[0].dialect.write_clicks(conn, [write.answer for write in writes])
