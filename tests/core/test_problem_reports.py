"""Problem reports: stored with the question and the deck's version, listed in question
health, and sent to the server's admins in one summary a day at most."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.bootstrap import build_digest
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.errors import QuizError
from bot.domain.health import Flag
from bot.domain.review import card_key
from bot.service.deliveries import Deliveries
from bot.service.ports import QuizStore
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
    deck = w.quiz.catalog.deck("demo")
    await w.quiz.authoring.report_problem(
        PLAYER, card_key("demo", "q2"), "wrong_answer", "  B is right "
    )
    with pytest.raises(QuizError):  # a reason no form offers
        await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q2"), "<script>", "x")
    with pytest.raises(QuizError):  # a question no deck has
        await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q99"), "typo", "x")
    [stored] = await w.store.problem_reports(SERVER)
    assert (stored.question_id, stored.deck_version, stored.text) == (
        "q2",
        deck.version,
        "B is right",
    )
    with pytest.raises(QuizError) as refused:
        await w.quiz.authoring.question_health(PLAYER, "demo")
    assert refused.value.key == "admin_only"
    view = await w.quiz.authoring.question_health(ADMIN, "demo")
    flagged = {r.question_id: (r.flags, r.reports) for r in view.rows if r.flags}
    assert flagged == {"q2": ((Flag.REPORTED,), 1)}


async def summarise(w: World) -> list[str]:
    assert w.scheduler.digest is not None
    return await w.scheduler.digest.send(w.clock.now())


async def test_admins_get_one_summary_a_day_at_most(w: World, clock: ManualClock) -> None:
    await w.schedules.set(ADMIN, "C1", "09:00", "UTC", "demo")
    await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q1"), "typo", "বানান ভুল")
    clock.advance(timedelta(minutes=30))
    assert await summarise(w) == [SERVER]
    told = sorted((user, message.splitlines()[1:]) for _, user, message in w.delivery.told)
    assert [user for user, _ in told] == ["boss", "owner"]
    assert all(len(lines) == 1 and "বানান ভুল" in lines[0] for _, lines in told)

    await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q3"), "unclear", "which GPU?")
    w.delivery.told.clear()
    clock.advance(timedelta(hours=23))
    assert await summarise(w) == []
    assert w.delivery.told == []  # not a day since the last summary
    clock.advance(timedelta(hours=1, minutes=1))
    await summarise(w)
    assert len(w.delivery.told) == 2
    assert all("which GPU?" in m and "বানান" not in m for _, _, m in w.delivery.told)


async def test_reports_wait_while_no_admin_can_be_told(w: World, clock: ManualClock) -> None:
    w.delivery.unreachable.add("owner")
    await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q1"), "other", "")
    await summarise(w)
    assert w.delivery.told == []
    assert len(await w.store.unsent_problem_reports()) == 1
    w.delivery.unreachable.clear()
    clock.advance(timedelta(minutes=11))
    await summarise(w)
    assert w.delivery.told == []  # that day's summary was tried: the next day's takes them
    clock.advance(timedelta(days=1))
    await summarise(w)
    assert [user for _, user, _ in w.delivery.told] == ["owner"]
    assert await w.store.unsent_problem_reports() == []


async def test_two_processes_send_one_summary(w: World, clock: ManualClock) -> None:
    await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q1"), "typo", "x")
    other = build_digest(w.store, w.quiz, w.clock, Deliveries({"slack": w.delivery}))
    assert w.scheduler.digest is not None
    await asyncio.gather(w.scheduler.digest.send(clock.now()), other.send(clock.now()))
    assert [user for _, user, _ in w.delivery.told] == ["owner"]


async def test_every_report_is_in_a_message_before_it_counts_as_sent(
    w: World, clock: ManualClock
) -> None:
    """26 reports of 200 characters: each summary lists the newest first, in as many
    messages as it may send, says how many more there are, and marks sent only the reports
    an admin was shown; the rest lead the next day's."""
    stamp: dict[str, int] = {}
    for n in range(26):
        person = Actor(SERVER, f"p{n // 5}")
        words = f"report {n:02d} " + "x" * 190
        await w.quiz.authoring.report_problem(
            person, card_key("demo", f"q{n % 5 + 1}"), "typo", words
        )
        stamp[words] = n
        clock.advance(timedelta(minutes=1))
    shown_before_sent: set[int] = set()
    days = 0
    while await w.store.unsent_problem_reports():
        w.delivery.told.clear()
        unsent = {r.text: r for r in await w.store.unsent_problem_reports()}
        await summarise(w)
        messages = [m for _, _, m in w.delivery.told]
        assert messages and all(len(m) <= w.delivery.limit for m in messages)
        shown = [stamp[t] for m in messages for t in sorted(unsent, key=m.find) if t in m]
        assert shown == sorted(shown, reverse=True)  # newest first, across the messages
        left = {r.text for r in await w.store.unsent_problem_reports()}
        assert left == set(unsent) - {t for m in messages for t in unsent if t in m}
        if left:
            assert messages[-1].endswith(
                f"…and {len(left)} more: they come in the next summary, "
                "and /quiz report lists them all."
            )
        shown_before_sent.update(shown)
        days += 1
        clock.advance(timedelta(days=1, minutes=1))
    assert shown_before_sent == set(range(26))
    assert days == 2


