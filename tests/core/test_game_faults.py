"""The live game through faults, on SQLite, PostgreSQL and the memory store, driven by the
ManualClock: a database that refuses a write, a question sent but not recorded, platform
errors that pass and channels that refuse the bot, a slow channel beside a game on time, a
click after the deadline, and a deck reloaded or removed mid-game (issue 32, findings 1,
2, 4, 5 and 6)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest

from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.game import GIVE_UP, LEASE, START_DELAY, EndCause, GameState, NewsKind
from bot.domain.records import AnswerStatus
from bot.service.ports import QuizStore
from tests import factories
from tests.core.flaky_store import FlakyStore, until
from tests.core.test_games import CHANNEL, HOST, SERVER, START, Process, click, right_index
from tests.storage.databases import any_store

__all__ = ["any_store"]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


async def open_first_question(p: Process, clock: ManualClock, rounds: int = 2) -> int:
    """Starts a game, announces it and asks its first question; the game's id."""
    game = await p.games.start(HOST, CHANNEL, "demo", rounds, 10)
    await p.games.tick()
    clock.advance(START_DELAY)
    await p.games.tick()
    return game.id


# Finding 1: a refused write never escapes a tick ---------------------------------------


async def test_a_refused_claim_never_escapes_a_tick(
    any_store: QuizStore, clock: ManualClock
) -> None:
    """Before, `claim_game` ran outside the step's `try`: its error left `tick()` and, from
    `run()`, stopped every platform with it."""
    flaky = FlakyStore(any_store)
    p = Process(flaky.as_store(), clock)
    await p.games.start(HOST, CHANNEL, "demo", 1, 10)
    flaky.failing["claim_game"] = 2
    await p.games.tick()
    assert [n.kind for n in p.delivery.news] == [NewsKind.STARTED]
    assert clock.now() - START == timedelta(seconds=3)  # tried again after 1 s, then 2 s


async def test_an_unavailable_database_delays_a_step_and_never_ends_the_game(
    any_store: QuizStore, clock: ManualClock
) -> None:
    flaky = FlakyStore(any_store)
    p = Process(flaky.as_store(), clock)
    game = await p.games.start(HOST, CHANNEL, "demo", 1, 10)
    flaky.failing["move_game"] = 30  # about four minutes of refusals, longer than GIVE_UP
    await p.games.tick()
    assert clock.now() - START > GIVE_UP
    assert [n.kind for n in p.delivery.news] == [NewsKind.STARTED]  # announced once
    stored = await any_store.game(game.id)
    assert stored is not None and stored.state is GameState.RUNNING
    assert stored.due_at == clock.now() + START_DELAY  # the game's clock moved with it


# Finding 2: a question is never open without being visible ----------------------------


async def test_a_question_sent_but_not_recorded_is_withdrawn_and_counts_for_nothing(
    any_store: QuizStore, clock: ManualClock
) -> None:
    """A step posted a question and died before storing its message (a kill between the
    send and `set_message`): the channel shows it, and a player clicked it. Before, it
    stayed open for good, its click scored game points, and the game asked three."""
    p = Process(any_store, clock)
    game = await p.games.start(HOST, CHANNEL, "demo", 2, 10)
    await p.games.tick()
    clock.advance(START_DELAY)
    due = await any_store.game(game.id)
    assert due is not None and await any_store.claim_game(game.id, due.step, clock.now() + LEASE)
    lost = await p.quiz.answering.post(
        HOST, CHANNEL, "demo", game_id=game.id, closes_after=timedelta(seconds=10)
    )
    await click(p, lost, "early", True)  # acknowledged: held
    clock.advance(LEASE)  # the dead step's claim lapses

    await p.games.tick()
    first = p.delivery.posts[-1]
    assert first.post.id != lost.post.id and first.game is not None
    assert (first.game.number, first.game.of) == (1, 2)
    withdrawn = await any_store.post(lost.post.id)
    assert withdrawn is not None and withdrawn.closed_at is not None
    assert (lost.deck.id, lost.question.id) not in await any_store.open_questions(SERVER)

    for number in (1, 2):
        view = p.delivery.posts[-1]
        assert view.game is not None and view.game.number == number
        await click(p, view, "ana", True)
        clock.advance(timedelta(seconds=10))
        await p.games.tick()
        clock.advance(timedelta(seconds=5))
        await p.games.tick()
    results = p.delivery.news[-1]
    assert results.kind is NewsKind.RESULTS and results.asked == 2
    assert [(pl.user_id, pl.points) for pl in results.board] == [("ana", 2)]  # not "early"
    assert len(p.delivery.posts) == 2


