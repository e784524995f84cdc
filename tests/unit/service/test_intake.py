"""The click intake on `MemoryStore`, with no platform: the order every platform's clicks go
in (decided and stored, then acknowledged, then answered, then recorded), what a refusal, a
stop and a reply that cannot be sent become. tests/reliability/test_click_promise.py holds
the same promise on Slack and Discord themselves."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.bootstrap import capabilities
from bot.decks.loading import load_decks
from bot.decks.model import DeckLibrary
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.post import PostView
from bot.observability import clicklog
from bot.observability.metrics import Metrics
from bot.service.admission import Admission
from bot.service.clicks import Answer, Answered, Outcome, Refused, Stale
from bot.service.intake import Click, Intake
from bot.service.ports import QuizStore
from bot.service.services import Capabilities
from bot.storage.memory import MemoryStore

QUESTIONS = Path(__file__).resolve().parents[3] / "questions"
HOST, ANA = Actor("local", "host"), Actor("local", "ana")


class Counted:
    """`LivePosts` as the intake uses it: which posts' counts were touched."""

    def __init__(self) -> None:
        self.touched: list[int] = []

    def answered(self, post_id: int, editor: object) -> None:
        self.touched.append(post_id)


class Editor:
    async def redraw(self, view: PostView) -> None: ...


@pytest.fixture
def store() -> QuizStore:
    return MemoryStore()


@pytest.fixture
def quiz(store: QuizStore) -> Capabilities:
    report = load_decks([QUESTIONS])
    assert report.ok and report.decks, report.summary()
    clock = ManualClock(datetime(2026, 3, 2, 9, tzinfo=UTC))
    library = DeckLibrary(report.decks)
    return capabilities(store=store, decks=library, clock=clock, rng=random.Random(5))


def intake(quiz: Capabilities, admission: Admission, posts: Counted, metrics: Metrics) -> Intake:
    return Intake(quiz, admission, posts, metrics, "slack")  # type: ignore[arg-type]


async def test_an_answer_is_stored_then_acknowledged_then_answered_then_recorded(
    quiz: Capabilities,
    store: QuizStore,
) -> None:
    view = await quiz.answering.post(HOST, "C1")
    right = view.post.order.index(view.question.answer)
    posts, metrics, seen = Counted(), Metrics(), []

    async def ack() -> None:
        seen.append(("ack", await store.answer_count(view.post.id)))

    async def reply(said: Outcome) -> None:
        assert isinstance(said, Answered) and said.result.correct
        seen.append(("reply", posts.touched.copy()))

    click = Click(ANA, Answer(view.post.id, right), 0.0, view.post.id, Editor())
    handled = await intake(quiz, Admission(), posts, metrics).handle(click, reply, ack)
    assert seen == [("ack", 1), ("reply", [view.post.id])]
    assert handled == clicklog.Handled("new", view.post.id, True)
    assert 'quizbot_clicks_total{outcome="new",platform="slack"} 1.0' in _metrics(metrics)


async def test_a_refusal_is_acknowledged_and_told(quiz: Capabilities, store: QuizStore) -> None:
    said: list[Outcome] = []
    acked: list[bool] = []

    async def ack() -> None:
        acked.append(True)

    async def reply(outcome: Outcome) -> None:
        said.append(outcome)

    handled = await intake(quiz, Admission(), Counted(), Metrics()).handle(
        Click(ANA, Stale(), 0.0, 7), reply, ack
    )
    assert acked == [True]
    (refused,) = said
    assert isinstance(refused, Refused) and refused.actor == ANA
    assert handled == clicklog.Handled("stale", 7)


async def test_a_click_while_stopping_is_not_acknowledged_nor_stored(
    quiz: Capabilities, store: QuizStore
) -> None:
    view = await quiz.answering.post(HOST, "C1")
    admission = Admission()
    admission.close()

    async def never(*_: object) -> None:
        raise AssertionError("a click while stopping was acknowledged or answered")

    click = Click(ANA, Answer(view.post.id, 0), 0.0, view.post.id, Editor())
    assert await intake(quiz, admission, Counted(), Metrics()).handle(click, never, never) is None
    assert await store.answer_count(view.post.id) == 0


async def test_a_reply_that_cannot_be_sent_is_recorded_as_an_error_and_the_answer_stays(
    quiz: Capabilities,
    store: QuizStore,
) -> None:
    view = await quiz.answering.post(HOST, "C1")

    async def fails(_: Outcome) -> None:
        raise ConnectionError("response_url unreachable")

    click = Click(ANA, Answer(view.post.id, 0), 0.0, view.post.id, Editor())
    handled = await intake(quiz, Admission(), Counted(), Metrics()).handle(click, fails)
    assert handled == clicklog.Handled("error", view.post.id)
    assert await store.answer_count(view.post.id) == 1


def _metrics(metrics: Metrics) -> str:
    return metrics.exposition().decode()
