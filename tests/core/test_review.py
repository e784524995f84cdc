"""Review of misses: what a person missed comes back, privately, after growing intervals in
the server's time zone, never scoring; mastery by topic. On SQLite, PostgreSQL and memory."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.bootstrap import capabilities
from bot.decks.model import DeckLibrary
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.errors import QuizError
from bot.domain.leaderboard import Period
from bot.domain.review import ReviewDone, ReviewStep
from bot.domain.run import RunStep
from bot.service.ports import QuizStore
from bot.service.services import Capabilities
from tests import factories
from tests.storage.databases import any_store

__all__ = ["any_store"]

SERVER = "slack:T1"
ME = Actor(SERVER, "me")
OTHER = Actor(SERVER, "other")
LONDON = ZoneInfo("Europe/London")


def tagged_library() -> DeckLibrary:
    base = factories.deck("demo", n=4)
    tags = {"q1": ("pipeline",), "q2": ("pipeline", "memory"), "q3": ("memory",), "q4": ()}
    questions = tuple(replace(q, tags=tags[q.id]) for q in base.questions)
    return DeckLibrary([replace(base, questions=questions)])


@pytest.fixture
def clock() -> ManualClock:
    # Saturday 24 October 2026, 23:30 in London (BST): the clocks go back at 02:00 tonight.
    return ManualClock(datetime(2026, 10, 24, 23, 30, tzinfo=LONDON))


@pytest.fixture
async def quiz(any_store: QuizStore, clock: ManualClock) -> Capabilities:
    await any_store.set_server_timezone(SERVER, "Europe/London")
    return capabilities(store=any_store, decks=tagged_library(), clock=clock, rng=random.Random(3))


async def _post_and_answer(quiz: Capabilities, actor: Actor, question: str, right: bool) -> None:
    view = await quiz.answering.post(Actor(SERVER, "poster"), f"C-{question}", "demo", question)
    want = view.question.answer if right else (view.question.answer + 1) % 3
    await quiz.answering.answer(actor, view.post.id, view.post.order.index(want))
    await quiz.answering.close_by_system(view.post.id)


async def _miss_two(quiz: Capabilities) -> None:
    """q1 missed in a post, q2 missed in a run, q3 right in the run."""
    await _post_and_answer(quiz, ME, "q1", right=False)
    step = await quiz.runs.start_run(ME, "demo")
    while isinstance(step, RunStep):
        q = step.question
        choice = q.answer if q.id != "q2" else (q.answer + 1) % 3
        fb = await quiz.runs.run_answer(ME, step.run.id, q.id, step.order.index(choice))
        step = fb.next


async def _review_all(quiz: Capabilities, right: bool = True) -> list[str]:
    """Answers every due review question; the question ids, in the order shown."""
    seen = []
    step = await quiz.review.start_review(ME)
    while isinstance(step, ReviewStep):
        seen.append(step.question.id)
        q = step.question
        choice = q.answer if right else (q.answer + 1) % 3
        fb = await quiz.review.review_answer(
            ME, step.card.key, step.number, step.order.index(choice)
        )
        assert fb.correct is right and not fb.duplicate
        step = fb.next
    return seen


async def _due(quiz: Capabilities) -> int:
    step = await quiz.review.start_review(ME)
    return 0 if isinstance(step, ReviewDone) else step.due


async def test_two_misses_are_exactly_the_review_and_come_back_when_due_in_local_days(
    quiz: Capabilities, clock: ManualClock
) -> None:
    """The issue's Done-when, across the night the clocks go back in London."""
    await _miss_two(quiz)
    assert await _review_all(quiz) == ["q1", "q2"]
    done = await quiz.review.start_review(ME)
    assert isinstance(done, ReviewDone) and done.next_due == date(2026, 10, 25)

    # 40 minutes later it is Sunday in London (still Saturday in UTC, and not a day since).
    clock.set(datetime(2026, 10, 25, 0, 10, tzinfo=LONDON))
    assert clock.now().date() == date(2026, 10, 24)
    assert await _review_all(quiz) == ["q1", "q2"]  # box 2: back in 3 local days
    # The clocks went back at 02:00: 72 hours after that review is Tuesday 23:10 GMT.
    clock.set(datetime(2026, 10, 27, 23, 50, tzinfo=LONDON))
    assert await _due(quiz) == 0
    clock.set(datetime(2026, 10, 28, 0, 5, tzinfo=LONDON))
    assert await _review_all(quiz) == ["q1", "q2"]  # box 3: 7 days
    clock.set(datetime(2026, 11, 3, 23, 59, tzinfo=LONDON))
    assert await _due(quiz) == 0
    clock.set(datetime(2026, 11, 4, 8, 0, tzinfo=LONDON))
    step = await quiz.review.start_review(ME)
    assert isinstance(step, ReviewStep) and step.question.id == "q1" and step.due == 2


