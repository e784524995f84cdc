"""The live game in the core, on SQLite, PostgreSQL and the memory store: a whole game of
three questions with many players (each reveal's counts are the stored answers, the
standings, the podium), the refusals, a restart in the middle of a question, and two
processes on one database that play each step once."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.bootstrap import build_games, capabilities
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.errors import QuizError
from bot.domain.game import LEASE, GameState, NewsKind, Placing, podium
from bot.domain.post import PostView
from bot.presentation.game_messages import WHEN
from bot.presentation.messages import post_message
from bot.service.deliveries import Deliveries
from bot.service.ports import QuizStore
from tests import factories
from tests.core.schedule_fakes import FakeDelivery
from tests.storage.databases import Database, any_store, db

__all__ = ["any_store", "db"]

SERVER = "slack:T1"
CHANNEL = "C1"
HOST = Actor(SERVER, "host")
START = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)


class Process:
    """One bot process: its own quiz and game loop on a shared store and clock."""

    def __init__(self, store: QuizStore, clock: ManualClock, seed: int = 1) -> None:
        self.delivery = FakeDelivery()
        self.store = store
        self.quiz = capabilities(
            store=store,
            decks=factories.library(factories.deck("demo", n=5)),
            clock=clock,
            rng=random.Random(seed),
        )
        deliveries = Deliveries({"slack": self.delivery})
        self.games = build_games(store, self.quiz, clock, deliveries, random.Random(seed))


def right_index(view: PostView) -> int:
    """The button (0 = A) of the right choice, as shown."""
    return view.post.order.index(view.question.answer)


async def click(p: Process, view: PostView, user: str, right: bool) -> None:
    shown = right_index(view) if right else (right_index(view) + 1) % len(view.post.order)
    await p.quiz.answering.answer(Actor(SERVER, user), view.post.id, shown)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


async def test_a_game_of_three_questions_with_many_players(
    any_store: QuizStore, clock: ManualClock
) -> None:
    p = Process(any_store, clock)
    game = await p.games.start(HOST, CHANNEL, "demo", "3", 20)
    assert (game.rounds, game.seconds, game.state) == (3, 20, GameState.RUNNING)

    await p.games.tick()
    (started,) = p.delivery.news
    assert started.kind is NewsKind.STARTED and started.game.rounds == 3
    await p.games.tick()
    assert len(p.delivery.posts) == 0  # the first question comes a few seconds later

    # Who answers right in each question: 12 players, some never right, some not every time.
    plan = {
        1: {f"p{i}": i % 3 != 0 for i in range(12)},
        2: {f"p{i}": i % 2 == 0 for i in range(10)},
        3: {f"p{i}": i < 4 for i in range(12)},
    }
    asked: set[str] = set()
    for number in (1, 2, 3):
        clock.advance(timedelta(seconds=5))
        await p.games.tick()
        view = p.delivery.posts[-1]
        assert view.game is not None
        assert (view.game.number, view.game.of) == (number, 3)
        assert view.game.closes_at == view.post.opened_at + timedelta(seconds=20)
        assert view.post.game_id == game.id and view.question.id not in asked
        asked.add(view.question.id)
        for user, right in plan[number].items():
            await click(p, view, user, right)
        await click(p, view, "p0", not plan[number]["p0"])  # a second click changes nothing
        clock.advance(timedelta(seconds=19))
        await p.games.tick()
        assert len(p.delivery.reveals) == number - 1  # not before its deadline
        clock.advance(timedelta(seconds=1))
        await p.games.tick()
        reveal = p.delivery.reveals[-1]
        assert reveal.view.post.id == view.post.id and reveal.view.game == view.game
        assert reveal.total == len(plan[number])
        right_count = sum(plan[number].values())
        assert [r.count for r in reveal.rows if r.right] == [right_count]

    points = {f"p{i}": 0 for i in range(12)}
    for answers in plan.values():
        for user, right in answers.items():
            points[user] += right
    kinds = [n.kind for n in p.delivery.news]
    assert kinds == [NewsKind.STARTED, NewsKind.STANDINGS, NewsKind.STANDINGS, NewsKind.RESULTS]
    after_two = p.delivery.news[2]
    assert after_two.asked == 2 and after_two.players == 12
    results = p.delivery.news[-1]
    assert not results.stopped and results.players == 12
    expected = sorted(points.items(), key=lambda kv: (-kv[1], kv[0]))
    assert [(pl.user_id, pl.points) for pl in results.board] == expected
    assert [(pl.place, pl.user_id) for pl in results.board[:7]] == [
        (1, "p2"),
        (2, "p0"),
        (2, "p1"),
        (2, "p4"),
        (2, "p8"),
        (6, "p10"),
        (6, "p11"),
    ]  # equal points share a place; the next place counts those before it
    assert results.board[-1] == Placing(12, "p9", 0)
    assert [pl.place for pl in podium(results.board)] == [1, 2, 2, 2, 2]
    tops = results.board[:1]

    assert (await any_store.game(game.id)).state is GameState.FINISHED  # type: ignore[union-attr]
    await p.games.tick()
    assert len(p.delivery.posts) == 3 and len(p.delivery.news) == 4  # nothing more
    winner = tops[0].user_id
    assert await any_store.games_of(SERVER, winner) == (1, 1)
    assert await any_store.games_of(SERVER, "p11") == (1, 0)
    stats = await p.quiz.boards.stats(Actor(SERVER, winner))
    assert stats.games == (1, 1)
    # The leaderboard follows the usual rules: a right answer in the game scores once.
    assert stats.totals.points == points[winner]


async def test_one_game_per_channel_and_only_its_starter_or_an_admin_stops_it(
    any_store: QuizStore, clock: ManualClock
) -> None:
    p = Process(any_store, clock)
    await p.games.start(HOST, CHANNEL, "demo", 2, 30)
    with pytest.raises(QuizError) as second:
        await p.games.start(Actor(SERVER, "other"), CHANNEL)
    assert second.value.key == "game_running"
    await p.games.start(Actor(SERVER, "other"), "C2", "demo", 1, 10)  # another channel may
    for questions, seconds, key in (
        (0, 20, "game_questions"),
        (51, 20, "game_questions"),
        (5, 9, "game_seconds"),
        ("ten", 20, "game_questions"),
    ):
        with pytest.raises(QuizError) as bad:
            await p.games.start(HOST, "C3", "demo", questions, seconds)
        assert bad.value.key == key

    await p.games.tick()
    clock.advance(timedelta(seconds=5))
    await p.games.tick()
    (view,) = [v for v in p.delivery.posts if v.post.channel_id == CHANNEL]
    await click(p, view, "p1", True)
    with pytest.raises(QuizError) as not_theirs:
        await p.games.stop(Actor(SERVER, "p1"), CHANNEL)
    assert not_theirs.value.key == "not_your_game"
    with pytest.raises(QuizError) as none:
        await p.games.stop(HOST, "C9")
    assert none.value.key == "no_game"

    await p.games.stop(Actor(SERVER, "an admin", is_admin=True), CHANNEL)
    await p.games.tick()
    (reveal,) = [r for r in p.delivery.reveals if r.view.post.channel_id == CHANNEL]
    assert reveal.total == 1  # the open question revealed at once, its click counted
    results = [n for n in p.delivery.news if n.game.channel_id == CHANNEL][-1]
    assert results.kind is NewsKind.RESULTS and results.stopped
    assert [(pl.place, pl.user_id, pl.points) for pl in results.board] == [(1, "p1", 1)]
    assert await any_store.running_game(SERVER, CHANNEL) is None
    await p.games.start(HOST, CHANNEL, "demo")  # the channel is free again


async def test_a_restart_in_the_middle_of_a_question_loses_no_click(
    db: Database, clock: ManualClock
) -> None:
    first = Process(await db.open(), clock)
    game = await first.games.start(HOST, CHANNEL, "demo", 2, 20)
    await first.games.tick()
    clock.advance(timedelta(seconds=5))
    await first.games.tick()
    (view,) = first.delivery.posts
    for user in ("a", "b", "c"):
        await click(first, view, user, user != "c")  # acknowledged: the answer is stored

    # The process dies; another starts after the question's time ran out.
    clock.advance(timedelta(minutes=3))
    second = Process(await db.open(), clock, seed=2)
    await second.games.tick()
    (reveal,) = second.delivery.reveals
    assert reveal.view.post.id == view.post.id and reveal.total == 3
    assert [r.count for r in reveal.rows if r.right] == [2]
    assert second.delivery.news[-1].kind is NewsKind.STANDINGS
    clock.advance(timedelta(seconds=5))
    await second.games.tick()
    (next_view,) = second.delivery.posts
    assert next_view.game is not None and next_view.game.number == 2
    assert next_view.question.id != view.question.id
    clock.advance(timedelta(seconds=20))
    await second.games.tick()
    results = second.delivery.news[-1]
    assert results.kind is NewsKind.RESULTS
    assert [(pl.user_id, pl.points) for pl in results.board] == [("a", 1), ("b", 1), ("c", 0)]
    assert (await second.store.game(game.id)).state is GameState.FINISHED  # type: ignore[union-attr]


async def test_two_processes_on_one_database_play_each_step_once(
    db: Database, clock: ManualClock
) -> None:
    one, two = Process(await db.open(), clock), Process(await db.open(), clock, seed=2)
    await one.games.start(HOST, CHANNEL, "demo", 3, 10)

    async def both() -> None:
        await asyncio.gather(one.games.tick(), two.games.tick())

    await both()
    for _ in range(3):
        clock.advance(timedelta(seconds=5))
        await both()
        clock.advance(timedelta(seconds=10))
        await both()
    posts = one.delivery.posts + two.delivery.posts
    reveals = one.delivery.reveals + two.delivery.reveals
    news = one.delivery.news + two.delivery.news
    assert len(posts) == 3 and len({v.question.id for v in posts}) == 3
    assert sorted(r.view.post.id for r in reveals) == sorted(v.post.id for v in posts)
    assert sorted(n.kind.value for n in news) == sorted(
        ["started", "standings", "standings", "results"]
    )


async def test_a_step_whose_process_died_is_taken_over_once_its_claim_lapses(
    any_store: QuizStore, clock: ManualClock
) -> None:
    p = Process(any_store, clock)
    game = await p.games.start(HOST, CHANNEL, "demo", 1, 10)
    assert await any_store.claim_game(game.id, game.step, clock.now() + LEASE)  # then it died
    await p.games.tick()
    assert p.delivery.news == []
    clock.advance(LEASE)
    await p.games.tick()
    assert [n.kind for n in p.delivery.news] == [NewsKind.STARTED]


async def test_a_channel_the_bot_cannot_post_in_ends_the_game(
    any_store: QuizStore, clock: ManualClock
) -> None:
    p = Process(any_store, clock)
    p.delivery.fail[CHANNEL] = "not_in_channel"
    game = await p.games.start(HOST, CHANNEL, "demo")
    await p.games.tick()
    ended = await any_store.game(game.id)
    assert ended is not None and ended.state is GameState.STOPPED


async def test_a_question_that_needs_longer_gets_its_own_time_and_says_so(
    any_store: QuizStore, clock: ManualClock
) -> None:
    """A deck question with `seconds: 45` stays open 45 s in a 20-second game, and its
    message says so; one with `seconds: 15` still gets the game's 20 (at least the game's)."""
    slow, quick = (
        replace(factories.question(1), seconds=45),
        replace(factories.question(2), seconds=15),
    )
    p = Process(any_store, clock)
    p.quiz.catalog.decks = factories.library(
        replace(factories.deck("demo"), questions=(slow, quick))
    )
    await p.games.start(HOST, CHANNEL, "demo", "2", 20)
    await p.games.tick()
    given: dict[str, int] = {}
    for _ in range(2):
        clock.advance(timedelta(seconds=5))
        await p.games.tick()
        view = p.delivery.posts[-1]
        assert view.game is not None
        given[view.question.id] = view.game.seconds
        assert view.game.closes_at == view.post.opened_at + timedelta(seconds=view.game.seconds)
        assert post_message(view).closes == (
            f"⏱ {view.game.seconds} seconds to answer · closes {WHEN}"
        )
        clock.advance(timedelta(seconds=view.game.seconds - 1))
        await p.games.tick()
        assert p.delivery.reveals == [] or p.delivery.reveals[-1].view.post.id != view.post.id
        clock.advance(timedelta(seconds=1))
        await p.games.tick()
        assert p.delivery.reveals[-1].view.post.id == view.post.id
    assert given == {"q1": 45, "q2": 20}
