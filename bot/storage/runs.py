"""`Runs` in SQL: a user's runs through a deck, and their answers.

A run answer first claims the user's first meeting with the question in `first_meetings`
(only one caller can insert that row); `bot.domain.scoring.kept` then decides what the
answer scores and how it moves the person's card, and a scoring answer adds to its standings
in the same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from bot.domain.answer import points_for
from bot.domain.records import AnswerStatus, RunAnswerOutcome, RunAnswerRecord, RunRecord
from bot.domain.review import Source, Study, local_day
from bot.domain.scoring import kept
from bot.service.ports import Runs
from bot.storage.aggregate import SqlAggregate
from bot.storage.dialect import Dialect
from bot.storage.records import run_answer_record, run_record
from bot.storage.scores import Scored
from bot.storage.tables import (
    RUN_ACTIVE_KEY,
    RUN_ACTIVE_WHERE,
    answers,
    first_meetings,
    runs,
)


class SqlRuns(SqlAggregate, Runs):
    async def active_run(self, server_id: str, user_id: str, deck_id: str) -> RunRecord | None:
        def read(conn: Connection) -> RunRecord | None:
            return _active_run(conn, server_id, user_id, deck_id)

        return await self._tx.read(read)

    async def start_run(
        self, server_id: str, user_id: str, deck_id: str, season: int, at: datetime
    ) -> RunRecord:
        """Inserts against the partial unique key on unfinished runs; the loser reads the
        winner's run. On PostgreSQL each statement sees newly committed rows, so if that run
        was finished in between, the insert is simply tried again."""
        stmt = (
            self._sql.insert(runs)
            .values(
                server_id=server_id, user_id=user_id, deck_id=deck_id, season=season, started_at=at
            )
            .on_conflict_do_nothing(index_elements=RUN_ACTIVE_KEY, index_where=RUN_ACTIVE_WHERE)
            .returning(*runs.c)
        )

        def write(conn: Connection) -> RunRecord:
            for _ in range(3):
                row = conn.execute(stmt).first()
                if row is not None:
                    return run_record(row)
                active = _active_run(conn, server_id, user_id, deck_id)
                if active is not None:
                    return active
            raise RuntimeError(f"could not start a run for {server_id}/{user_id}/{deck_id}")

        return await self._tx.write(write)

    async def run(self, run_id: int) -> RunRecord | None:
        row = await self._one(select(runs).where(runs.c.id == run_id))
        return None if row is None else run_record(row)

    async def run_answers(self, run_id: int) -> Sequence[RunAnswerRecord]:
        rows = await self._all(
            _RUN_ANSWER.where(answers.c.run_id == run_id).order_by(
                answers.c.answered_at, answers.c.id
            )
        )
        return [run_answer_record(row) for row in rows]

    async def record_run_answer(
        self,
        run: RunRecord,
        question_id: str,
        choice: int,
        correct: bool,
        at: datetime,
        *,
        deadline: float | None = None,
    ) -> RunAnswerOutcome:
        """Claims the user's first meeting with the question (server, season, deck), right or
        wrong, then stores the answer with the points `kept` gives it."""
        sql = self._sql
        met = {"server_id": run.server_id, "season": run.season, "user_id": run.user_id}
        meeting = _meeting(sql).values(
            **met, deck_id=run.deck_id, question_id=question_id, met_at=at
        )
        study = Study(run.user_id, run.deck_id, question_id, correct, at, Source.PLAY)
        row = {
            "server_id": run.server_id,
            "season": run.season,
            "user_id": run.user_id,
            "deck_id": run.deck_id,
            "question_id": question_id,
            "run_id": run.id,
            "choice": choice,
            "correct": correct,
            "answered_at": at,
        }

        def write(conn: Connection) -> RunAnswerOutcome:
            first = conn.execute(meeting).first() is not None
            zone = sql.server_zone(conn, run.server_id)
            was = sql.card(conn, run.server_id, study)
            now = kept(study, points_for(correct), first, was, local_day(at, zone))
            stored = conn.execute(_store(sql).values(**row, points=now.points)).first()
            if stored is None:  # a repeat in this run: its first answer claimed the meeting
                found = _RUN_ANSWER.where(
                    answers.c.run_id == run.id, answers.c.question_id == question_id
                )
                return RunAnswerOutcome(
                    AnswerStatus.DUPLICATE, run_answer_record(conn.execute(found).one())
                )
            if now.points > 0:
                scored = Scored(run.server_id, run.season, run.deck_id, run.user_id, now.points, at)
                sql.add_points(conn, scored, zone)
            sql.put_card(conn, run.server_id, study, was, now.card)
            record = RunAnswerRecord(question_id, choice, correct, now.points, at)
            return RunAnswerOutcome(AnswerStatus.NEW, record)

        person = (run.server_id, run.user_id)
        return await self._tx.write(write, deadline=deadline, key=person)

    async def finish_run(self, run_id: int, at: datetime) -> None:
        await self._exec(
            update(runs)
            .where(runs.c.id == run_id, runs.c.finished_at.is_(None))
            .values(finished_at=at)
        )


def _meeting(sql: Dialect) -> Any:
    """The claim of a person's first meeting with a question: a row only for its claimer."""
    return sql.insert(first_meetings).on_conflict_do_nothing().returning(first_meetings.c.met_at)


def _store(sql: Dialect) -> Any:
    """A run answer, inserted unless the run has one for its question."""
    return (
        sql.insert(answers)
        .on_conflict_do_nothing(index_elements=[answers.c.run_id, answers.c.question_id])
        .returning(answers.c.id)
    )


_RUN_ANSWER = select(
    answers.c.question_id,
    answers.c.choice,
    answers.c.correct,
    answers.c.points,
    answers.c.answered_at,
)


def _active_run(conn: Connection, server_id: str, user_id: str, deck_id: str) -> RunRecord | None:
    stmt = select(runs).where(
        runs.c.server_id == server_id,
        runs.c.user_id == user_id,
        runs.c.deck_id == deck_id,
        RUN_ACTIVE_WHERE,
    )
    row = conn.execute(stmt).first()
    return None if row is None else run_record(row)