async def test_a_message_the_database_would_not_record_is_tried_again(
    any_store: QuizStore, clock: ManualClock
) -> None:
    flaky = FlakyStore(any_store)
    p = Process(flaky.as_store(), clock)
    game = await p.games.start(HOST, CHANNEL, "demo", 2, 10)
    await p.games.tick()
    clock.advance(START_DELAY)
    flaky.failing["set_post_message"] = 2
    await p.games.tick()
    (view,) = p.delivery.posts
    recorded = await any_store.post(view.post.id)
    assert recorded is not None and recorded.message_ref == f"msg-{view.post.id}"
    assert (await any_store.game(game.id)).phase.value == "open"  # type: ignore[union-attr]

    flaky.failing["set_post_message"] = 4  # every try of the next question's
    clock.advance(timedelta(seconds=10))
    await p.games.tick()
    clock.advance(timedelta(seconds=5))
    await p.games.tick()  # refused four times; the step again: withdrawn, asked anew
    second, third = p.delivery.posts[1:]
    assert second.game is not None and third.game is not None
    assert second.game.number == third.game.number == 2
    gone = await any_store.post(second.post.id)
    assert gone is not None and gone.closed_at is not None and gone.message_ref is None
    shown = await any_store.post(third.post.id)
    assert shown is not None and shown.is_open and shown.message_ref is not None


# Finding 4: transient errors delay a step; a refused channel ends the game, in words ---


async def test_a_transient_platform_error_delays_a_step_and_never_ends_the_game(
    any_store: QuizStore, clock: ManualClock
) -> None:
    """Before, any DeliveryError (Slack's internal_error, a 5xx, a timeout) stopped the
    game silently."""
    p = Process(any_store, clock)
    game = await p.games.start(HOST, CHANNEL, "demo", 1, 10)
    p.delivery.flaky[CHANNEL] = 2  # the announcement fails twice
    await p.games.tick()
    assert [n.kind for n in p.delivery.news] == [NewsKind.STARTED]
    announced = START + timedelta(seconds=3)  # after 1 s and 2 s of backoff
    assert clock.now() == announced
    assert (await any_store.game(game.id)).due_at == announced + START_DELAY  # type: ignore[union-attr]

    clock.set(announced + START_DELAY)
    p.delivery.flaky[CHANNEL] = 1  # the question's post fails once: withdrawn, asked again
    await p.games.tick()
    (view,) = p.delivery.posts
    assert view.post.opened_at == announced + START_DELAY + timedelta(seconds=1)
    assert view.game is not None and view.game.closes_at == view.post.opened_at + timedelta(
        seconds=10
    )
    assert len(await any_store.game_posts(game.id)) == 2  # the first withdrawn
    await click(p, view, "ana", True)
    clock.set(view.game.closes_at)
    await p.games.tick()
    results = p.delivery.news[-1]
    assert results.kind is NewsKind.RESULTS and not results.stopped
    assert [(pl.user_id, pl.points) for pl in results.board] == [("ana", 1)]
    assert p.delivery.ended == []


async def test_a_channel_that_refuses_the_bot_ends_the_game_and_its_starter_is_told(
    any_store: QuizStore, clock: ManualClock
) -> None:
    p = Process(any_store, clock)
    game_id = await open_first_question(p, clock, rounds=3)
    (view,) = p.delivery.posts
    await click(p, view, "ana", True)
    refusal = "Slack answered not_in_channel (the bot is not in the channel)"
    p.delivery.fail[CHANNEL] = refusal  # the bot was removed from the channel meanwhile
    clock.advance(timedelta(seconds=10))
    await p.games.tick()
    ended = await any_store.game(game_id)
    assert ended is not None and ended.state is GameState.STOPPED
    (told,) = p.delivery.ended
    assert told.cause is EndCause.CANNOT_POST and told.reason == refusal
    assert told.game.starter_id == HOST.user_id and told.asked == 1
    assert [(pl.user_id, pl.points) for pl in told.board] == [("ana", 1)]
    assert [n.kind for n in p.delivery.news] == [NewsKind.STARTED]  # nothing more posted
    assert await any_store.games_of(SERVER, "ana") == (1, 1)


async def test_a_platform_failing_for_minutes_ends_the_game_with_everyone_told_why(
    any_store: QuizStore, clock: ManualClock
) -> None:
    p = Process(any_store, clock)
    game_id = await open_first_question(p, clock)
    p.delivery.flaky[CHANNEL] = 1000  # Slack answers internal_error from now on
    clock.advance(timedelta(seconds=10))
    began = clock.now()
    await p.games.tick()
    assert GIVE_UP <= clock.now() - began <= GIVE_UP + timedelta(seconds=8)
    ended = await any_store.game(game_id)
    assert ended is not None and ended.state is GameState.STOPPED
    (told,) = p.delivery.ended
    assert told.cause is EndCause.FAILING and told.reason == "Slack answered internal_error"
    p.delivery.flaky[CHANNEL] = 0
    await p.games.tick()
    assert len(p.delivery.news) == 1  # nothing more: the game is over


