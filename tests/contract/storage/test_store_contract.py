"""The QuizStore contract, checked on SQLite, PostgreSQL and in memory (see conftest.py);
the few tests of how the SQL store gets there take `sql_store`."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import Engine, event, text
from sqlalchemy.exc import StatementError
from sqlalchemy.util import await_only

from bot.domain.records import (
    AnswerStatus,
    NewPost,
    PostAnswer,
    PostRecord,
    RunAnswerRecord,
    RunRecord,
    ServerSettings,
    Standing,
    StandingsQuery,
    Totals,
)
from bot.service.ports import QuizStore, StoreUnavailable
from bot.storage import SqlStore
from bot.storage.sqlite import compiled
from tests.factories import click

if TYPE_CHECKING:
    from tests.databases import Database

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SERVER = "slack:T1"
DECK = "model-pipeline-parallelism"


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


_FRESH = itertools.count(1)


async def new_post(
    store: QuizStore,
    *,
    question_id: str | None = None,
    channel_id: str = "C1",
    deck_id: str = DECK,
    season: int = 1,
    server_id: str = SERVER,
    opened_at: datetime = T0,
    schedule_id: int | None = None,
) -> PostRecord:
    """A new open post; of a question never posted before unless `question_id` is given
    (fair play: a question is open once per server, and scores once per user and season)."""
    question_id = question_id or f"q-{next(_FRESH)}"
    return await store.create_post(
        NewPost(
            server_id=server_id,
            channel_id=channel_id,
            deck_id=deck_id,
            question_id=question_id,
            order=(2, 0, 3, 1),
            locale="bn",
            poster_id="U0",
            season=season,
            opened_at=opened_at,
            schedule_id=schedule_id,
        )
    )


async def score_post(
    store: QuizStore, user_id: str, when: datetime, *, deck_id: str = DECK, season: int = 1
) -> None:
    """One point for `user_id` at `when`, from a correct answer to a fresh post."""
    post = await new_post(store, deck_id=deck_id, season=season, opened_at=when)
    outcome = await click(store, post, user_id, 0, True, when)
    assert outcome.status is AnswerStatus.NEW


def assert_utc(value: datetime | None) -> None:
    assert value is not None
    assert value.tzinfo is not None
    assert value.utcoffset() == timedelta(0)


# Posts


async def test_post_round_trip(store: QuizStore) -> None:
    created = await store.create_post(
        NewPost(
            server_id=SERVER,
            channel_id="C1",
            deck_id=DECK,
            question_id="why-model-parallelism",
            order=(2, 0, 3, 1),
            locale="bn",
            poster_id="U0",
            season=3,
            opened_at=T0,
            schedule_id=7,
        )
    )
    fetched = await store.post(created.id)
    assert fetched == created
    assert fetched == PostRecord(
        id=created.id,
        server_id=SERVER,
        channel_id="C1",
        deck_id=DECK,
        question_id="why-model-parallelism",
        order=(2, 0, 3, 1),
        locale="bn",
        poster_id="U0",
        season=3,
        opened_at=T0,
        schedule_id=7,
    )
    assert fetched.is_open
    assert_utc(fetched.opened_at)
    assert await store.post(created.id + 1000) is None


async def test_set_post_message(store: QuizStore) -> None:
    post = await new_post(store)
    await store.set_post_message(post.id, "1712345678.000100")
    fetched = await store.post(post.id)
    assert fetched is not None
    assert fetched.message_ref == "1712345678.000100"


async def test_open_post_in_channel_is_the_newest_open_one(store: QuizStore) -> None:
    older = await new_post(store, question_id="q1", opened_at=at(0))
    newer = await new_post(store, question_id="q2", opened_at=at(5))
    await new_post(store, channel_id="C2", opened_at=at(9))
    found = await store.open_post_in_channel(SERVER, "C1")
    assert found is not None and found.id == newer.id
    assert await store.close_post(newer.id, at(10))
    found = await store.open_post_in_channel(SERVER, "C1")
    assert found is not None and found.id == older.id
    assert await store.open_post_in_channel("discord:1", "C1") is None
    assert await store.open_post_in_channel(SERVER, "C3") is None


async def test_close_post_only_once(store: QuizStore) -> None:
    post = await new_post(store)
    assert await store.close_post(post.id, at(60)) is True
    assert await store.close_post(post.id, at(61)) is False
    closed = await store.post(post.id)
    assert closed is not None and not closed.is_open
    assert closed.closed_at == at(60)
    assert_utc(closed.closed_at)
    assert await store.close_post(post.id + 1000, at(61)) is False


async def test_concurrent_closers_one_wins(store: QuizStore) -> None:
    post = await new_post(store)
    results = await asyncio.gather(*(store.close_post(post.id, at(i)) for i in range(10)))
    assert results.count(True) == 1


# Post answers


async def test_first_answer_stands(store: QuizStore) -> None:
    post = await new_post(store)
    first = await click(store, post, "U1", 3, False, at(1))
    assert (first.status, first.choice) == (AnswerStatus.NEW, 3)
    second = await click(store, post, "U1", 2, True, at(2))
    assert (second.status, second.choice) == (AnswerStatus.DUPLICATE, 3)
    assert await store.answer_count(post.id) == 1
    assert await store.tally(post.id) == {3: 1}
    assert await store.totals(SERVER, 1, "U1") == Totals(answered=1, correct=0, points=0)


async def test_twenty_concurrent_clicks_by_one_user_store_one(store: QuizStore) -> None:
    post = await new_post(store)
    outcomes = await asyncio.gather(
        *(click(store, post, "U1", i % 4, i % 4 == 2, at(1)) for i in range(20))
    )
    statuses = [o.status for o in outcomes]
    assert statuses.count(AnswerStatus.NEW) == 1
    assert statuses.count(AnswerStatus.DUPLICATE) == 19
    winner = next(o.choice for o in outcomes if o.status is AnswerStatus.NEW)
    assert {o.choice for o in outcomes} == {winner}
    assert await store.answer_count(post.id) == 1
    assert sum((await store.tally(post.id)).values()) == 1
    assert (await store.totals(SERVER, 1, "U1")).answered == 1


async def test_concurrent_clicks_through_two_stores(db: Database) -> None:
    """Two processes on one database (two engines, two pools) still keep one answer."""
    first, second = await db.open(), await db.open()
    post = await new_post(first)
    outcomes = await asyncio.gather(
        *(click((first if i % 2 else second), post, "U1", i % 4, False, at(1)) for i in range(20))
    )
    assert [o.status for o in outcomes].count(AnswerStatus.NEW) == 1
    assert await second.answer_count(post.id) == 1


async def test_two_hundred_users_on_one_post(store: QuizStore) -> None:
    post = await new_post(store)
    outcomes = await asyncio.gather(
        *(click(store, post, f"U{i}", i % 4, i % 4 == 2, at(1)) for i in range(200))
    )
    assert all(o.status is AnswerStatus.NEW for o in outcomes)
    assert await store.answer_count(post.id) == 200
    assert await store.tally(post.id) == {0: 50, 1: 50, 2: 50, 3: 50}
    top = await store.standings(StandingsQuery(SERVER, 1), limit=100)
    assert len(top) == 50
    assert {s.points for s in top} == {1} and {s.rank for s in top} == {1}


async def test_closed_post_takes_no_answer(store: QuizStore) -> None:
    post = await new_post(store)
    await click(store, post, "U1", 1, True, at(1))
    assert await store.close_post(post.id, at(2))
    late = await click(store, post, "U2", 0, True, at(3))
    assert (late.status, late.choice) == (AnswerStatus.CLOSED, None)
    again = await click(store, post, "U1", 0, True, at(3))
    assert (again.status, again.choice) == (AnswerStatus.CLOSED, 1)
    assert await store.answer_count(post.id) == 1
    assert await store.tally(post.id) == {1: 1}
    assert await store.totals(SERVER, 1, "U2") == Totals()


async def test_a_failing_write_among_many_at_once_fails_only_itself(sql_store: SqlStore) -> None:
    """Writes that arrive together share a transaction (the group commit): one that raises
    must not take the others' answers with it."""
    post = await new_post(sql_store)

    def broken(conn: Any) -> None:
        conn.execute(text("INSERT INTO no_such_table VALUES (1)"))

    async def write(i: int) -> object:
        if i % 3 == 0:
            return await sql_store._tx.write(broken)
        return await click(sql_store, post, f"U{i}", i % 4, i % 4 == 2, at(1))

    outcomes = await asyncio.gather(*(write(i) for i in range(30)), return_exceptions=True)
    failed = [i for i, o in enumerate(outcomes) if isinstance(o, BaseException)]
    assert failed == list(range(0, 30, 3))
    assert all(not isinstance(o, BaseException) for i, o in enumerate(outcomes) if i % 3)
    assert await sql_store.answer_count(post.id) == 20