async def test_a_miss_in_review_brings_it_back_tomorrow_from_the_first_box(
    quiz: Capabilities, clock: ManualClock
) -> None:
    await _miss_two(quiz)
    await _review_all(quiz)  # both to box 1
    clock.advance(timedelta(days=1))
    step = await quiz.review.start_review(ME)
    assert isinstance(step, ReviewStep)
    wrong = (step.question.answer + 1) % 3
    fb = await quiz.review.review_answer(ME, step.card.key, step.number, step.order.index(wrong))
    assert not fb.correct and fb.card.box == 0 and fb.days == 1
    assert isinstance(fb.next, ReviewStep) and fb.next.question.id == "q2"
    assert await _review_all(quiz) == ["q2"]  # right again: box 2, back in 3 days
    clock.advance(timedelta(days=1))
    assert await _review_all(quiz) == ["q1"]


async def test_review_never_scores_and_a_second_click_counts_once(
    quiz: Capabilities, clock: ManualClock
) -> None:
    await _miss_two(quiz)
    before = await quiz.boards.leaderboard(ME, Period.ALL)
    step = await quiz.review.start_review(ME)
    assert isinstance(step, ReviewStep)
    right = step.order.index(step.question.answer)
    first = await quiz.review.review_answer(ME, step.card.key, step.number, right)
    again = await quiz.review.review_answer(ME, step.card.key, step.number, right)
    assert (first.duplicate, again.duplicate) == (False, True)
    assert again.card == first.card and again.card.reviews == 1
    after = await quiz.boards.leaderboard(ME, Period.ALL)
    assert [(r.user_id, r.points) for r in after.rows] == [
        (r.user_id, r.points) for r in before.rows
    ]
    with pytest.raises(QuizError) as refused:  # a number not shown yet: forged
        await quiz.review.review_answer(ME, step.card.key, step.number + 5, right)
    assert refused.value.key == "stale_click"


async def test_a_question_open_in_a_channel_waits_out_of_review(quiz: Capabilities) -> None:
    await _miss_two(quiz)
    live = await quiz.answering.post(Actor(SERVER, "poster"), "C-live", "demo", "q1")
    step = await quiz.review.start_review(ME)
    assert isinstance(step, ReviewStep) and step.question.id == "q2" and step.due == 1
    # Once they answered it there (and were shown its answer), it is theirs to review.
    await quiz.answering.answer(ME, live.post.id, live.post.order.index(live.question.answer))
    step = await quiz.review.start_review(ME)
    assert isinstance(step, ReviewStep) and step.question.id == "q1" and step.due == 2


