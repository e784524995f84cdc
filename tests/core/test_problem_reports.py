"""Problem reports: stored with the question and the deck's version, listed in question
health, and sent to the server's admins in one summary a day at most."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.errors import QuizError
from bot.domain.health import Flag
from bot.domain.review import card_key
from bot.presentation.report_messages import digest_text
from bot.service.ports import QuizStore
from bot.service.problem_digest import ProblemDigest
from tests.core.schedule_fakes import FakeDelivery, World, world
from tests.storage.databases import any_store

__all__ = ["any_store"]

SERVER = "slack:T1"
PLAYER = Actor(SERVER, "player")
ADMIN = Actor(SERVER, "boss", is_admin=True)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 6, 1, 9, tzinfo=UTC))


@pytest.fixture
def w(any_store: QuizStore, clock: ManualClock) -> World:
    return world(any_store, clock, delivery=FakeDelivery(server_admins={SERVER: ["owner"]}))


async def test_a_report_is_kept_with_the_deck_version_and_flags_the_question(w: World) -> None:
    deck = w.quiz.deck("demo")
    await w.quiz.report_problem(PLAYER, card_key("demo", "q2"), "wrong_answer", "  B is right ")
    with pytest.raises(QuizError):  # a reason no form offers
        await w.quiz.report_problem(PLAYER, card_key("demo", "q2"), "<script>", "x")
    with pytest.raises(QuizError):  # a question no deck has
        await w.quiz.report_problem(PLAYER, card_key("demo", "q99"), "typo", "x")
    [stored] = await w.store.problem_reports(SERVER)
    assert (stored.question_id, stored.deck_version, stored.text) == (
        "q2",
        deck.version,
        "B is right",
    )
    with pytest.raises(QuizError) as refused:
        await w.quiz.question_health(PLAYER, "demo")
    assert refused.value.key == "admin_only"
    view = await w.quiz.question_health(ADMIN, "demo")
    flagged = {r.question_id: (r.flags, r.reports) for r in view.rows if r.flags}
    assert flagged == {"q2": ((Flag.REPORTED,), 1)}


async def test_admins_get_one_summary_a_day_at_most(w: World, clock: ManualClock) -> None:
    await w.schedules.set(ADMIN, "C1", "09:00", "UTC", "demo")
    await w.quiz.report_problem(PLAYER, card_key("demo", "q1"), "typo", "বানান ভুল")
    clock.advance(timedelta(minutes=30))
    await w.scheduler.tick()
    told = sorted((user, message.splitlines()[1:]) for _, user, message in w.delivery.told)
    assert [user for user, _ in told] == ["boss", "owner"]
    assert all(len(lines) == 1 and "বানান ভুল" in lines[0] for _, lines in told)

    await w.quiz.report_problem(PLAYER, card_key("demo", "q3"), "unclear", "which GPU?")
    w.delivery.told.clear()
    clock.advance(timedelta(hours=23))
    await w.scheduler.tick()
    assert w.delivery.told == []  # not a day since the last summary
    clock.advance(timedelta(hours=1, minutes=1))
    await w.scheduler.tick()
    assert len(w.delivery.told) == 2
    assert all("which GPU?" in m and "বানান" not in m for _, _, m in w.delivery.told)


async def test_reports_wait_while_no_admin_can_be_told(w: World, clock: ManualClock) -> None:
    w.delivery.unreachable.add("owner")
    await w.quiz.report_problem(PLAYER, card_key("demo", "q1"), "other", "")
    await w.scheduler.tick()
    assert w.delivery.told == []
    assert len(await w.store.unsent_problem_reports()) == 1
    w.delivery.unreachable.clear()
    clock.advance(timedelta(minutes=11))
    await w.scheduler.tick()
    assert w.delivery.told == []  # that day's summary was tried: the next day's takes them
    clock.advance(timedelta(days=1))
    await w.scheduler.tick()
    assert [user for _, user, _ in w.delivery.told] == ["owner"]
    assert await w.store.unsent_problem_reports() == []


async def test_two_processes_send_one_summary(w: World, clock: ManualClock) -> None:
    await w.quiz.report_problem(PLAYER, card_key("demo", "q1"), "typo", "x")
    other = ProblemDigest(w.store, w.quiz, {"slack": w.delivery}, digest_text)
    assert w.scheduler.digest is not None
    await asyncio.gather(w.scheduler.digest.send(clock.now()), other.send(clock.now()))
    assert [user for _, user, _ in w.delivery.told] == ["owner"]
