"""`Standings` in SQL: leaderboards, and one user's totals, streak and reply facts.

A leaderboard of a period (week, month, all time) reads the points kept per period as
answers are stored (`bot.storage.scores`); one of any other window groups the answers
themselves. Totals and the streak are aggregates over covering indexes
(`bot.storage.player`), the SQL form of `bot.domain.totals`.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, FromClause, Subquery, func, select
from sqlalchemy.engine import Connection

from bot.domain.health import Try
from bot.domain.records import Player, Standing, StandingsQuery, Totals
from bot.service.ports import Standings
from bot.storage.aggregate import SqlAggregate
from bot.storage.player import read_player, read_streak, read_totals
from bot.storage.records import standing_record
from bot.storage.tables import ALL_DECKS, SCORING, answers, score_counts, standings


class SqlStandings(SqlAggregate, Standings):
    async def answer_log(self, server_id: str | None, deck_id: str | None) -> Sequence[Try]:
        stmt = select(
            answers.c.user_id,
            answers.c.deck_id,
            answers.c.question_id,
            answers.c.choice,
            answers.c.correct,
            answers.c.answered_at,
        )
        if server_id is not None:
            stmt = stmt.where(answers.c.server_id == server_id)
        if deck_id is not None:
            stmt = stmt.where(answers.c.deck_id == deck_id)
        # A person is the same person in every server of one platform only by accident of
        # ids: the report keys people by server too.
        stmt = stmt.add_columns(answers.c.server_id)
        return [
            Try(
                f"{r.server_id}/{r.user_id}",
                r.deck_id,
                r.question_id,
                r.choice,
                r.correct,
                r.answered_at,
            )
            for r in await self._all(stmt)
        ]

    async def standings(self, query: StandingsQuery, limit: int) -> Sequence[Standing]:
        if query.period is not None:
            top = (
                select(standings.c.user_id, standings.c.points, standings.c.reached_at)
                .where(*_kept(standings, query))
                .order_by(standings.c.points.desc(), standings.c.reached_at, standings.c.user_id)
                .limit(limit)
                .subquery("top")
            )
            kept = select(
                top, func.rank().over(order_by=top.c.points.desc()).label("rank")
            ).order_by(top.c.points.desc(), top.c.reached_at, top.c.user_id)
            return [standing_record(row) for row in await self._all(kept)]
        ranked = _ranked(query)
        stmt = (
            select(ranked)
            .order_by(ranked.c.rank, ranked.c.reached_at, ranked.c.user_id)
            .limit(limit)
        )
        return [standing_record(row) for row in await self._all(stmt)]

    async def standing_of(self, query: StandingsQuery, user_id: str) -> Standing | None:
        if query.period is not None:
            mine = select(standings.c.points, standings.c.reached_at).where(
                *_kept(standings, query), standings.c.user_id == user_id
            )

            def read(conn: Connection) -> Standing | None:
                row = conn.execute(mine).first()
                if row is None:
                    return None
                # The users above: a sum over the distinct totals above theirs.
                better: int = (
                    conn.scalar(
                        select(func.sum(score_counts.c.users)).where(
                            *_kept(score_counts, query), score_counts.c.points > row.points
                        )
                    )
                    or 0
                )
                return Standing(user_id, int(row.points), row.reached_at, better + 1)

            return await self._tx.read(read, snapshot=True)
        ranked = _ranked(query)
        row = await self._one(select(ranked).where(ranked.c.user_id == user_id))
        return None if row is None else standing_record(row)

    async def totals(self, server_id: str, season: int, user_id: str) -> Totals:
        def read(conn: Connection) -> Totals:
            return read_totals(conn, server_id, season, user_id)

        return await self._tx.read(read)

    async def streak(self, server_id: str, user_id: str) -> int:
        def read(conn: Connection) -> int:
            return read_streak(conn, server_id, user_id)

        return await self._tx.read(read)

    async def player(self, server_id: str, user_id: str) -> Player:
        def read(conn: Connection) -> Player:
            return read_player(conn, server_id, user_id)

        return await self._tx.read(read, snapshot=True)


def _kept(table: FromClause, query: StandingsQuery) -> list[ColumnElement[bool]]:
    """The standings rows of one leaderboard: server, season, period, deck (or all)."""
    return [
        table.c.server_id == query.server_id,
        table.c.season == query.season,
        table.c.period == query.period,
        table.c.deck_key == (query.deck_id or ALL_DECKS),
    ]


def _ranked(query: StandingsQuery) -> Subquery:
    """Per-user points in the period with their RANK(): one pass over the scoring index."""
    where = [answers.c.server_id == query.server_id, answers.c.season == query.season, SCORING]
    if query.since is not None:
        where.append(answers.c.answered_at >= query.since)
    if query.until is not None:
        where.append(answers.c.answered_at < query.until)
    if query.deck_id is not None:
        where.append(answers.c.deck_id == query.deck_id)
    per_user = (
        select(
            answers.c.user_id,
            func.sum(answers.c.points).label("points"),
            func.max(answers.c.answered_at).label("reached_at"),
        )
        .where(*where)
        .group_by(answers.c.user_id)
        .subquery("per_user")
    )
    return select(
        per_user,
        func.rank().over(order_by=per_user.c.points.desc()).label("rank"),
    ).subquery("ranked")
