"""The engine's rules, on the real store (SQLite file and PostgreSQL, via the `store` fixture)."""

from __future__ import annotations

import asyncio
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
from bot.service.ports import QuizStore
from bot.service.services import Capabilities
from tests import factories

START = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)  # a Wednesday


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def quiz(store: QuizStore, clock: ManualClock) -> Capabilities:
    return capabilities(store=store, decks=factories.library(), clock=clock, rng=random.Random(7))


def user(name: str, server: str = "slack:T1", admin: bool = False) -> Actor:
    return Actor(server_id=server, user_id=name, is_admin=admin)


def shown(quiz_view_order: tuple[int, ...], index: int) -> int:
    """The button (0 = A) that shows the deck's choice `index`."""
    return quiz_view_order.index(index)


async def test_post_fixes_order_and_language(quiz: Capabilities, store: QuizStore) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "2")
    assert view.question.id == "q2"
    assert sorted(view.post.order) == [0, 1, 2]
    assert view.locale == "en"  # the deck's first locale
    again = await quiz.answering.view(view.post.id)
    assert again.post.order == view.post.order
    assert again.answered == 0


async def test_server_language_decides_the_post(quiz: Capabilities) -> None:
    admin = user("admin", admin=True)
    await quiz.membership.set_language(admin, "bn", server=True)
    view = await quiz.answering.post(admin, "C1", "demo", "q1")
    assert view.locale == "bn"


async def test_right_and_wrong_answers(quiz: Capabilities) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    right = await quiz.answering.answer(user("ana"), view.post.id, shown(view.post.order, 0))
    wrong = await quiz.answering.answer(user("bo"), view.post.id, shown(view.post.order, 2))
    assert right.status is AnswerStatus.NEW and right.correct
    assert right.totals.points == 1 and right.totals.answered == 1
    assert wrong.status is AnswerStatus.NEW and not wrong.correct
    assert wrong.picked is not None and wrong.picked.why == {"en": "why b", "bn": "কেন খ"}
    assert wrong.totals.points == 0 and wrong.totals.answered == 1
    assert wrong.other_locale == "bn"
    assert (await quiz.answering.view(view.post.id)).answered == 2


async def test_first_click_stands(quiz: Capabilities) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    first = await quiz.answering.answer(user("ana"), view.post.id, shown(view.post.order, 1))
    second = await quiz.answering.answer(user("ana"), view.post.id, shown(view.post.order, 0))
    assert first.status is AnswerStatus.NEW
    assert second.status is AnswerStatus.DUPLICATE
    assert second.choice == 1 and not second.correct
    assert second.totals.points == 0


async def test_twenty_clicks_at_once_count_once(quiz: Capabilities, store: QuizStore) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    results = await asyncio.gather(
        *(quiz.answering.answer(user("ana"), view.post.id, i % 3) for i in range(20))
    )
    assert [r.status for r in results].count(AnswerStatus.NEW) == 1
    assert len({r.choice for r in results}) == 1  # every reply shows the one that stands
    assert await store.answer_count(view.post.id) == 1
    me = await quiz.boards.stats(user("ana"))
    assert me.totals.answered == 1


async def test_two_hundred_users_at_once(
    quiz: Capabilities, store: QuizStore, clock: ManualClock
) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    right_button = shown(view.post.order, 0)
    wrong_button = shown(view.post.order, 1)

    async def click(i: int) -> None:
        await quiz.answering.answer(
            user(f"u{i:03}"), view.post.id, right_button if i % 4 else wrong_button
        )

    await asyncio.gather(*(click(i) for i in range(200)))
    assert await store.answer_count(view.post.id) == 200
    tally = await store.tally(view.post.id)
    assert tally == {0: 150, 1: 50}
    board = await quiz.boards.leaderboard(user("u000"), Period.ALL)
    assert len(board.rows) == 10
    assert all(r.points == 1 and r.rank == 1 for r in board.rows)
    assert board.me is None  # u000 answered wrong: no points, not listed
    reveal = await quiz.answering.close(user("poster"), "C1")
    assert reveal.total == 200
    assert reveal.right_share == 0.75


async def test_closed_post_takes_no_answers(quiz: Capabilities, store: QuizStore) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    await quiz.answering.close(user("poster"), "C1")
    late = await quiz.answering.answer(user("ana"), view.post.id, 0)
    assert late.status is AnswerStatus.CLOSED
    assert await store.answer_count(view.post.id) == 0


