"""`Reviews` and `Problems` in SQL: the answers review is worked out from, review answers,
and players' problem reports (their limits checked in the report's own transaction)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Select, Table, literal, or_, select, union_all, update
from sqlalchemy.engine import Connection

from bot.domain.errors import QuizError
from bot.domain.problems import DAILY_REPORTS, REPORT_WINDOW, ProblemReport, Reason, refusal
from bot.domain.records import Standing
from bot.domain.review import Card, Source, Study, after_study, local_day
from bot.service.ports import Problems, Reviews
from bot.storage.aggregate import SqlAggregate
from bot.storage.mastery import read_board, read_cards, read_standing
from bot.storage.player import AnyRow
from bot.storage.tables import REPORT_OPEN, answers, problem_reports, review_answers

_REPORTS_LOCK = 0x71757270
"""With a person, what their report serializes on (`Dialect.serialize`): two processes'
reports of one person wait for each other."""


def _studies(server_id: str, user_id: str | None) -> Select[tuple[object, ...]]:
    played = _answers_of(answers, Source.PLAY, server_id, user_id)
    reviewed = _answers_of(review_answers, Source.REVIEW, server_id, user_id)
    return select(union_all(played, reviewed).subquery())


def _answers_of(
    table: Table, source: Source, server_id: str, user_id: str | None
) -> Select[tuple[object, ...]]:
    """`table`'s answers of the server (of one person, if `user_id`) as `Study` rows."""
    stmt = select(
        table.c.user_id,
        table.c.deck_id,
        table.c.question_id,
        table.c.correct,
        table.c.answered_at.label("at"),
        literal(source.value).label("source"),
    ).where(table.c.server_id == server_id)
    return stmt if user_id is None else stmt.where(table.c.user_id == user_id)


class SqlReviews(SqlAggregate, Reviews, Problems):
    async def studies(self, server_id: str, user_id: str | None = None) -> Sequence[Study]:
        rows = await self._all(_studies(server_id, user_id))
        return [
            Study(r.user_id, r.deck_id, r.question_id, bool(r.correct), r.at, Source(r.source))
            for r in rows
        ]

    async def cards(self, server_id: str, user_id: str) -> Sequence[Card]:
        def read(conn: Connection) -> Sequence[Card]:
            return read_cards(conn, server_id, user_id)

        return await self._tx.read(read)

    async def mastery_board(self, server_id: str, limit: int) -> Sequence[Standing]:
        def read(conn: Connection) -> Sequence[Standing]:
            return read_board(conn, server_id, limit)

        return await self._tx.read(read)

    async def mastery_standing(self, server_id: str, user_id: str) -> Standing | None:
        def read(conn: Connection) -> Standing | None:
            return read_standing(conn, server_id, user_id)

        return await self._tx.read(read, snapshot=True)

    async def record_review(
        self,
        server_id: str,
        user_id: str,
        deck_id: str,
        question_id: str,
        number: int,
        choice: int,
        correct: bool,
        at: datetime,
        *,
        deadline: float | None = None,
    ) -> bool:
        stmt = (
            self._sql.insert(review_answers)
            .values(
                server_id=server_id,
                user_id=user_id,
                deck_id=deck_id,
                question_id=question_id,
                number=number,
                choice=choice,
                correct=correct,
                answered_at=at,
            )
            .on_conflict_do_nothing()
            .returning(review_answers.c.id)
        )

        study = Study(user_id, deck_id, question_id, correct, at, Source.REVIEW)

        def write(conn: Connection) -> bool:
            if conn.execute(stmt).first() is None:
                return False
            # the card moved by `after_study`, due days in the server's zone now
            was = self._sql.card(conn, server_id, study)
            day = local_day(at, self._sql.server_zone(conn, server_id))
            self._sql.put_card(conn, server_id, study, was, after_study(was, study, day))
            return True

        return await self._tx.write(write, deadline=deadline, key=(server_id, user_id))

    async def report_problem(self, report: ProblemReport) -> int:
        p = problem_reports.c
        person = (report.server_id, report.user_id)
        mine = _reports_by(report.server_id, report.user_id, report.reported_at - REPORT_WINDOW)
        stmt = (
            self._sql.insert(problem_reports)
            .values(
                server_id=report.server_id,
                user_id=report.user_id,
                deck_id=report.deck_id,
                question_id=report.question_id,
                deck_version=report.deck_version,
                reason=report.reason.value,
                text=report.text,
                reported_at=report.reported_at,
            )
            .on_conflict_do_nothing(
                index_elements=[p.server_id, p.user_id, p.deck_id, p.question_id],
                index_where=REPORT_OPEN,
            )
            .returning(p.id)
        )

        def write(conn: Connection) -> int:
            self._sql.serialize(conn, _REPORTS_LOCK, f"{person[0]}\n{person[1]}")
            found = [_report(r) for r in conn.execute(mine)]
            refused = refusal(found, report.deck_id, report.question_id, report.reported_at)
            if refused is not None:
                raise QuizError(refused, limit=DAILY_REPORTS)
            stored = conn.execute(stmt).scalar()
            if stored is None:  # another open report of the question won the unique key
                raise QuizError("report_open", limit=DAILY_REPORTS)
            return int(stored)

        return await self._tx.write(write, key=person)

    async def problem_reports(
        self, server_id: str | None = None, deck_id: str | None = None
    ) -> Sequence[ProblemReport]:
        stmt = select(problem_reports).order_by(problem_reports.c.id)
        if server_id is not None:
            stmt = stmt.where(problem_reports.c.server_id == server_id)
        if deck_id is not None:
            stmt = stmt.where(problem_reports.c.deck_id == deck_id)
        return [_report(r) for r in await self._all(stmt)]

    async def unsent_problem_reports(self) -> Sequence[ProblemReport]:
        stmt = (
            select(problem_reports)
            .where(problem_reports.c.sent_at.is_(None))
            .order_by(problem_reports.c.id)
        )
        return [_report(r) for r in await self._all(stmt)]

    async def problem_reports_by(
        self, server_id: str, user_id: str, since: datetime
    ) -> Sequence[ProblemReport]:
        return [_report(r) for r in await self._all(_reports_by(server_id, user_id, since))]

    async def mark_problems_sent(self, ids: Sequence[int], at: datetime) -> None:
        if ids:
            await self._exec(
                update(problem_reports)
                .where(problem_reports.c.id.in_(list(ids)), problem_reports.c.sent_at.is_(None))
                .values(sent_at=at)
            )


def _reports_by(server_id: str, user_id: str, since: datetime) -> Select[tuple[object, ...]]:
    """One person's reports since `since`, and their unsent ones (what the limits read)."""
    p = problem_reports.c
    return (
        select(problem_reports)
        .where(p.server_id == server_id, p.user_id == user_id)
        .where(or_(p.reported_at >= since, p.sent_at.is_(None)))
        .order_by(p.id)
    )


def _report(r: AnyRow) -> ProblemReport:
    return ProblemReport(
        server_id=r.server_id,
        user_id=r.user_id,
        deck_id=r.deck_id,
        question_id=r.question_id,
        deck_version=r.deck_version,
        reason=Reason.parse(r.reason) or Reason.OTHER,
        text=r.text,
        reported_at=r.reported_at,
        id=r.id,
        sent_at=r.sent_at,
    )
