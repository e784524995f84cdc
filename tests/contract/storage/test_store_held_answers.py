"""Clicks on a game's open question are held (issue 32, finding 3), on every store: stored at
once (the first click stands), counted as clicks, and nothing else; at the close each is
written as a click on any post would have been, at its time (first meeting, points, the
leaderboards, the card, mastery), and the same clicks on an ordinary post give the same
reads."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.domain.records import AnswerStatus, NewPost, StandingsQuery
from bot.service.ports import QuizStore
from tests.factories import click

SERVER = "slack:T1"
T0 = datetime(2026, 2, 2, 9, tzinfo=UTC)
PLAN = (("ana", 0, True), ("bo", 1, False), ("cy", 0, True), ("ana", 1, False))
"""(user, choice, right) in the order they click; ana's second click changes nothing."""


async def reads(store: QuizStore) -> tuple[object, ...]:
    """What the leaderboards, stats, review and mastery read of the three players."""
    everyone = ("ana", "bo", "cy")
    return (
        [await store.totals(SERVER, 1, u) for u in everyone],
        list(await store.standings(StandingsQuery(SERVER, 1), 10)),
        [sorted(await store.cards(SERVER, u), key=str) for u in everyone],
        list(await store.mastery_board(SERVER, 10)),
    )


async def play(store: QuizStore, game_id: int | None, question: str) -> int:
    post = await store.create_post(
        NewPost(SERVER, "C1", "deck", question, (0, 1, 2), "en", "host", 1, T0, game_id=game_id)
    )
    for minute, (user, choice, right) in enumerate(PLAN, start=1):
        outcome = await click(store, post, user, choice, right, T0 + timedelta(minutes=minute))
        assert outcome.status is (AnswerStatus.DUPLICATE if minute == 4 else AnswerStatus.NEW)
        assert outcome.choice == choice if minute < 4 else outcome.choice == 0
    return post.id


async def test_a_game_posts_clicks_count_only_once_it_closes(any_store: QuizStore) -> None:
    await any_store.meet(SERVER, 1, "cy", "deck", "q1", T0)  # cy met q1 before: practice
    nothing = await reads(any_store)
    held = await play(any_store, 7, "q1")
    assert await reads(any_store) == nothing
    assert await any_store.answer_count(held) == 3
    assert await any_store.post_answer_of(held, "bo") == 1
    assert await any_store.tally(held) == {}

    assert await any_store.close_post(held, T0 + timedelta(minutes=10))
    assert await any_store.tally(held) == {0: 2, 1: 1}
    assert await any_store.answer_count(held) == 3
    assert await any_store.post_answer_of(held, "bo") == 1
    closed = await any_store.post(held)
    assert closed is not None
    late = await click(any_store, closed, "dee", 0, True, T0 + timedelta(minutes=11))
    assert late.status is AnswerStatus.CLOSED and late.choice is None
    once = await scores(any_store)
    assert once == [(1, 1, 1), (1, 0, 0), (1, 1, 0)]  # cy: right, but practice
    assert await reads(any_store) != nothing

    # The same clicks on an ordinary post of another question read alike.
    await any_store.meet(SERVER, 1, "cy", "deck", "q2", T0)
    plain = await play(any_store, None, "q2")
    await any_store.close_post(plain, T0 + timedelta(minutes=10))
    assert await any_store.tally(plain) == await any_store.tally(held)
    assert await scores(any_store) == [(2 * a, 2 * c, 2 * p) for a, c, p in once]


async def scores(store: QuizStore) -> list[tuple[int, int, int]]:
    """(answered, right, points) of ana, bo and cy."""
    totals = [await store.totals(SERVER, 1, u) for u in ("ana", "bo", "cy")]
    return [(t.answered, t.correct, t.points) for t in totals]


async def test_a_withdrawn_game_post_keeps_its_clicks_and_forget_lets_go_of_held_ones(
    any_store: QuizStore,
) -> None:
    kept = await play(any_store, 7, "q1")
    await any_store.discard_post(kept, T0 + timedelta(minutes=5))
    assert await any_store.tally(kept) == {0: 2, 1: 1}  # acknowledged, so stored
    assert (await any_store.totals(SERVER, 1, "ana")).points == 1

    forgotten = await play(any_store, 7, "q2")
    assert await any_store.forget_user(SERVER, "bo") == 1  # bo's stored answer to q1
    assert await any_store.answer_count(forgotten) == 2
    assert await any_store.post_answer_of(forgotten, "bo") is None
    await any_store.close_post(forgotten, T0 + timedelta(minutes=10))
    assert await any_store.tally(forgotten) == {0: 2}


async def test_clicks_racing_the_close_are_each_counted_or_told_too_late(
    store: QuizStore,
) -> None:
    """Fifty clicks and the close at once, on each database: every click acknowledged (NEW)
    is in the reveal's counts, every other was refused and stored nowhere."""
    post = await store.create_post(
        NewPost(SERVER, "C1", "deck", "q1", (0, 1, 2), "en", "host", 1, T0, game_id=7)
    )
    at = T0 + timedelta(seconds=5)

    async def one(i: int) -> tuple[str, AnswerStatus]:
        outcome = await click(store, post, f"u{i}", i % 3, i % 3 == 0, at)
        return f"u{i}", outcome.status

    async def close() -> bool:
        return await store.close_post(post.id, at)

    first, rest = [one(i) for i in range(25)], [one(i) for i in range(25, 50)]
    *before, closed = await asyncio.gather(*first, close())
    outcomes = [*before, *await asyncio.gather(*rest)]
    assert closed is True
    new = {user for user, status in outcomes if status is AnswerStatus.NEW}
    assert {status for _, status in outcomes} <= {AnswerStatus.NEW, AnswerStatus.CLOSED}
    assert sum((await store.tally(post.id)).values()) == len(new)
    for user, _ in outcomes:
        assert (await store.post_answer_of(post.id, user) is not None) == (user in new)
