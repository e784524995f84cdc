"""Fair play: a question scores once per user and season, at the first meeting (an answer in a
post or a run, or closing its post), and is open in one post of a server at a time, so
neither repetition nor a reveal elsewhere buys points. On SQLite, PostgreSQL and memory."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from bot.bootstrap import capabilities
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.errors import QuizError
from bot.domain.leaderboard import Period
from bot.domain.records import AnswerStatus
from bot.domain.run import RunStep, RunSummary
from bot.domain.schedule import next_question
from bot.service.ports import QuizStore
from bot.service.services import Capabilities
from tests import factories
from tests.storage.databases import any_store

__all__ = ["any_store"]

SERVER = "slack:T1"
MEMBER = Actor(SERVER, "member")
ADMIN = Actor(SERVER, "admin", is_admin=True)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 3, 4, 12, tzinfo=UTC))


@pytest.fixture
def quiz(any_store: QuizStore, clock: ManualClock) -> Capabilities:
    return capabilities(
        store=any_store, decks=factories.library(), clock=clock, rng=random.Random(7)
    )


async def _right(quiz: Capabilities, actor: Actor, post_id: int) -> AnswerStatus:
    view = await quiz.answering.view(post_id)
    result = await quiz.answering.answer(
        actor, post_id, view.post.order.index(view.question.answer)
    )
    assert result.correct
    return result.status


async def test_posting_answering_and_closing_again_and_again_scores_once(
    quiz: Capabilities, clock: ManualClock
) -> None:
    """The reported farm: a member posts in a channel of their own, answers, closes, five
    times. Before: `1. <@member> · 5`."""
    replies = []
    for _ in range(5):
        clock.advance(timedelta(minutes=1))
        view = await quiz.answering.post(MEMBER, "C-mine", "demo", "q1")
        result = await quiz.answering.answer(
            MEMBER, view.post.id, view.post.order.index(view.question.answer)
        )
        replies.append((result.status, result.correct, result.practice))
        await quiz.answering.close(MEMBER, "C-mine")
    assert replies[0] == (AnswerStatus.NEW, True, False)
    assert replies[1:] == [(AnswerStatus.NEW, True, True)] * 4  # "no point this time"
    board = await quiz.boards.leaderboard(MEMBER, Period.ALL)
    assert [(row.user_id, row.points) for row in board.rows] == [("member", 1)]
    stats = await quiz.boards.stats(MEMBER)
    assert (stats.totals.answered, stats.totals.correct, stats.totals.points) == (5, 5, 1)


async def test_a_question_open_in_one_channel_cannot_be_posted_in_another(
    quiz: Capabilities,
) -> None:
    """The reported leak: posting #general's open question elsewhere and closing it there
    showed its answer while #general still guessed."""
    general = await quiz.answering.post(ADMIN, "C-general", "demo", "q1")
    with pytest.raises(QuizError) as refused:
        await quiz.answering.post(MEMBER, "C-mine", "demo", "q1")
    assert (refused.value.key, refused.value.params) == ("question_open", {"channel": "C-general"})
    other = await quiz.answering.post(MEMBER, "C-mine", "demo", "q2")  # another question is fine
    assert other.question.id == "q2"
    await quiz.answering.close(ADMIN, "C-general")
    again = await quiz.answering.post(MEMBER, "C-mine2", "demo", "q1")  # closed there: free again
    assert again.post.id != general.post.id
    in_another_server = await quiz.answering.post(Actor("discord:9", "x"), "C-x", "demo", "q2")
    assert in_another_server.post.server_id == "discord:9"


async def test_whoever_closes_a_post_has_met_its_question(quiz: Capabilities) -> None:
    view = await quiz.answering.post(MEMBER, "C-mine", "demo", "q2")
    await quiz.answering.close(MEMBER, "C-mine")  # the reveal shows the member the answer
    later = await quiz.answering.post(ADMIN, "C-general", "demo", "q2")
    assert await _right(quiz, MEMBER, later.post.id) is AnswerStatus.NEW
    assert await _right(quiz, Actor(SERVER, "newcomer"), later.post.id) is AnswerStatus.NEW
    board = await quiz.boards.leaderboard(ADMIN, Period.ALL)
    assert [(row.user_id, row.points) for row in board.rows] == [("newcomer", 1)]
    assert view.post.id != later.post.id


async def test_a_run_passes_over_a_question_open_in_the_server(quiz: Capabilities) -> None:
    """The reported leak: a private run showed the answer to the question open in a channel."""
    await quiz.answering.post(ADMIN, "C-general", "demo", "q1")
    step = await quiz.runs.start_run(MEMBER, "demo")
    seen = []
    while isinstance(step, RunStep):
        seen.append(step.question.id)
        feedback = await quiz.runs.run_answer(
            MEMBER, step.run.id, step.question.id, step.order.index(step.question.answer)
        )
        step = feedback.next or feedback.summary
    assert "q1" not in seen and seen == ["q2", "q3"]
    assert isinstance(step, RunSummary) and step.points == 2


async def test_a_run_step_posted_meanwhile_waits_for_its_channel(quiz: Capabilities) -> None:
    step = await quiz.runs.start_run(MEMBER, "demo")
    assert isinstance(step, RunStep) and step.question.id == "q1"
    # Posted while the step is on screen:
    await quiz.answering.post(ADMIN, "C-general", "demo", "q1")
    with pytest.raises(QuizError) as refused:
        await quiz.runs.run_answer(MEMBER, step.run.id, "q1", 0)
    assert (refused.value.key, refused.value.params) == (
        "run_question_open",
        {"channel": "C-general"},
    )
    resumed = await quiz.runs.start_run(MEMBER, "demo")
    assert isinstance(resumed, RunStep) and resumed.question.id == "q2"


async def test_a_question_met_in_a_run_is_practice_in_a_post(quiz: Capabilities) -> None:
    step = await quiz.runs.start_run(MEMBER, "demo")
    assert isinstance(step, RunStep)
    await quiz.runs.run_answer(MEMBER, step.run.id, step.question.id, 0)  # right or wrong: met
    view = await quiz.answering.post(ADMIN, "C-general", "demo", step.question.id)
    result = await quiz.answering.answer(
        MEMBER, view.post.id, view.post.order.index(view.question.answer)
    )
    assert result.status is AnswerStatus.NEW
    assert result.practice == result.correct
    stats = await quiz.boards.stats(MEMBER)
    assert stats.totals.points == int(step.order[0] == step.question.answer)


async def test_a_new_season_is_a_new_first_meeting(quiz: Capabilities) -> None:
    first = await quiz.answering.post(MEMBER, "C-mine", "demo", "q1")
    await _right(quiz, MEMBER, first.post.id)
    await quiz.answering.close(MEMBER, "C-mine")
    await quiz.membership.reset(ADMIN, confirms=1)
    second = await quiz.answering.post(MEMBER, "C-mine", "demo", "q1")
    await _right(quiz, MEMBER, second.post.id)
    assert (await quiz.boards.stats(MEMBER)).totals.points == 1  # this season's point


def test_a_daily_question_waits_while_it_is_open_elsewhere() -> None:
    deck = factories.deck(n=4)
    plain = next_question(7, deck, [])
    other = next_question(7, deck, [], skip={plain.id})
    assert other.id != plain.id
    everything_open = next_question(7, deck, [], skip={q.id for q in deck.questions})
    assert everything_open.id == plain.id  # nothing else to post: the post will say why