async def test_a_write_not_begun_by_its_deadline_is_refused_unstored(sql_store: SqlStore) -> None:
    """A click waiting behind a slow transaction past its deadline is told "try again"
    and never written; one that was cancelled while waiting is not written either. (One
    person's writes all wait in one lane: the slow one is theirs.)"""
    late_post, gone_post, on_time_post = [await new_post(sql_store, channel_id=c) for c in "ABC"]
    release = threading.Event()
    loop = asyncio.get_running_loop()
    started = asyncio.Event()

    def slow(conn: Any) -> None:
        loop.call_soon_threadsafe(started.set)
        if threading.current_thread() is threading.main_thread():
            await_only(asyncio.sleep(0.3))
        else:
            release.wait(5)

    blocker = asyncio.create_task(sql_store._tx.write(slow, key=(SERVER, "U1")))
    await started.wait()
    late = asyncio.create_task(
        sql_store.answer_post(
            PostAnswer(late_post, "U1", 0, True, 1, at(1)), deadline=time.monotonic() + 0.05
        )
    )
    gone = asyncio.create_task(click(sql_store, gone_post, "U1", 0, True, at(1)))
    on_time = asyncio.create_task(click(sql_store, on_time_post, "U1", 0, True, at(1)))
    await asyncio.sleep(0.1)
    gone.cancel()
    release.set()
    await blocker
    with pytest.raises(StoreUnavailable):
        await late
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert (await on_time).status is AnswerStatus.NEW
    assert await sql_store.post_answer_of(late_post.id, "U1") is None
    assert await sql_store.post_answer_of(gone_post.id, "U1") is None
    assert await sql_store.post_answer_of(on_time_post.id, "U1") == 0


