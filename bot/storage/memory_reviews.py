"""`Reviews` and `Problems` in memory (see `bot.storage.memory`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from bot.domain.errors import QuizError
from bot.domain.problems import DAILY_REPORTS, REPORT_WINDOW, ProblemReport, refusal
from bot.domain.records import ServerSettings, Standing
from bot.domain.review import Card, Source, Study, after_study, local_day
from bot.domain.scoring import ranked
from bot.service.ports import Problems, Reviews
from bot.storage.memory_answers import Answers


class MemoryReviews(Reviews, Problems):
    _answers: Answers

    def __init__(self) -> None:
        self._reviews: dict[tuple[str, str, str, str, int], Study] = {}
        """(server, user, deck, question, number) -> the review answer: one per number."""
        self._reports: list[ProblemReport] = []
        self._cards: dict[tuple[str, str], dict[tuple[str, str], Card]] = {}
        """(server, user) -> their cards by (deck, question), moved as answers are kept."""
        self._mastered: dict[tuple[str, str], tuple[int, datetime]] = {}
        """(server, user) -> questions mastered, and when that count last changed."""

    def _settings(self, server_id: str) -> ServerSettings:
        raise NotImplementedError  # MemoryStore's

    def keep_card(self, server_id: str, study: Study) -> None:
        """Moves the person's card by one stored review answer, as the SQL store does."""
        zone = self._settings(server_id).timezone
        before = self.card(server_id, study)
        self.put_card(
            server_id, study, before, after_study(before, study, local_day(study.at, zone))
        )

    def card(self, server_id: str, study: Study) -> Card:
        """The person's card for the study's question."""
        mine = self._cards.get((server_id, study.user_id), {})
        return mine.get((study.deck_id, study.question_id)) or Card.new(
            study.deck_id, study.question_id
        )

    def put_card(self, server_id: str, study: Study, before: Card, after: Card) -> None:
        """The card moved from `before` to `after`, and the person's mastery count with it."""
        mine = self._cards.setdefault((server_id, study.user_id), {})
        mine[(study.deck_id, study.question_id)] = after
        if after.mastered != before.mastered:
            count, _ = self._mastered.get((server_id, study.user_id), (0, study.at))
            step = 1 if after.mastered else -1
            self._mastered[(server_id, study.user_id)] = (count + step, study.at)

    async def cards(self, server_id: str, user_id: str) -> Sequence[Card]:
        return list(self._cards.get((server_id, user_id), {}).values())

    def _mastery_board(self, server_id: str) -> list[Standing]:
        return ranked(
            (user, count, at)
            for (server, user), (count, at) in self._mastered.items()
            if server == server_id
        )

    async def mastery_board(self, server_id: str, limit: int) -> Sequence[Standing]:
        return self._mastery_board(server_id)[:limit]

    async def mastery_standing(self, server_id: str, user_id: str) -> Standing | None:
        return next((s for s in self._mastery_board(server_id) if s.user_id == user_id), None)

    async def studies(self, server_id: str, user_id: str | None = None) -> Sequence[Study]:
        played = [
            Study(a.user_id, a.deck_id, a.question_id, a.correct, a.answered_at, Source.PLAY)
            for server, a in self._answers.every()
            if server == server_id and user_id in (None, a.user_id)
        ]
        reviewed = [
            s
            for (server, user, *_), s in self._reviews.items()
            if server == server_id and user_id in (None, user)
        ]
        return played + reviewed

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
        key = (server_id, user_id, deck_id, question_id, number)
        if key in self._reviews:
            return False
        study = Study(user_id, deck_id, question_id, correct, at, Source.REVIEW)
        self._reviews[key] = study
        self.keep_card(server_id, study)
        return True

    async def report_problem(self, report: ProblemReport) -> int:
        since = report.reported_at - REPORT_WINDOW  # checked and stored with no await between
        mine = self._reports_by(report.server_id, report.user_id, since)
        refused = refusal(mine, report.deck_id, report.question_id, report.reported_at)
        if refused is not None:
            raise QuizError(refused, limit=DAILY_REPORTS)
        stored = replace(report, id=len(self._reports) + 1, sent_at=None)
        self._reports.append(stored)
        return stored.id or 0

    async def problem_reports(
        self, server_id: str | None = None, deck_id: str | None = None
    ) -> Sequence[ProblemReport]:
        return [
            r
            for r in self._reports
            if server_id in (None, r.server_id) and deck_id in (None, r.deck_id)
        ]

    async def unsent_problem_reports(self) -> Sequence[ProblemReport]:
        return [r for r in self._reports if r.sent_at is None]

    async def problem_reports_by(
        self, server_id: str, user_id: str, since: datetime
    ) -> Sequence[ProblemReport]:
        return self._reports_by(server_id, user_id, since)

    def _reports_by(self, server_id: str, user_id: str, since: datetime) -> list[ProblemReport]:
        return [
            r
            for r in self._reports
            if (r.server_id, r.user_id) == (server_id, user_id)
            and (r.reported_at >= since or r.sent_at is None)
        ]

    async def mark_problems_sent(self, ids: Sequence[int], at: datetime) -> None:
        wanted = set(ids)
        self._reports = [
            replace(r, sent_at=at) if r.id in wanted and r.sent_at is None else r
            for r in self._reports
        ]

    def forget_reviews(self, server_id: str, user_id: str) -> None:
        self._cards.pop((server_id, user_id), None)
        self._mastered.pop((server_id, user_id), None)
        self._reviews = {
            k: s for k, s in self._reviews.items() if (k[0], k[1]) != (server_id, user_id)
        }
        self._reports = [
            r for r in self._reports if (r.server_id, r.user_id) != (server_id, user_id)
        ]
