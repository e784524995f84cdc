"""`PostsAndAnswers` in SQL: posts, and the clicks on them (written by
`bot.storage.post_answers`, the click path)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.engine import Connection

from bot.domain.records import NewPost, PostAnswer, PostAnswerOutcome, PostRecord
from bot.service.ports import PostsAndAnswers, QuestionOpen
from bot.storage.aggregate import SqlAggregate
from bot.storage.game_tables import held_answers
from bot.storage.held_answers import HELD_CHOICE, HeldAnswerWrite, settle
from bot.storage.player import POST_CHOICE
from bot.storage.post_answers import PostAnswerWrite
from bot.storage.records import post_record
from bot.storage.tables import UtcDateTime, answers, first_meetings, posts


class SqlPosts(SqlAggregate, PostsAndAnswers):
    async def create_post(self, post: NewPost) -> PostRecord:
        stmt = (
            self._sql.insert(posts)
            .values(
                server_id=post.server_id,
                channel_id=post.channel_id,
                deck_id=post.deck_id,
                question_id=post.question_id,
                choice_order=",".join(str(i) for i in post.order),
                locale=post.locale,
                poster_id=post.poster_id,
                season=post.season,
                schedule_id=post.schedule_id,
                game_id=post.game_id,
                opened_at=post.opened_at,
                closes_at=post.closes_at,
            )
            .on_conflict_do_nothing(
                index_elements=[posts.c.server_id, posts.c.deck_id, posts.c.question_id],
                index_where=posts.c.closed_at.is_(None),
            )
            .returning(*posts.c)
        )
        where_open = select(posts.c.channel_id).where(
            posts.c.server_id == post.server_id,
            posts.c.deck_id == post.deck_id,
            posts.c.question_id == post.question_id,
            posts.c.closed_at.is_(None),
        )

        def write(conn: Connection) -> PostRecord | str:
            row = conn.execute(stmt).first()
            return post_record(row) if row is not None else str(conn.scalar(where_open) or "")

        created = await self._tx.write(write)
        if isinstance(created, str):
            raise QuestionOpen(created)
        return created

    async def open_questions(self, server_id: str) -> dict[tuple[str, str], str]:
        rows = await self._all(
            select(posts.c.deck_id, posts.c.question_id, posts.c.channel_id).where(
                posts.c.server_id == server_id, posts.c.closed_at.is_(None)
            )
        )
        return {(deck_id, question_id): channel for deck_id, question_id, channel in rows}

    async def meet(
        self,
        server_id: str,
        season: int,
        user_id: str,
        deck_id: str,
        question_id: str,
        at: datetime,
    ) -> None:
        await self._exec(
            self._sql.insert(first_meetings)
            .values(
                server_id=server_id,
                season=season,
                user_id=user_id,
                deck_id=deck_id,
                question_id=question_id,
                met_at=at,
            )
            .on_conflict_do_nothing()
        )

    async def post(self, post_id: int) -> PostRecord | None:
        row = await self._one(select(posts).where(posts.c.id == post_id))
        return None if row is None else post_record(row)

    async def open_post_in_channel(self, server_id: str, channel_id: str) -> PostRecord | None:
        stmt = (
            select(posts)
            .where(
                posts.c.server_id == server_id,
                posts.c.channel_id == channel_id,
                posts.c.closed_at.is_(None),
            )
            .order_by(posts.c.opened_at.desc(), posts.c.id.desc())
            .limit(1)
        )
        row = await self._one(stmt)
        return None if row is None else post_record(row)

    async def set_post_message(self, post_id: int, message_ref: str) -> None:
        await self._exec(update(posts).where(posts.c.id == post_id).values(message_ref=message_ref))

    async def close_post(self, post_id: int, at: datetime) -> bool:
        """Closes the post, writing a game question's held clicks first (`settle`), in one
        transaction: the post's row locked first, so no click lands in between."""

        def close(conn: Connection) -> bool:
            row = conn.execute(_OPEN_POST, {"post_id": post_id}).first()
            if row is None:
                return False
            settle(self._sql, conn, post_record(row))
            conn.execute(_CLOSE, {"post_id": post_id, "at": at})
            return True

        return await self._tx.write(close)

    async def discard_post(self, post_id: int, at: datetime) -> None:
        """A game question's held clicks are written as at a close (they were acknowledged);
        the post is closed and detached from its schedule."""

        def discard(conn: Connection) -> None:
            row = conn.execute(_OPEN_POST, {"post_id": post_id}).first()
            if row is not None:
                settle(self._sql, conn, post_record(row))
            conn.execute(_DISCARD, {"post_id": post_id, "at": at})

        await self._tx.write(discard)

    async def answer_post(
        self, answer: PostAnswer, *, deadline: float | None = None
    ) -> PostAnswerOutcome:
        """The first answer wins the (post, user) unique key; CLOSED carries the user's
        earlier choice, if any (see `bot.storage.post_answers`)."""
        person = (answer.post.server_id, answer.user_id)
        if answer.post.game_id is not None:  # held until its reveal (`held_answers`)
            held = HeldAnswerWrite(answer, self._sql)
            return await self._tx.write(held, deadline=deadline, key=person)
        write = PostAnswerWrite(answer, self._sql)
        return await self._tx.write(write, deadline=deadline, key=person)

    async def post_answer_of(self, post_id: int, user_id: str) -> int | None:
        """Held (a game's open question) or answered."""

        def read(conn: Connection) -> int | None:
            keys = {"post_id": post_id, "user_id": user_id}
            choice: int | None = conn.scalar(POST_CHOICE, keys)
            return choice if choice is not None else conn.scalar(HELD_CHOICE, keys)

        return await self._tx.read(read, snapshot=True)

    async def tally(self, post_id: int) -> dict[int, int]:
        """Only choices someone picked appear; a reveal reads the others as 0."""
        counts = await self._all(
            select(answers.c.choice, func.count())
            .where(answers.c.post_id == post_id)
            .group_by(answers.c.choice)
        )
        return {choice: count for choice, count in counts}

    async def answer_count(self, post_id: int) -> int:
        """Answers and held clicks (a game's open question)."""
        stored = select(func.count()).select_from(answers).where(answers.c.post_id == post_id)
        held = (
            select(func.count()).select_from(held_answers).where(held_answers.c.post_id == post_id)
        )
        count: int = await self._scalar(select(stored.scalar_subquery() + held.scalar_subquery()))
        return count


_OPEN_POST = (
    select(posts)
    .where(posts.c.id == bindparam("post_id"), posts.c.closed_at.is_(None))
    .with_for_update(of=posts)
)
_CLOSE = (
    update(posts)
    .where(posts.c.id == bindparam("post_id"), posts.c.closed_at.is_(None))
    .values(closed_at=bindparam("at", type_=UtcDateTime()))
)
_DISCARD = (
    update(posts)
    .where(posts.c.id == bindparam("post_id"))
    .values(
        closed_at=func.coalesce(posts.c.closed_at, bindparam("at", type_=UtcDateTime())),
        schedule_id=None,
    )
)