async def test_the_reply_facts_of_a_click_equal_a_fresh_read(store: QuizStore) -> None:
    """A click's reply facts are read before its answer and the answer added to them:
    after every kind of click they must equal what a read afterwards gives (daily posts,
    the newest and an older one still open, other posts, a post from before a reset,
    right, wrong, again, closed)."""
    await store.set_server_locale(SERVER, "bn")
    await store.set_user_locale(SERVER, "U1", "en")
    daily = [
        await new_post(store, opened_at=at(day * 1440), schedule_id=1, question_id=f"q{day}")
        for day in range(4)
    ]
    for post in daily[:2]:
        await store.close_post(post.id, at(post.opened_at.minute + 600))
    loose = await new_post(store, question_id="q9")
    clicks = [
        (daily[0], 0, True),  # closed: nothing changes
        (daily[3], 1, False),  # the newest daily post, wrong
        (daily[2], 0, True),  # an older daily post still open: the last miss moves
        (daily[3], 0, True),  # again: the first click stands
        (loose, 0, True),  # not a daily post
    ]
    for post, choice, correct in clicks:
        outcome = await click(store, post, "U1", choice, correct, at(5 * 1440))
        assert outcome.player == await store.player(SERVER, "U1"), (post.question_id, outcome)
    assert (await store.player(SERVER, "U1")).streak == 2
    assert await store.new_season(SERVER, at(5 * 1440), 1) == 2
    old = await new_post(store, question_id="q8", season=1, opened_at=at(5 * 1440))
    outcome = await click(store, old, "U1", 0, True, at(5 * 1440 + 1))
    assert outcome.status is AnswerStatus.NEW
    assert outcome.player == await store.player(SERVER, "U1")
    assert outcome.player.totals == Totals()  # it counts in season 1, not in 2


async def test_answer_to_unknown_post_is_closed(store: QuizStore) -> None:
    post = await new_post(store)
    ghost = PostRecord(**{**post.__dict__, "id": post.id + 1000})
    outcome = await click(store, ghost, "U1", 0, True, at(1))
    assert outcome.status is AnswerStatus.CLOSED
    assert await store.tally(ghost.id) == {}
    assert await store.answer_count(ghost.id) == 0


