"""The quiz service on `MemoryStore`: the shipped deck posted, answered, revealed, played as a
run and ranked, with no database anywhere (a service test needs none)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.bootstrap import capabilities
from bot.decks.loading import load_decks
from bot.decks.model import DeckLibrary
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.leaderboard import Period
from bot.domain.records import AnswerStatus, Totals
from bot.domain.run import RunStep
from bot.service.services import Capabilities
from bot.storage.memory import MemoryStore

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"
SERVER = "local"
HOST, ANA, BO = (Actor(SERVER, name) for name in ("host", "ana", "bo"))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 3, 2, 9, tzinfo=UTC))


@pytest.fixture
def quiz(clock: ManualClock) -> Capabilities:
    report = load_decks([QUESTIONS])
    assert report.ok and report.decks, report.summary()
    library = DeckLibrary(report.decks)
    return capabilities(store=MemoryStore(), decks=library, clock=clock, rng=random.Random(5))


async def test_post_answer_reveal_and_leaderboard(quiz: Capabilities, clock: ManualClock) -> None:
    view = await quiz.answering.post(HOST, "C1")
    right = view.post.order.index(view.question.answer)
    wrong = (right + 1) % len(view.post.order)
    clock.advance(timedelta(minutes=1))

    ana = await quiz.answering.answer(ANA, view.post.id, right)
    assert (ana.status, ana.correct, ana.totals) == (AnswerStatus.NEW, True, Totals(1, 1, 1))
    again = await quiz.answering.answer(ANA, view.post.id, wrong)  # the first click stands
    assert (again.status, again.correct) == (AnswerStatus.DUPLICATE, True)
    bo = await quiz.answering.answer(BO, view.post.id, wrong)
    assert (bo.status, bo.correct, bo.totals) == (AnswerStatus.NEW, False, Totals(1, 0, 0))

    reveal = await quiz.answering.close(HOST, "C1")
    assert reveal.closed_now and reveal.total == 2 and reveal.right_share == 0.5
    late = await quiz.answering.answer(Actor(SERVER, "cy"), view.post.id, right)
    assert late.status is AnswerStatus.CLOSED

    board = await quiz.boards.leaderboard(BO, Period.WEEK)
    assert [(r.user_id, r.points, r.rank) for r in board.rows] == [("ana", 1, 1)]
    assert board.me is None  # no points, so not ranked


async def test_a_run_scores_first_meetings_and_ranks_with_posts(
    quiz: Capabilities, clock: ManualClock
) -> None:
    step = await quiz.runs.start_run(BO)
    assert isinstance(step, RunStep)
    rights = 0
    while step is not None:
        question = step.question
        choice = question.answer if rights < 2 else (question.answer + 1) % len(question.choices)
        rights += choice == question.answer
        clock.advance(timedelta(seconds=30))
        feedback = await quiz.runs.run_answer(
            BO, step.run.id, question.id, step.order.index(choice)
        )
        step = feedback.next
    assert feedback.summary is not None and feedback.summary.points == 2

    replay = await quiz.runs.start_run(BO)  # practice: the same questions score nothing again
    assert isinstance(replay, RunStep)
    first = replay.question
    feedback = await quiz.runs.run_answer(
        BO, replay.run.id, first.id, replay.order.index(first.answer)
    )
    assert feedback.correct and feedback.answer.points == 0

    view = await quiz.answering.post(HOST, "C1")
    await quiz.answering.answer(ANA, view.post.id, view.post.order.index(view.question.answer))
    board = await quiz.boards.leaderboard(ANA, Period.ALL)
    assert [(r.user_id, r.points, r.rank) for r in board.rows] == [("bo", 2, 1), ("ana", 1, 2)]
    stats = await quiz.boards.stats(BO)
    assert (stats.totals.points, stats.rank) == (2, 1)