async def test_an_earlier_review_card_of_a_question_open_now_is_refused(quiz: Capabilities) -> None:
    """Finding 8: the button of a review answered earlier, clicked again while the question
    is open in a channel, would show its answer there; it is refused in words instead."""
    await _miss_two(quiz)
    step = await quiz.review.start_review(ME)
    assert isinstance(step, ReviewStep) and step.question.id == "q1"
    right = step.order.index(step.question.answer)
    await quiz.review.review_answer(ME, step.card.key, step.number, right)
    live = await quiz.answering.post(Actor(SERVER, "poster"), "C-live", "demo", "q1")
    with pytest.raises(QuizError) as refused:
        await quiz.review.review_answer(ME, step.card.key, step.number, right)
    assert refused.value.key == "review_question_open"
    assert refused.value.params == {"channel": "C-live"}
    # Once they answered it in the channel, the old card may say what it said before.
    await quiz.answering.answer(ME, live.post.id, live.post.order.index(live.question.answer))
    again = await quiz.review.review_answer(ME, step.card.key, step.number, right)
    assert again.duplicate and again.question.id == "q1"


async def test_mastery_by_topic_and_the_mastery_leaderboard(
    quiz: Capabilities, clock: ManualClock
) -> None:
    await _miss_two(quiz)  # q1, q2 missed; q3 right; q4 right (the run goes on)
    await _post_and_answer(quiz, OTHER, "q3", right=True)
    stats = await quiz.boards.stats(ME)
    assert stats.mastery is not None and stats.due == 2
    topics = {t.tag: (t.mastered, t.total, t.due) for t in stats.mastery.topics}
    assert topics == {"memory": (1, 2, 1), "pipeline": (0, 2, 2)}
    assert stats.mastery.mastered == 2
    assert stats.mastery.weakest is not None and stats.mastery.weakest.tag == "pipeline"

    step = await quiz.review.start_review(ME, tag="memory")
    assert isinstance(step, ReviewStep) and step.question.id == "q2" and step.due == 1
    fb = await quiz.review.review_answer(
        ME, step.card.key, step.number, step.order.index(step.question.answer), tag="memory"
    )
    assert isinstance(fb.next, ReviewDone) and fb.next.tag == "memory"
    stats = await quiz.boards.stats(ME)
    assert stats.mastery is not None and stats.mastery.mastered == 3
    assert (await quiz.boards.stats(OTHER, "me")).due is None  # due counts are one's own

    board = await quiz.boards.mastery_board(OTHER)
    assert board.mastery
    assert [(r.user_id, r.points, r.rank) for r in board.rows] == [("me", 3, 1), ("other", 1, 2)]


async def test_forgetting_a_person_empties_their_review(quiz: Capabilities) -> None:
    await _miss_two(quiz)
    assert isinstance(await quiz.review.start_review(ME), ReviewStep)
    await quiz.membership.forget_me(ME)
    done = await quiz.review.start_review(ME)
    assert isinstance(done, ReviewDone) and done.next_due is None


async def test_a_topic_no_deck_has_is_refused(quiz: Capabilities) -> None:
    assert quiz.catalog.topics() == ["memory", "pipeline"]
    with pytest.raises(QuizError) as refused:
        await quiz.review.start_review(ME, tag="bogus")
    assert refused.value.key == "unknown_topic"


async def test_six_rights_in_a_row_and_a_question_is_learnt(
    quiz: Capabilities, clock: ManualClock
) -> None:
    await _post_and_answer(quiz, ME, "q3", right=False)
    waits = []
    for _ in range(6):
        step = await quiz.review.start_review(ME)
        assert isinstance(step, ReviewStep) and step.question.id == "q3"
        right = step.order.index(step.question.answer)
        fb = await quiz.review.review_answer(ME, step.card.key, step.number, right)
        waits.append(fb.days)
        if fb.days is not None:
            clock.advance(timedelta(days=fb.days))
    assert waits == [1, 3, 7, 16, 35, None]
    clock.advance(timedelta(days=400))
    done = await quiz.review.start_review(ME)
    assert isinstance(done, ReviewDone) and done.next_due is None
    assert (await quiz.boards.mastery(ME)).mastered == 1