async def test_a_close_waits_for_an_answer_in_progress(
    sql_store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reveal read right after a close counts every answer that will stand: a close
    landing between an answer's check of the post and its insert waits for that answer
    (FOR SHARE on PostgreSQL, the write lock on SQLite). SQLite's click runs on the
    driver's cursor (`compiled.run`), PostgreSQL's through SQLAlchemy: both are paused."""
    post = await new_post(sql_store)
    paused = asyncio.Event()
    loop = asyncio.get_running_loop()
    pausing: list[bool] = []

    def pause_answer_insert(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "INSERT INTO answers" in statement and not pausing:
            pausing.append(True)
            loop.call_soon_threadsafe(paused.set)
            # The close runs now. SQLite's transactions run in a worker thread; PostgreSQL's
            # on the event loop, where only an await lets the close run.
            if threading.current_thread() is threading.main_thread():
                await_only(asyncio.sleep(0.3))
            else:
                time.sleep(0.3)

    real_run = compiled.run

    def paused_run(cursor: Any, sql: str, args: Any) -> Any:
        pause_answer_insert(None, cursor, sql)
        return real_run(cursor, sql, args)

    monkeypatch.setattr(compiled, "run", paused_run)
    event.listen(Engine, "before_cursor_execute", pause_answer_insert)
    try:
        answer = asyncio.create_task(click(sql_store, post, "U1", 0, True, at(1)))
        await paused.wait()
        assert await sql_store.close_post(post.id, at(2))
        at_close = await sql_store.tally(post.id)
        outcome = await answer
    finally:
        event.remove(Engine, "before_cursor_execute", pause_answer_insert)
    # On SQLite the pause falls between the post's read and the insert, inside the write
    # transaction: the close waits and counts the answer. On PostgreSQL the read and the
    # insert are one statement, paused before it runs: the close may come first, and then
    # nothing is stored. Either way the closing tally holds every answer that stands.
    if sql_store._tx._sqlite is not None:
        assert outcome.status is AnswerStatus.NEW
    stored = await sql_store.answer_count(post.id)
    assert at_close == ({0: 1} if outcome.status is AnswerStatus.NEW else {})
    assert stored == sum(at_close.values())


async def test_post_answer_of(store: QuizStore) -> None:
    post = await new_post(store)
    assert await store.post_answer_of(post.id, "U1") is None
    await click(store, post, "U1", 3, False, at(1))
    await click(store, post, "U1", 0, True, at(2))
    await click(store, post, "U2", 1, False, at(2))
    assert await store.post_answer_of(post.id, "U1") == 3
    assert await store.post_answer_of(post.id, "U2") == 1
    assert await store.post_answer_of(post.id + 1000, "U1") is None


async def test_streak_counts_consecutive_scheduled_posts(store: QuizStore) -> None:
    assert await store.streak(SERVER, "U1") == 0

    async def daily(day: int, *, answer: bool, close: bool = True) -> PostRecord:
        post = await new_post(store, opened_at=at(day * 1440), schedule_id=1)
        if answer:
            await click(store, post, "U1", 0, True, at(day * 1440 + 1))
        if close:
            await store.close_post(post.id, at(day * 1440 + 600))
        return post

    await daily(1, answer=True)
    await daily(2, answer=True)
    await daily(3, answer=False)
    await daily(4, answer=True)
    manual = await new_post(store, opened_at=at(4 * 1440 + 5))  # not scheduled: no effect
    await store.close_post(manual.id, at(4 * 1440 + 6))
    await daily(6, answer=True)  # day 5 has no post (skipped by the schedule): no break
    assert await store.streak(SERVER, "U1") == 2
    assert await store.streak(SERVER, "U2") == 0
    assert await store.streak("discord:1", "U1") == 0

    today = await daily(7, answer=False, close=False)  # still open: not missed yet
    assert await store.streak(SERVER, "U1") == 2
    await click(store, today, "U1", 0, False, at(7 * 1440 + 2))  # wrong still counts
    assert await store.streak(SERVER, "U1") == 3
    await daily(8, answer=False)  # closed unanswered: the streak is broken
    assert await store.streak(SERVER, "U1") == 0
    await daily(9, answer=True, close=False)
    assert await store.streak(SERVER, "U1") == 1


async def test_streak_open_post_skipped_only_when_newest(store: QuizStore) -> None:
    first = await new_post(store, opened_at=at(0), schedule_id=1)
    await click(store, first, "U1", 0, True, at(1))
    await new_post(store, opened_at=at(1440), schedule_id=1)  # open, unanswered
    newest = await new_post(store, opened_at=at(2880), schedule_id=1)
    await click(store, newest, "U1", 0, True, at(2881))
    assert await store.streak(SERVER, "U1") == 1


# Runs


async def test_start_run_returns_the_unfinished_run(store: QuizStore) -> None:
    assert await store.active_run(SERVER, "U1", DECK) is None
    run = await store.start_run(SERVER, "U1", DECK, 1, at(0))
    assert run == RunRecord(run.id, SERVER, "U1", DECK, 1, at(0))
    assert_utc(run.started_at)
    assert await store.start_run(SERVER, "U1", DECK, 1, at(5)) == run
    assert await store.active_run(SERVER, "U1", DECK) == run
    assert await store.run(run.id) == run
    other_deck = await store.start_run(SERVER, "U1", "other", 1, at(5))
    assert other_deck.id != run.id
    await store.finish_run(run.id, at(9))
    finished = await store.run(run.id)
    assert finished is not None and finished.finished_at == at(9)
    assert await store.active_run(SERVER, "U1", DECK) is None
    fresh = await store.start_run(SERVER, "U1", DECK, 1, at(10))
    assert fresh.id not in (run.id, other_deck.id)
    assert await store.run(fresh.id + 1000) is None


async def test_concurrent_start_run_gives_one_run(store: QuizStore) -> None:
    started = await asyncio.gather(
        *(store.start_run(SERVER, "U1", DECK, 1, at(i)) for i in range(10))
    )
    assert len({r.id for r in started}) == 1


async def test_run_answers_score_only_the_first_meeting(store: QuizStore) -> None:
    run = await store.start_run(SERVER, "U1", DECK, 1, at(0))
    a = await store.record_run_answer(run, "q1", 0, True, at(1))
    b = await store.record_run_answer(run, "q2", 2, False, at(2))
    assert a.status is AnswerStatus.NEW and a.answer == RunAnswerRecord("q1", 0, True, 1, at(1))
    assert b.status is AnswerStatus.NEW and b.answer == RunAnswerRecord("q2", 2, False, 0, at(2))
    await store.finish_run(run.id, at(3))

    again = await store.start_run(SERVER, "U1", DECK, 1, at(4))
    assert again.id != run.id
    repeat = await store.record_run_answer(again, "q1", 0, True, at(5))
    assert repeat.answer.points == 0 and repeat.answer.correct
    corrected = await store.record_run_answer(again, "q2", 1, True, at(6))
    assert corrected.answer.points == 0  # wrong at the first meeting: later practice is free
    new_question = await store.record_run_answer(again, "q3", 1, True, at(7))
    assert new_question.answer.points == 1

    assert [r.points for r in await store.run_answers(run.id)] == [1, 0]
    assert await store.run_answers(again.id) == [
        RunAnswerRecord("q1", 0, True, 0, at(5)),
        RunAnswerRecord("q2", 1, True, 0, at(6)),
        RunAnswerRecord("q3", 1, True, 1, at(7)),
    ]
    assert await store.totals(SERVER, 1, "U1") == Totals(answered=5, correct=4, points=2)


async def test_run_answer_twice_in_one_run_is_a_duplicate(store: QuizStore) -> None:
    run = await store.start_run(SERVER, "U1", DECK, 1, at(0))
    first = await store.record_run_answer(run, "q1", 2, True, at(1))
    second = await store.record_run_answer(run, "q1", 0, False, at(2))
    assert second.status is AnswerStatus.DUPLICATE
    assert second.answer == first.answer == RunAnswerRecord("q1", 2, True, 1, at(1))
    assert len(await store.run_answers(run.id)) == 1


async def test_concurrent_run_answers_score_once(store: QuizStore) -> None:
    """Two unfinished runs can't exist per deck, but two decks can share question ids: the
    meeting is per deck. Twenty racing answers to one question in one run score once."""
    run = await store.start_run(SERVER, "U1", DECK, 1, at(0))
    outcomes = await asyncio.gather(
        *(store.record_run_answer(run, "q1", 0, True, at(1)) for _ in range(20))
    )
    assert [o.status for o in outcomes].count(AnswerStatus.NEW) == 1
    assert {o.answer.points for o in outcomes} == {1}
    assert await store.totals(SERVER, 1, "U1") == Totals(answered=1, correct=1, points=1)


async def test_first_meeting_is_per_server_season_and_deck(store: QuizStore) -> None:
    async def points(server_id: str, deck_id: str, season: int, user_id: str = "U1") -> int:
        run = await store.start_run(server_id, user_id, deck_id, season, at(0))
        outcome = await store.record_run_answer(run, "q1", 0, True, at(1))
        await store.finish_run(run.id, at(2))
        return outcome.answer.points

    assert await points(SERVER, DECK, 1) == 1
    assert await points(SERVER, DECK, 1) == 0
    assert await points(SERVER, DECK, 2) == 1
    assert await points(SERVER, "other-deck", 1) == 1
    assert await points("discord:42", DECK, 1) == 1
    assert await points(SERVER, DECK, 1, user_id="U2") == 1


# Leaderboard


async def test_standings_order_shared_ranks_and_tie_break(store: QuizStore) -> None:
    await score_post(store, "alice", at(1))
    await score_post(store, "bob", at(2))
    await score_post(store, "bob", at(3))  # bob reaches 2 at minute 3
    await score_post(store, "alice", at(4))  # alice reaches 2 at minute 4
    await score_post(store, "carol", at(5))
    post = await new_post(store)
    await click(store, post, "dave", 1, False, at(6))  # no points: not listed

    top = await store.standings(StandingsQuery(SERVER, 1), limit=10)
    assert top == [
        Standing("bob", 2, at(3), 1),
        Standing("alice", 2, at(4), 1),
        Standing("carol", 1, at(5), 3),
    ]
    for standing in top:
        assert_utc(standing.reached_at)
    assert await store.standings(StandingsQuery(SERVER, 1), limit=1) == top[:1]
    assert await store.standings(StandingsQuery("discord:1", 1), limit=10) == []


async def test_standings_equal_times_fall_back_to_user_id(store: QuizStore) -> None:
    for user in ("zed", "amy", "kim"):
        await score_post(store, user, at(1))
    top = await store.standings(StandingsQuery(SERVER, 1), limit=10)
    assert [(s.user_id, s.rank) for s in top] == [("amy", 1), ("kim", 1), ("zed", 1)]


async def test_standings_count_post_and_run_points(store: QuizStore) -> None:
    await score_post(store, "alice", at(1))
    run = await store.start_run(SERVER, "bob", DECK, 1, at(0))
    await store.record_run_answer(run, "q1", 0, True, at(2))
    await store.record_run_answer(run, "q2", 0, True, at(3))
    await store.record_run_answer(run, "q3", 0, False, at(4))
    top = await store.standings(StandingsQuery(SERVER, 1), limit=10)
    assert top == [Standing("bob", 2, at(3), 1), Standing("alice", 1, at(1), 2)]


async def test_standings_window_is_since_inclusive_until_exclusive(store: QuizStore) -> None:
    await score_post(store, "early", at(0))
    await score_post(store, "edge", at(60))
    await score_post(store, "inside", at(90))
    await score_post(store, "inside", at(100))
    await score_post(store, "late", at(120))
    query = StandingsQuery(SERVER, 1, since=at(60), until=at(120))
    top = await store.standings(query, limit=10)
    assert [(s.user_id, s.points, s.rank) for s in top] == [("inside", 2, 1), ("edge", 1, 2)]
    only_since = await store.standings(StandingsQuery(SERVER, 1, since=at(100)), limit=10)
    assert [(s.user_id, s.points) for s in only_since] == [("inside", 1), ("late", 1)]
    only_until = await store.standings(StandingsQuery(SERVER, 1, until=at(60)), limit=10)
    assert [s.user_id for s in only_until] == ["early"]
    assert await store.standing_of(query, "late") is None


async def test_standings_window_in_another_zone(store: QuizStore) -> None:
    """A week counted in the server's zone arrives as aware datetimes in that zone."""
    dhaka = timezone(timedelta(hours=6))
    await score_post(store, "alice", datetime(2026, 1, 4, 19, 0, tzinfo=UTC))  # 01:00 Dhaka
    await score_post(store, "bob", datetime(2026, 1, 4, 17, 0, tzinfo=UTC))  # 23:00 Dhaka
    query = StandingsQuery(SERVER, 1, since=datetime(2026, 1, 5, tzinfo=dhaka))
    assert [s.user_id for s in await store.standings(query, limit=10)] == ["alice"]


async def test_standings_deck_filter(store: QuizStore) -> None:
    await score_post(store, "alice", at(1), deck_id="deck-a")
    await score_post(store, "alice", at(2), deck_id="deck-a")
    await score_post(store, "bob", at(3), deck_id="deck-b")
    run = await store.start_run(SERVER, "bob", "deck-a", 1, at(0))
    await store.record_run_answer(run, "q1", 0, True, at(4))
    deck_a = await store.standings(StandingsQuery(SERVER, 1, deck_id="deck-a"), limit=10)
    assert deck_a == [Standing("alice", 2, at(2), 1), Standing("bob", 1, at(4), 2)]
    deck_b = await store.standings(StandingsQuery(SERVER, 1, deck_id="deck-b"), limit=10)
    assert deck_b == [Standing("bob", 1, at(3), 1)]
    everything = await store.standings(StandingsQuery(SERVER, 1), limit=10)
    assert [(s.user_id, s.points, s.rank) for s in everything] == [
        ("alice", 2, 1),
        ("bob", 2, 1),
    ]


async def test_standings_season_filter(store: QuizStore) -> None:
    await score_post(store, "alice", at(1), season=1)
    await score_post(store, "alice", at(2), season=1)
    await score_post(store, "bob", at(3), season=2)
    assert await store.standings(StandingsQuery(SERVER, 2), limit=10) == [
        Standing("bob", 1, at(3), 1)
    ]
    assert [s.user_id for s in await store.standings(StandingsQuery(SERVER, 1), limit=10)] == [
        "alice"
    ]
    assert await store.standing_of(StandingsQuery(SERVER, 2), "alice") is None


async def test_standing_of_a_user_outside_the_top(store: QuizStore) -> None:
    # u00 .. u11 score 1 .. 12 points; the top ten is u11 .. u02.
    for k in range(12):
        for n in range(k + 1):
            await score_post(store, f"u{k:02d}", at(k * 20 + n))
    await score_post(store, "tie", at(500))  # also 1 point, reached later than u00
    query = StandingsQuery(SERVER, 1)
    top = await store.standings(query, limit=10)
    assert [s.user_id for s in top] == [f"u{k:02d}" for k in range(11, 1, -1)]
    assert [s.rank for s in top] == list(range(1, 11))
    assert await store.standing_of(query, "u01") == Standing("u01", 2, at(21), 11)
    assert await store.standing_of(query, "u00") == Standing("u00", 1, at(0), 12)
    assert await store.standing_of(query, "tie") == Standing("tie", 1, at(500), 12)
    assert await store.standing_of(query, "u11") == top[0]
    assert await store.standing_of(query, "nobody") is None


async def test_totals(store: QuizStore) -> None:
    assert await store.totals(SERVER, 1, "U1") == Totals(0, 0, 0)
    right = await new_post(store, question_id="q1")
    wrong = await new_post(store, question_id="q2")
    await click(store, right, "U1", 0, True, at(1))
    await click(store, wrong, "U1", 1, False, at(2))
    run = await store.start_run(SERVER, "U1", DECK, 1, at(3))
    await store.record_run_answer(run, "q3", 0, True, at(4))  # first meeting in a run: scores
    await store.record_run_answer(run, "q1", 0, True, at(5))  # met in a post: no point
    await store.finish_run(run.id, at(6))
    practice = await store.start_run(SERVER, "U1", DECK, 1, at(7))
    await store.record_run_answer(practice, "q3", 0, True, at(8))  # correct, but no point
    assert await store.totals(SERVER, 1, "U1") == Totals(answered=5, correct=4, points=2)
    assert await store.totals(SERVER, 2, "U1") == Totals()
    assert await store.totals("discord:1", 1, "U1") == Totals()
    assert await store.totals(SERVER, 1, "U2") == Totals()


# Servers, users, meta


async def test_server_settings(store: QuizStore) -> None:
    assert await store.server(SERVER) == ServerSettings(SERVER, None, "UTC", 1)
    await store.set_server_locale(SERVER, "bn")
    await store.set_server_timezone(SERVER, "Asia/Dhaka")
    assert await store.server(SERVER) == ServerSettings(SERVER, "bn", "Asia/Dhaka", 1)
    await store.set_server_locale(SERVER, None)
    assert await store.server(SERVER) == ServerSettings(SERVER, None, "Asia/Dhaka", 1)
    await store.set_server_timezone("discord:9", "Europe/Berlin")
    assert await store.server("discord:9") == ServerSettings("discord:9", None, "Europe/Berlin")


async def test_server_default_deck(store: QuizStore) -> None:
    """Any deck id is kept as set (whether it is loaded is the service's concern), per server,
    beside the other settings, and None clears it."""
    assert await store.server_default_deck(SERVER) is None
    await store.set_server_locale(SERVER, "bn")
    await store.set_server_default_deck(SERVER, "ours")
    await store.set_server_default_deck("discord:9", "theirs")  # a server never seen before
    assert await store.server_default_deck(SERVER) == "ours"
    assert await store.server_default_deck("discord:9") == "theirs"
    assert await store.server(SERVER) == ServerSettings(SERVER, "bn", "UTC", 1)
    assert await store.new_season(SERVER, at(1), after=1) == 2
    assert await store.server_default_deck(SERVER) == "ours"  # a new season keeps it
    await store.set_server_default_deck(SERVER, None)
    assert await store.server_default_deck(SERVER) is None
    assert await store.server_default_deck("discord:9") == "theirs"
    assert await store.server("discord:9") == ServerSettings("discord:9")


async def test_new_season(store: QuizStore) -> None:
    await store.set_server_locale(SERVER, "en")
    assert await store.new_season(SERVER, at(1), after=1) == 2
    assert await store.new_season(SERVER, at(2), after=2) == 3
    assert await store.new_season(SERVER, at(2), after=2) is None  # already past season 2
    assert await store.server(SERVER) == ServerSettings(SERVER, "en", "UTC", 3)
    assert await store.new_season("discord:7", at(3), after=1) == 2  # a server never seen before
    assert await store.new_season("discord:8", at(3), after=4) is None  # no such season
    assert (await store.server("discord:8")).season == 1
    # Eight confirms of the same season at once: exactly one starts the next
    seasons = await asyncio.gather(*(store.new_season("local", at(4), after=1) for _ in range(8)))
    assert sorted(seasons, key=str) == [2, *([None] * 7)]
    assert (await store.server("local")).season == 2


async def test_user_locale(store: QuizStore) -> None:
    assert await store.user_locale(SERVER, "U1") is None
    await store.set_user_locale(SERVER, "U1", "bn")
    await store.set_user_locale(SERVER, "U2", "en")
    assert await store.user_locale(SERVER, "U1") == "bn"
    assert await store.user_locale("discord:1", "U1") is None
    await store.set_user_locale(SERVER, "U1", "en")
    assert await store.user_locale(SERVER, "U1") == "en"
    await store.set_user_locale(SERVER, "U1", None)
    assert await store.user_locale(SERVER, "U1") is None
    assert await store.user_locale(SERVER, "U2") == "en"


async def test_meta_upsert(store: QuizStore) -> None:
    assert await store.get_meta("discord.commands.hash") is None
    await store.set_meta("discord.commands.hash", "abc")
    await store.set_meta("other", "x")
    await store.set_meta("discord.commands.hash", "def")
    assert await store.get_meta("discord.commands.hash") == "def"
    assert await store.get_meta("other") == "x"


# Time


async def test_datetimes_come_back_aware_utc(store: QuizStore) -> None:
    kolkata = timezone(timedelta(hours=5, minutes=30))
    local = datetime(2026, 3, 1, 8, 15, 30, 123456, tzinfo=kolkata)
    post = await new_post(store, opened_at=local)
    assert post.opened_at == local
    assert post.opened_at.tzinfo is UTC
    assert post.opened_at.hour == 2 and post.opened_at.minute == 45
    assert await store.close_post(post.id, local + timedelta(hours=1))
    fetched = await store.post(post.id)
    assert fetched is not None
    assert fetched.opened_at == local and fetched.opened_at.tzinfo is UTC
    assert fetched.closed_at == local + timedelta(hours=1)
    assert_utc(fetched.closed_at)
    run = await store.start_run(SERVER, "U1", DECK, 1, local)
    outcome = await store.record_run_answer(run, "q1", 0, True, local)
    assert outcome.answer.answered_at == local
    (stored,) = await store.run_answers(run.id)
    assert stored.answered_at == local and stored.answered_at.tzinfo is UTC


async def test_naive_datetimes_are_refused(store: QuizStore) -> None:
    with pytest.raises((StatementError, ValueError), match="naive datetime"):
        await new_post(store, opened_at=datetime(2026, 1, 1, 12, 0))
    assert await store.open_post_in_channel(SERVER, "C1") is None


# Forgetting a user (privacy)


async def test_forgetting_a_user_deletes_what_is_kept_about_them(store: QuizStore) -> None:
    """`quizbot forget` (and /quiz privacy): answers, runs, points, meetings and settings of
    one user in one server go; the others' ranks close up; nothing else moves."""
    await score_post(store, "ana", at(1))
    await score_post(store, "ana", at(2))
    await score_post(store, "bo", at(3))
    shared = await new_post(store, question_id="q-shared")
    await click(store, shared, "ana", 0, True, at(4))
    await click(store, shared, "bo", 1, False, at(4))
    run = await store.start_run(SERVER, "ana", DECK, 1, at(5))
    await store.record_run_answer(run, "q-run", 0, True, at(6))
    await store.set_user_locale(SERVER, "ana", "bn")
    await score_post(store, "ana", at(7), season=2)
    other_server = await new_post(store, server_id="discord:1", question_id="q-x")
    await click(store, other_server, "ana", 0, True, at(8))
    assert (await store.standing_of(StandingsQuery(SERVER, 1), "bo")) == Standing("bo", 1, at(3), 2)

    assert await store.forget_user(SERVER, "ana") == 5  # 4 post answers and 1 run answer

    board = await store.standings(StandingsQuery(SERVER, 1), limit=10)
    assert board == [Standing("bo", 1, at(3), 1)]
    assert await store.standing_of(StandingsQuery(SERVER, 1), "bo") == Standing("bo", 1, at(3), 1)
    assert await store.standings(StandingsQuery(SERVER, 2), limit=10) == []
    assert await store.totals(SERVER, 1, "ana") == Totals()
    assert await store.user_locale(SERVER, "ana") is None
    assert await store.active_run(SERVER, "ana", DECK) is None
    assert await store.answer_count(shared.id) == 1  # bo's answer stays
    assert await store.tally(shared.id) == {1: 1}
    again = await click(store, shared, "ana", 0, True, at(9))  # a first meeting once more
    assert again.status is AnswerStatus.NEW and again.points == 1
    assert await store.totals("discord:1", 1, "ana") == Totals(1, 1, 1)  # another server's


async def test_first_seen_is_true_once_until_it_expires(store: QuizStore) -> None:
    until = at(5)
    results = await asyncio.gather(*(store.first_seen("event:Ev1", at(0), until) for _ in range(4)))
    assert sorted(results) == [False, False, False, True]
    assert not await store.first_seen("event:Ev1", at(4), at(9))
    assert await store.first_seen("event:Ev2", at(4), at(9))
    assert await store.first_seen("event:Ev1", at(6), at(11))  # expired: seen anew


async def test_answer_log_has_every_answer_of_a_server_and_deck(store: QuizStore) -> None:
    post = await new_post(store, question_id="q1")
    await click(store, post, "ana", 2, False, at(1))
    run = await store.start_run(SERVER, "bo", DECK, 1, at(2))
    await store.record_run_answer(run, "q2", 0, True, at(3))
    elsewhere = await new_post(store, server_id="discord:1", question_id="q1")
    await click(store, elsewhere, "ana", 0, True, at(4))
    other_deck = await new_post(store, deck_id="other", question_id="q1")
    await click(store, other_deck, "cy", 0, True, at(5))

    mine = sorted(await store.answer_log(SERVER, DECK), key=lambda t: t.at)
    assert [(t.user_id, t.question_id, t.choice, t.correct, t.at) for t in mine] == [
        (f"{SERVER}/ana", "q1", 2, False, at(1)),
        (f"{SERVER}/bo", "q2", 0, True, at(3)),
    ]
    assert len(await store.answer_log(None, DECK)) == 3
    assert len(await store.answer_log(None, None)) == 4


async def test_hidden_players(store: QuizStore) -> None:
    await store.set_user_locale(SERVER, "ana", "bn")
    await store.set_hidden(SERVER, "ana", True)
    await store.set_hidden(SERVER, "bo", True)
    await store.set_hidden(SERVER, "bo", False)
    assert await store.hidden_among(SERVER, ["ana", "bo", "cy"]) == {"ana"}
    assert await store.hidden_among("discord:1", ["ana"]) == set()
    assert await store.hidden_among(SERVER, []) == set()
    assert await store.user_locale(SERVER, "ana") == "bn"  # the other setting stays
    await store.forget_user(SERVER, "ana")
    assert await store.hidden_among(SERVER, ["ana"]) == set()