# Finding 5: each game steps on its own, and the deadline holds in the data --------------


async def test_one_slow_channel_never_delays_another_games_deadline(
    any_store: QuizStore, clock: ManualClock
) -> None:
    """Before, a tick awaited every due step: a slow announcement in one channel held up
    another channel's reveal."""
    p = Process(any_store, clock)
    await open_first_question(p, clock, rounds=1)
    (view,) = p.delivery.posts
    assert view.game is not None
    p.delivery.hold["C2"] = asyncio.Event()  # Slack takes its time in C2
    await p.games.start(Actor(SERVER, "bo"), "C2", "demo", 1, 10)
    running = asyncio.create_task(p.games.run())
    try:
        await until(lambda: bool(p.delivery.reveals))
        (reveal,) = p.delivery.reveals  # revealed while the other channel hangs
        assert reveal.view.post.id == view.post.id
        assert [n.game.channel_id for n in p.delivery.news].count("C2") == 0  # still held
    finally:
        p.delivery.hold["C2"].set()
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running


async def test_a_click_after_the_deadline_is_too_late_whatever_the_loop_is_doing(
    any_store: QuizStore, clock: ManualClock
) -> None:
    p = Process(any_store, clock)
    await open_first_question(p, clock)
    (view,) = p.delivery.posts
    assert view.game is not None
    deadline = view.game.closes_at
    assert (await any_store.post(view.post.id)).closes_at == deadline  # type: ignore[union-attr]
    clock.set(deadline + timedelta(milliseconds=900))  # within the grace: counts
    on_time = await p.quiz.answering.answer(Actor(SERVER, "ana"), view.post.id, right_index(view))
    clock.set(deadline + timedelta(milliseconds=1100))  # the loop has not revealed it yet
    late = await p.quiz.answering.answer(Actor(SERVER, "bo"), view.post.id, right_index(view))
    assert on_time.status is AnswerStatus.NEW
    assert late.status is AnswerStatus.CLOSED and late.choice is None
    assert await any_store.answer_count(view.post.id) == 1
    await p.games.tick()
    (reveal,) = p.delivery.reveals
    assert reveal.total == 1


# Finding 6: a deck reloaded or removed mid-game ----------------------------------------


async def test_a_deck_reloaded_mid_game_reveals_the_open_question_and_goes_on(
    any_store: QuizStore, clock: ManualClock
) -> None:
    """Reloaded twice while questions are open: once as it was, once without the open
    question. Each is revealed at its deadline and the game goes on at once."""
    p = Process(any_store, clock)
    game_id = await open_first_question(p, clock, rounds=3)
    for number in (1, 2):
        view = p.delivery.posts[-1]
        await click(p, view, "ana", True)
        kept = [q for q in factories.deck("demo", n=5)]
        if number == 2:  # the open question left out of the file
            kept = [q for q in kept if q.id != view.question.id]
        reloaded = replace(factories.deck("demo", n=5), questions=tuple(kept))
        p.quiz.catalog.decks = factories.library(reloaded)
        clock.advance(timedelta(seconds=10))
        await p.games.tick()
        reveal = p.delivery.reveals[-1]
        assert reveal.view.post.id == view.post.id and reveal.total == 1
        assert reveal.view.question.id == view.question.id
        assert p.delivery.news[-1].kind is NewsKind.STANDINGS
        clock.advance(timedelta(seconds=5))
        await p.games.tick()  # the next question at once, no claim left to lapse
        assert len(p.delivery.posts) == number + 1
    stored = await any_store.game(game_id)
    assert stored is not None and stored.state is GameState.RUNNING


async def test_a_deck_removed_mid_game_ends_it_with_a_message_in_words(
    any_store: QuizStore, clock: ManualClock
) -> None:
    p = Process(any_store, clock)
    game_id = await open_first_question(p, clock, rounds=3)
    (view,) = p.delivery.posts
    await click(p, view, "ana", True)
    p.quiz.catalog.decks = factories.library(factories.deck("other"))
    clock.advance(timedelta(seconds=10))
    await p.games.tick()
    (reveal,) = p.delivery.reveals  # shown as it was posted
    assert reveal.view.post.id == view.post.id and reveal.total == 1
    results = p.delivery.news[-1]
    assert results.kind is NewsKind.RESULTS and results.stopped
    assert results.cause is EndCause.DECK_GONE
    assert [(pl.user_id, pl.points) for pl in results.board] == [("ana", 1)]
    (told,) = p.delivery.ended
    assert told.cause is EndCause.DECK_GONE and told.game.starter_id == HOST.user_id
    ended = await any_store.game(game_id)
    assert ended is not None and ended.state is GameState.STOPPED
