"""`Standings` in SQL: leaderboards, and one user's totals, streak and reply facts.

A leaderboard of a period (week, month, all time) reads the points kept per period as
answers are stored (`bot.storage.scores`); one of any other window groups the answers
themselves. Totals and the streak are aggregates over covering indexes
(`bot.storage.player`), the SQL form of `bot.domain.totals`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Float, FromClause, Subquery, and_, case, cast, func, select
from sqlalchemy.engine import Connection

from bot.domain.health import QuestionTally, Try, group_size
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

    async def question_tallies(
        self, server_id: str | None, deck_id: str | None
    ) -> Sequence[QuestionTally]:
        """`bot.domain.health.tallies` in SQL: first tries, players' groups and the counts
        per question and choice are worked out where the answers are; what comes back is a
        few numbers per question and choice, whatever the server's history."""
        tries = _first_tries(server_id, deck_id)
        players = (
            select(
                tries.c.server_id,
                tries.c.user_id,
                (cast(func.sum(tries.c.ok), Float) / func.count()).label("accuracy"),
            )
            .group_by(tries.c.server_id, tries.c.user_id)
            .cte("players")
        )

        def read(conn: Connection) -> Sequence[QuestionTally]:
            everyone = int(conn.scalar(select(func.count()).select_from(players)) or 0)
            size = group_size(everyone)
            person: ColumnElement[str] = players.c.server_id + "/" + players.c.user_id
            person = self._sql.python_order(person)
            placed = select(
                players.c.server_id,
                players.c.user_id,
                func.row_number().over(order_by=[players.c.accuracy, person]).label("pos"),
            ).cte("placed")
            top = placed.c.pos > everyone - size
            bottom = placed.c.pos <= size
            right = tries.c.ok == 1
            stmt = (
                select(
                    tries.c.deck_id,
                    tries.c.question_id,
                    tries.c.choice,
                    func.count().label("tried"),
                    func.sum(tries.c.ok).label("right"),
                    func.sum(case((top, 1), else_=0)).label("top"),
                    func.sum(case((and_(top, right), 1), else_=0)).label("top_right"),
                    func.sum(case((bottom, 1), else_=0)).label("bottom"),
                    func.sum(case((and_(bottom, right), 1), else_=0)).label("bottom_right"),
                )
                .join_from(
                    tries,
                    placed,
                    and_(
                        placed.c.server_id == tries.c.server_id,
                        placed.c.user_id == tries.c.user_id,
                    ),
                )
                .group_by(tries.c.deck_id, tries.c.question_id, tries.c.choice)
            )
            counted: dict[tuple[str, str], list[Any]] = {}
            for r in conn.execute(stmt):
                row = counted.setdefault((r.deck_id, r.question_id), [{}, 0, 0, 0, 0, 0])
                row[0][int(r.choice)] = int(r.tried)
                for i, n in enumerate((r.right, r.top, r.top_right, r.bottom, r.bottom_right)):
                    row[i + 1] += int(n)
            return [
                QuestionTally(deck, question, picks, right, (tn, tr), (bn, br))
                for (deck, question), (picks, right, tn, tr, bn, br) in counted.items()
            ]

        return await self._tx.read(read, snapshot=True)

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


def _first_tries(server_id: str | None, deck_id: str | None) -> Any:
    """Each person's earliest answer to each question (`bot.domain.health.first_tries`)."""
    where = []
    if server_id is not None:
        where.append(answers.c.server_id == server_id)
    if deck_id is not None:
        where.append(answers.c.deck_id == deck_id)
    person_question = [
        answers.c.server_id,
        answers.c.user_id,
        answers.c.deck_id,
        answers.c.question_id,
    ]
    numbered = (
        select(
            *person_question,
            answers.c.choice,
            case((answers.c.correct, 1), else_=0).label("ok"),
            func.row_number()
            .over(partition_by=person_question, order_by=[answers.c.answered_at, answers.c.id])
            .label("nth"),
        )
        .where(*where)
        .subquery("numbered")
    )
    return select(numbered).where(numbered.c.nth == 1).cte("tries")
