"""The review and problem-report ports, held to one contract on SQLite, PostgreSQL and memory."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.domain.problems import ProblemReport, Reason
from bot.domain.review import Source
from bot.service.ports import QuizStore
from tests import factories
from tests.contract.storage.test_store_contract import new_post
from tests.databases import any_store

__all__ = ["any_store"]

AT = datetime(2026, 5, 1, 9, tzinfo=UTC)


async def test_racing_review_answers_with_one_number_store_one(any_store: QuizStore) -> None:
    won = await asyncio.gather(
        *(
            any_store.record_review("s", "u", "demo", "q1", 0, i % 3, i % 3 == 0, AT)
            for i in range(6)
        )
    )
    assert sorted(won) == [False] * 5 + [True]
    assert await any_store.record_review("s", "u", "demo", "q1", 1, 0, True, AT)
    studies = await any_store.studies("s", "u")
    assert [(s.question_id, s.source) for s in studies] == [("q1", Source.REVIEW)] * 2


async def test_studies_hold_post_run_and_review_answers_of_the_server(
    any_store: QuizStore,
) -> None:
    post = await new_post(any_store, server_id="s", deck_id="demo", question_id="q2", opened_at=AT)
    await factories.click(any_store, post, "u", 1, False, AT + timedelta(seconds=1))
    await factories.click(any_store, post, "v", 0, True, AT + timedelta(seconds=2))
    await any_store.record_review("s", "u", "demo", "q2", 0, 0, True, AT + timedelta(days=1))
    await any_store.record_review("elsewhere", "u", "demo", "q2", 0, 0, True, AT)
    mine = sorted(await any_store.studies("s", "u"), key=lambda s: s.at)
    assert [(s.question_id, s.correct, s.source) for s in mine] == [
        ("q2", False, Source.PLAY),
        ("q2", True, Source.REVIEW),
    ]
    everyone = await any_store.studies("s")
    assert sorted(s.user_id for s in everyone) == ["u", "u", "v"]
    await any_store.forget_user("s", "u")
    assert await any_store.studies("s", "u") == []
    assert len(await any_store.studies("elsewhere", "u")) == 1


async def test_problem_reports_are_kept_listed_and_sent_once(any_store: QuizStore) -> None:
    def report(server: str, user: str, text: str, minutes: int) -> ProblemReport:
        return ProblemReport(
            server,
            user,
            "demo",
            "q1",
            "v1",
            Reason.WRONG_ANSWER,
            text,
            AT + timedelta(minutes=minutes),
        )

    first = await any_store.report_problem(report("s", "u", "B is right", 0))
    second = await any_store.report_problem(report("s", "w", "টাইপো", 1))
    await any_store.report_problem(report("t", "u", "other server", 2))
    listed = await any_store.problem_reports("s")
    assert [(r.id, r.text, r.reason, r.deck_version) for r in listed] == [
        (first, "B is right", Reason.WRONG_ANSWER, "v1"),
        (second, "টাইপো", Reason.WRONG_ANSWER, "v1"),
    ]
    assert len(await any_store.unsent_problem_reports()) == 3
    await any_store.mark_problems_sent([first, second], AT + timedelta(days=1))
    unsent = await any_store.unsent_problem_reports()
    assert [r.server_id for r in unsent] == ["t"]
    assert [r.sent_at for r in await any_store.problem_reports("s")] == [AT + timedelta(days=1)] * 2
    await any_store.forget_user("s", "w")
    assert [r.user_id for r in await any_store.problem_reports("s")] == ["u"]