@pytest.mark.parametrize(
    ("server", "button"),
    [("slack:T1", 3), ("slack:T1", -1), ("slack:OTHER", 0)],
)
async def test_stale_or_tampered_clicks_are_refused(
    quiz: Capabilities, store: QuizStore, server: str, button: int
) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    with pytest.raises(QuizError) as err:
        await quiz.answering.answer(user("ana", server=server), view.post.id, button)
    assert err.value.key == "stale_click"
    with pytest.raises(QuizError):
        await quiz.answering.answer(user("ana"), 999_999, 0)
    assert await store.answer_count(view.post.id) == 0


async def test_only_the_poster_or_an_admin_closes(quiz: Capabilities) -> None:
    await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    with pytest.raises(QuizError) as err:
        await quiz.answering.close(user("ana"), "C1")
    assert err.value.key == "not_your_post"
    reveal = await quiz.answering.close(user("boss", admin=True), "C1")
    assert reveal.closed_now
    with pytest.raises(QuizError) as err:
        await quiz.answering.close(user("poster"), "C1")
    assert err.value.key == "no_open_post"


async def test_reveal_shows_the_distribution(quiz: Capabilities) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    for name, choice in [("a", 0), ("b", 0), ("c", 1), ("d", 2)]:
        await quiz.answering.answer(user(name), view.post.id, shown(view.post.order, choice))
    reveal = await quiz.answering.close(user("poster"), "C1")
    by_index = {r.shown.index: (r.count, r.right) for r in reveal.rows}
    assert by_index == {0: (2, True), 1: (1, False), 2: (1, False)}
    assert [r.shown.letter for r in reveal.rows] == ["A", "B", "C"]
    assert reveal.right_share == 0.5


async def test_a_run_end_to_end(quiz: Capabilities) -> None:
    me = user("ana")
    step = await quiz.runs.start_run(me, "demo")
    score = 0
    while isinstance(step, RunStep):
        fb = await quiz.runs.run_answer(me, step.run.id, step.question.id, step.order.index(0))
        score += fb.correct
        step = fb.next or fb.summary
    assert isinstance(step, RunSummary)
    assert (step.score, step.total, step.points, step.misses) == (3, 3, 3, [])
    assert (await quiz.boards.stats(me)).totals.points == 3


async def test_interrupted_run_resumes_without_double_scoring(quiz: Capabilities) -> None:
    me = user("ana")
    first = await quiz.runs.start_run(me, "demo")
    assert isinstance(first, RunStep) and not first.resumed
    fb = await quiz.runs.run_answer(me, first.run.id, first.question.id, first.order.index(0))
    assert fb.answer.points == 1
    again = await quiz.runs.run_answer(me, first.run.id, first.question.id, first.order.index(0))
    assert again.duplicate and again.answer.points == 1  # the stored answer, not a new one
    resumed = await quiz.runs.start_run(me, "demo")  # e.g. `quizbot play` run again
    assert isinstance(resumed, RunStep) and resumed.resumed
    assert resumed.run.id == first.run.id
    assert resumed.question.id == "q2"
    assert (await quiz.boards.stats(me)).totals.points == 1


async def test_only_the_first_meeting_scores(quiz: Capabilities) -> None:
    me = user("ana")

    async def play_all(pick_right: bool) -> RunSummary:
        step = await quiz.runs.start_run(me, "demo")
        while isinstance(step, RunStep):
            target = 0 if pick_right else 1
            fb = await quiz.runs.run_answer(
                me, step.run.id, step.question.id, step.order.index(target)
            )
            step = fb.next or fb.summary
        assert isinstance(step, RunSummary)
        return step

    wrong = await play_all(pick_right=False)
    assert (wrong.score, wrong.points, len(wrong.misses)) == (0, 0, 3)
    practice = await play_all(pick_right=True)
    assert (practice.score, practice.points) == (3, 0)  # practice is free
    assert (await quiz.boards.stats(me)).totals.points == 0


async def test_leaderboard_ranks_ties_and_shows_the_caller(
    quiz: Capabilities, clock: ManualClock
) -> None:
    posts = [
        await quiz.answering.post(user("poster"), f"C{i}", "demo", f"q{i + 1}") for i in range(3)
    ]

    async def right(name: str, post: int) -> None:
        clock.advance(timedelta(seconds=1))
        view = posts[post]
        await quiz.answering.answer(user(name), view.post.id, shown(view.post.order, 0))

    await right("bob", 0)
    await right("alice", 0)
    await right("alice", 1)  # alice reaches 2 points before bob does
    await right("bob", 2)
    await right("carol", 1)
    for i in range(1, 11):
        await right(f"d{i:02}", 2)
    view = posts[0]
    # Wrong: 0 points:
    await quiz.answering.answer(user("dave"), view.post.id, shown(view.post.order, 1))

    board = await quiz.boards.leaderboard(user("d10"), Period.ALL)
    assert [(r.rank, r.user_id, r.points) for r in board.rows] == [
        (1, "alice", 2),
        (1, "bob", 2),
        (3, "carol", 1),
        *[(3, f"d{i:02}", 1) for i in range(1, 8)],
    ]
    assert board.me is not None and not board.me_in_top
    assert (board.me.rank, board.me.points) == (3, 1)
    nobody = await quiz.boards.leaderboard(user("dave"), Period.ALL)
    assert nobody.me is None and "dave" not in [r.user_id for r in nobody.rows]
    top = await quiz.boards.leaderboard(user("bob"), Period.ALL)
    assert top.me_in_top