async def test_a_person_may_report_a_question_once_until_sent_and_five_a_day(
    w: World, clock: ManualClock
) -> None:
    key = card_key("demo", "q1")
    await w.quiz.authoring.report_problem(PLAYER, key, "typo", "first")
    with pytest.raises(QuizError) as again:
        await w.quiz.authoring.report_problem(PLAYER, key, "unclear", "second")
    assert again.value.key == "report_open"
    with pytest.raises(QuizError):  # also before the form opens
        await w.quiz.authoring.may_report(PLAYER, key)
    await w.quiz.authoring.report_problem(Actor(SERVER, "someone else"), key, "typo", "me too")
    await summarise(w)
    await w.quiz.authoring.report_problem(PLAYER, key, "unclear", "sent, so a new one is taken")
    for n in (2, 3, 4):
        await w.quiz.authoring.report_problem(PLAYER, card_key("demo", f"q{n}"), "other", "x")
    with pytest.raises(QuizError) as flood:
        await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q5"), "other", "sixth")
    assert (flood.value.key, flood.value.params) == ("report_limit", {"limit": 5})
    mine = [r for r in await w.store.problem_reports(SERVER) if r.user_id == PLAYER.user_id]
    assert [r.text for r in mine] == ["first", "sent, so a new one is taken", "x", "x", "x"]
    clock.advance(timedelta(days=1, seconds=1))
    await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q5"), "other", "a day later")


async def test_a_setter_who_is_no_longer_an_admin_gets_no_summary(
    w: World, clock: ManualClock
) -> None:
    await w.schedules.set(ADMIN, "C1", "09:00", "UTC", "demo")
    w.delivery.still_admins = set()  # the role was taken away since
    await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q1"), "typo", "x")
    await summarise(w)
    assert [user for _, user, _ in w.delivery.told] == ["owner"]
    w.delivery.told.clear()
    w.delivery.still_admins = {"boss"}
    await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q2"), "typo", "y")
    clock.advance(timedelta(days=1, minutes=1))
    await summarise(w)
    assert sorted(user for _, user, _ in w.delivery.told) == ["boss", "owner"]


async def test_a_slow_summary_never_holds_up_the_daily_question(
    w: World, clock: ManualClock
) -> None:
    """The summary's DMs hang; the daily question posts at its minute all the same."""
    await w.schedules.set(ADMIN, "C1", "09:30", "UTC", "demo")
    await w.quiz.authoring.report_problem(PLAYER, card_key("demo", "q1"), "typo", "x")
    w.delivery.slow = asyncio.Event()
    running = asyncio.create_task(w.scheduler.run())
    try:
        await asyncio.wait_for(w.delivery.posted.wait(), timeout=10)
        assert w.delivery.in_channel("C1") and w.delivery.told == []
    finally:
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
