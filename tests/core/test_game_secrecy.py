"""Nothing about an open game question's answer can be learnt before its reveal (issue 32,
finding 3): not through review, `/quiz stats`, the leaderboards or the mastery board, on
SQLite, PostgreSQL and the memory store. A game's clicks are stored at once (the ack's
promise) and scored at the reveal, by the same write as any click: afterwards everything
reads as if they had been scored when they were made."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from bot.bootstrap import capabilities
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.leaderboard import Period
from bot.domain.review import ReviewDone, ReviewStep
from bot.domain.stats import Stats
from bot.service.ports import QuizStore
from tests import factories
from tests.core.test_games import CHANNEL, HOST, SERVER, START, Process, click
from tests.storage.databases import any_store

__all__ = ["any_store"]

ANA = Actor(SERVER, "ana")
"""Missed the game's question in a daily post last week: it is due in her review."""
BO = Actor(SERVER, "bo")
"""Meets the question for the first time in the game."""


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


def seen(stats: Stats) -> tuple[object, ...]:
    """All that `/quiz stats` tells of a person's answers."""
    return (stats.totals, stats.rank, stats.mastery.mastered, stats.due, stats.streak)


async def test_an_open_game_question_gives_nothing_away_until_its_reveal(
    any_store: QuizStore, clock: ManualClock
) -> None:
    p = Process(any_store, clock)
    p.quiz.catalog.decks = factories.library(factories.deck("demo", n=1))
    earlier = capabilities(
        store=any_store, decks=p.quiz.catalog.decks, clock=clock, rng=random.Random(1)
    )
    old = await earlier.answering.post(HOST, "C-daily", "demo", "q1")
    await click(p, old, ANA.user_id, right=False)
    await earlier.answering.close_by_system(old.post.id)
    clock.advance(timedelta(days=7))

    game = await p.games.start(HOST, CHANNEL, "demo", 1, 20)
    await p.games.tick()
    clock.advance(timedelta(seconds=5))
    await p.games.tick()
    (view,) = p.delivery.posts
    assert view.question.id == "q1"
    before = {a.user_id: seen(await p.quiz.boards.stats(a)) for a in (ANA, BO)}
    boards = [await p.quiz.boards.leaderboard(BO, period) for period in Period]
    mastery = await p.quiz.boards.mastery_board(BO)

    await click(p, view, ANA.user_id, right=True)
    await click(p, view, BO.user_id, right=True)

    # Review: her card of q1 is due, but the channel is still guessing q1. Before, the
    # click exempted her ("she was shown its answer"), and review showed it to her.
    waiting = await p.quiz.review.start_review(ANA)
    assert isinstance(waiting, ReviewDone)
    # Stats, the leaderboards, the mastery board: all as before the clicks.
    now = (
        {a.user_id: seen(await p.quiz.boards.stats(a)) for a in (ANA, BO)},
        [await p.quiz.boards.leaderboard(BO, period) for period in Period],
        await p.quiz.boards.mastery_board(BO),
    )
    assert now == (before, boards, mastery)
    assert (await p.quiz.boards.leaderboard(BO, Period.WEEK)).me is None
    assert await any_store.answer_count(view.post.id) == 2  # stored, and counted as clicks

    clock.advance(timedelta(seconds=20))
    await p.games.tick()
    (reveal,) = p.delivery.reveals
    assert reveal.total == 2
    # Revealed: everything counts, as the same clicks on an ordinary post would.
    bo = await p.quiz.boards.stats(BO)
    assert (bo.totals.answered, bo.totals.correct, bo.totals.points) == (1, 1, 1)
    assert bo.mastery.mastered == 1 and bo.rank == 1
    ana = await p.quiz.boards.stats(ANA)  # met q1 before: right now, but practice
    assert (ana.totals.answered, ana.totals.correct, ana.totals.points) == (2, 1, 0)
    week = await p.quiz.boards.leaderboard(BO, Period.WEEK)
    assert [(r.user_id, r.points) for r in week.rows] == [("bo", 1)]
    assert [(r.user_id, r.points) for r in (await p.quiz.boards.mastery_board(BO)).rows] == [
        ("bo", 1)
    ]
    review = await p.quiz.review.start_review(ANA)
    assert isinstance(review, ReviewStep) and review.question.id == "q1"  # missed before
    done = await any_store.game(game.id)
    assert done is not None and done.state.value == "finished"