async def test_week_and_month_in_new_york(
    quiz: Capabilities, clock: ManualClock, store: QuizStore
) -> None:
    await store.set_server_timezone("slack:T1", "America/New_York")
    # Sunday 1 March 2026 23:30 EST = Monday 2 March 04:30 UTC: still last week, but March
    clock.set(datetime(2026, 3, 2, 4, 30, tzinfo=UTC))
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    await quiz.answering.answer(user("sunday"), view.post.id, shown(view.post.order, 0))
    # Monday 2 March 00:30 EST = 05:30 UTC: this week
    clock.set(datetime(2026, 3, 2, 5, 30, tzinfo=UTC))
    await quiz.answering.answer(user("monday"), view.post.id, shown(view.post.order, 0))
    # Saturday 28 Feb 23:59 EST = 1 March 04:59 UTC: February, and the week before
    clock.set(datetime(2026, 3, 1, 4, 59, tzinfo=UTC))
    await quiz.answering.answer(user("february"), view.post.id, shown(view.post.order, 0))

    clock.set(datetime(2026, 3, 4, 17, 0, tzinfo=UTC))  # Wednesday 4 March
    week = await quiz.boards.leaderboard(user("x"), Period.WEEK)
    month = await quiz.boards.leaderboard(user("x"), Period.MONTH)
    assert [r.user_id for r in week.rows] == ["monday"]
    assert sorted(r.user_id for r in month.rows) == ["monday", "sunday"]
    everyone = await quiz.boards.leaderboard(user("x"), Period.ALL)
    assert sorted(r.user_id for r in everyone.rows) == ["february", "monday", "sunday"]


async def test_servers_keep_separate_leaderboards(quiz: Capabilities) -> None:
    for server, name in [("slack:T1", "ana"), ("discord:42", "bo")]:
        view = await quiz.answering.post(user("poster", server=server), "C1", "demo", "q1")
        await quiz.answering.answer(
            user(name, server=server), view.post.id, shown(view.post.order, 0)
        )
    t1 = await quiz.boards.leaderboard(user("x", server="slack:T1"), Period.ALL)
    d42 = await quiz.boards.leaderboard(user("x", server="discord:42"), Period.ALL)
    assert [r.user_id for r in t1.rows] == ["ana"]
    assert [r.user_id for r in d42.rows] == ["bo"]


async def test_reset_starts_a_new_season_and_keeps_history(
    quiz: Capabilities, store: QuizStore
) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    await quiz.answering.answer(user("ana"), view.post.id, shown(view.post.order, 0))
    with pytest.raises(QuizError) as err:
        await quiz.membership.reset(user("ana"), confirms=1)
    assert err.value.key == "admin_only"
    season = await quiz.membership.reset(user("boss", admin=True), confirms=1)
    assert season == 2
    with pytest.raises(QuizError) as err:  # the same confirm button pressed again
        await quiz.membership.reset(user("boss", admin=True), confirms=1)
    assert (err.value.key, err.value.params) == ("reset_stale", {"season": 2})
    assert (await quiz.membership.server(user("boss"))).season == 2
    assert (await quiz.boards.leaderboard(user("ana"), Period.ALL)).rows == []
    assert (await store.totals("slack:T1", 1, "ana")).points == 1  # season 1 is kept


async def test_reply_language_follows_the_rules(quiz: Capabilities) -> None:
    view = await quiz.answering.post(user("poster"), "C1", "demo", "q1")
    await quiz.membership.set_language(user("ana"), "bn")
    ana = await quiz.answering.answer(user("ana"), view.post.id, 0)
    bo = await quiz.answering.answer(user("bo"), view.post.id, 0)
    assert (ana.locale, ana.other_locale) == ("bn", "en")
    assert bo.locale == "en"
    switched = await quiz.answering.my_answer(user("ana"), view.post.id, "en")
    assert switched.locale == "en" and switched.choice == ana.choice
    with pytest.raises(QuizError) as err:
        await quiz.membership.set_language(user("ana"), "fr")
    assert err.value.key == "unknown_locale"
    with pytest.raises(QuizError) as err:
        await quiz.membership.set_language(user("ana"), "bn", server=True)
    assert err.value.key == "admin_only"
