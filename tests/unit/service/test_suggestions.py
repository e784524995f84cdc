"""The suggestions service: the lint coaches a draft in words, nothing typed is lost, an admin
approves, and the question is the server's own deck's at once: posted, answered, revealed with
its author's credit; forgetting the author takes the credit, not the question."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.bootstrap import capabilities
from bot.decks.loading import load_decks
from bot.decks.model import DeckLibrary
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.errors import QuizError
from bot.domain.suggestion import PER_DAY, Field, Sent, Status
from bot.domain.team_deck import team_deck_id
from bot.presentation.messages import reveal_message
from bot.presentation.suggestion_messages import (
    coaching,
    outcome_text,
    queue_message,
    written_lines,
)
from bot.service.services import Capabilities
from bot.service.suggestions import FormRefused, Suggestions
from bot.storage.memory import MemoryStore
from bot.storage.memory_suggestions import MemorySuggestions

QUESTIONS = Path(__file__).resolve().parents[3] / "questions"
SERVER = "slack:T1"
ANA = Actor(SERVER, "U1")
ADMIN = Actor(SERVER, "UA", is_admin=True)
MEMBER = Actor(SERVER, "U2")
TELLS = {
    Field.QUESTION: "Which file format does a team deck use in git?",
    Field.RIGHT: "YAML with one mapping per question and its explanation",
    Field.WRONG: "JSON\nTOML\nCSV",
    Field.EXPLANATION: "Deck files are YAML: comments and multi-line text read well in review.",
    Field.WHYS: "JSON has no comments\nTOML is for config\nCSV cannot hold whys",
}
FAIR = {**TELLS, Field.RIGHT: "YAML"}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 12, 5, 9, tzinfo=UTC))


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def quiz(store: MemoryStore, clock: ManualClock) -> Capabilities:
    report = load_decks([QUESTIONS])
    library = DeckLibrary(report.decks)
    return capabilities(store=store, decks=library, clock=clock, rng=random.Random(3))


@pytest.fixture
def box(quiz: Capabilities, store: MemoryStore, clock: ManualClock) -> Suggestions:
    return Suggestions(
        MemorySuggestions(),
        lambda: quiz.catalog.decks,
        clock,
        {},
        outcome_text,
        store.question_tallies,
    )


async def test_the_lint_coaches_a_length_tell_and_the_draft_is_kept(box: Suggestions) -> None:
    checked = await box.check(ANA, "ana", TELLS)
    assert checked.sent is None  # the author chooses: Edit or Submit anyway
    assert [f.name for f in checked.findings] == ["length-tell"]
    said = coaching("en", checked)
    assert said.findings[0].startswith("The right answer is the longest choice by far")
    assert (said.edit, said.send) == ("Edit", "Submit anyway")
    assert coaching("bn", checked).findings[0].startswith("সঠিক উত্তরটা")
    draft = await box.draft(ANA)
    assert draft is not None and draft.fields()[Field.RIGHT] == TELLS[Field.RIGHT]
    assert await box.draft(MEMBER) is None  # nobody else sees it


async def test_no_explanation_and_a_wrong_answer_without_why_are_said(box: Suggestions) -> None:
    bare = {**FAIR, Field.EXPLANATION: "", Field.WHYS: "JSON has no comments"}
    checked = await box.check(ANA, "ana", bare)
    assert [(f.name, f.detail) for f in checked.findings] == [
        ("no-explanation", ""),
        ("missing-why", '"TOML", "CSV"'),
    ]


async def test_a_question_the_decks_already_ask_is_named(
    box: Suggestions, quiz: Capabilities
) -> None:
    deck = quiz.catalog.deck("distributed-jobs")
    q = deck.questions[0]
    copy = {
        Field.QUESTION: q.text["en"],
        Field.RIGHT: q.right.text["en"],
        Field.WRONG: "\n".join(c.text["en"] for c in q.choices if c is not q.right),
        Field.EXPLANATION: q.explanation["en"],
        Field.WHYS: "",
    }
    checked = await box.check(ANA, "ana", copy)
    [twin] = [f for f in checked.findings if f.name == "duplicate-question"]
    assert q.text["en"] in twin.detail


async def test_a_form_over_its_limits_is_refused_by_field(box: Suggestions) -> None:
    with pytest.raises(FormRefused) as refused:
        await box.check(ANA, "ana", {**FAIR, Field.QUESTION: "x" * 301})
    assert (refused.value.field, refused.value.key) == (Field.QUESTION, "suggest_too_long")
    with pytest.raises(FormRefused) as refused:
        await box.check(ANA, "ana", {**FAIR, Field.WRONG: ""})
    assert refused.value.field is Field.WRONG


async def test_approved_it_is_played_at_once_and_credits_its_author(
    box: Suggestions, quiz: Capabilities, clock: ManualClock
) -> None:
    checked = await box.check(ANA, "ana <@U9>", TELLS)
    assert await box.send_anyway(MEMBER, checked.suggestion.id) is Sent.GONE  # not theirs
    assert await box.send_anyway(ANA, checked.suggestion.id) is Sent.SENT
    with pytest.raises(QuizError, match="admin_only"):
        await box.queue(MEMBER)
    with pytest.raises(QuizError, match="admin_only"):
        await box.approve(MEMBER, checked.suggestion.id)
    queue = await box.queue(ADMIN)
    shown = queue_message("en", queue)
    assert shown.title == "Suggestions waiting: 1"
    assert shown.items[0].findings[1].startswith("• The right answer is the longest")
    with pytest.raises(QuizError, match="unknown_deck"):
        await quiz.catalog.deck_for(SERVER, "team")  # nothing approved yet

    done = await box.approve(ADMIN, checked.suggestion.id)
    assert done.status is Status.APPROVED
    deck = await quiz.catalog.deck_for(SERVER, "team")
    assert deck.id == team_deck_id(SERVER) == "team-t1"
    assert [d.id for d in (await quiz.catalog.deck_list(MEMBER)).decks][-1] == "team-t1"
    assert "team-t1" not in [
        d.id for d in (await quiz.catalog.deck_list(Actor("slack:T2", "U1"))).decks
    ]

    view = await quiz.answering.post(ADMIN, "C1", "team")
    assert view.question.text["en"] == TELLS[Field.QUESTION]
    right = view.post.order.index(view.question.answer)
    await quiz.answering.answer(MEMBER, view.post.id, right)
    reveal = reveal_message(await quiz.answering.close(ADMIN, "C1"))
    assert reveal.explanation.endswith("\nQuestion by @ana <@U9>")  # text: each platform escapes

    assert await box.forget(SERVER, "U1") == 1
    again = await quiz.answering.post(ADMIN, "C1", "team")
    assert (
        reveal_message(await quiz.answering.close(ADMIN, "C1")).explanation
        == TELLS[Field.EXPLANATION]
    )
    assert again.question.id == done.question_id  # the question stays


async def test_a_rejection_needs_a_reason_and_one_decision_wins(box: Suggestions) -> None:
    checked = await box.check(ANA, "ana", FAIR)
    assert checked.sent is Sent.SENT  # nothing found: straight to the queue
    with pytest.raises(QuizError, match="suggest_missing_reason"):
        await box.reject(ADMIN, checked.suggestion.id, "  ")
    done = await box.reject(ADMIN, checked.suggestion.id, "We ask this in onboarding.")
    assert outcome_text(done) == (
        "Your question “Which file format does a team deck use in git?” was not approved. "
        "The admin said: We ask this in onboarding."
    )
    with pytest.raises(QuizError, match="suggestion_gone"):
        await box.approve(ADMIN, checked.suggestion.id)


async def test_a_few_a_day_per_person(box: Suggestions, clock: ManualClock) -> None:
    for n in range(PER_DAY):
        fair = {**FAIR, Field.QUESTION: f"{FAIR[Field.QUESTION]} ({n})"}
        assert (await box.check(ANA, "ana", fair)).sent is Sent.SENT
    assert (await box.check(ANA, "ana", FAIR)).sent is Sent.DAY_FULL
    assert await box.draft(ANA) is not None  # kept for tomorrow
    clock.advance(timedelta(days=1))
    draft = await box.store.draft_of(SERVER, "U1")
    assert draft is not None and await box.send_anyway(ANA, draft.id) is Sent.SENT


async def test_stats_show_what_a_person_wrote_and_others_only_approved(
    box: Suggestions, quiz: Capabilities
) -> None:
    waiting = await box.check(ANA, "ana", FAIR)
    assert [w.suggestion.id for w in await box.written(ANA)] == [waiting.suggestion.id]
    assert await box.written(MEMBER, "U1") == []  # nothing visible before approval
    await box.approve(ADMIN, waiting.suggestion.id)
    view = await quiz.answering.post(ADMIN, "C1", "team")
    for n in range(12):
        player = Actor(SERVER, f"P{n}")
        right = view.post.order.index(view.question.answer)
        await quiz.answering.answer(player, view.post.id, right if n % 3 else (right + 1) % 4)
    [written] = await box.written(MEMBER, "U1")
    assert written.health is not None and written.health.answered == 12
    assert written_lines("en", [written]) == [
        "Questions written: 1",
        "1. “Which file format does a team deck use in git?”: answered 12, 67% right, "
        "discrimination +1.00",
    ]


async def test_another_process_sees_an_approval_when_it_syncs(tmp_path: Path) -> None:
    from bot.storage import SqlSuggestions, open_store

    url = f"sqlite:///{tmp_path / 'quiz.db'}"
    stores = [await open_store(url), await open_store(url)]
    libraries = [DeckLibrary([]), DeckLibrary([])]
    clock = ManualClock(datetime(2026, 12, 5, 9, tzinfo=UTC))
    one, two = (
        Suggestions(SqlSuggestions(s), lambda lib=lib: lib, clock, {}, outcome_text)  # type: ignore[misc]
        for s, lib in zip(stores, libraries, strict=True)
    )
    try:
        await two.sync()
        checked = await one.check(ANA, "ana", FAIR)
        await one.approve(ADMIN, checked.suggestion.id)
        assert libraries[0].get("team-t1") is not None
        assert libraries[1].get("team-t1") is None
        await two.sync()
        deck = libraries[1].get("team-t1")
        assert deck is not None and deck.questions[0].credit == "ana"
    finally:
        for s in stores:
            await s.close()


async def test_the_team_deck_is_the_deck_of_a_game_a_run_and_a_daily_question(
    box: Suggestions, quiz: Capabilities, store: MemoryStore, clock: ManualClock
) -> None:
    from bot.bootstrap import build_games, build_schedules
    from bot.domain.run import RunStep
    from bot.service.deliveries import Deliveries

    checked = await box.check(ANA, "ana", FAIR)
    await box.approve(ADMIN, checked.suggestion.id)
    game = await build_games(store, quiz, clock, Deliveries()).start(MEMBER, "C2", "team")
    assert game.deck_id == "team-t1"
    step = await quiz.runs.start_run(MEMBER, "team")
    assert isinstance(step, RunStep) and step.run.deck_id == "team-t1"
    daily = await build_schedules(store, quiz, clock).set(ADMIN, "C3", "09:00", "UTC", "team")
    assert daily.info.schedule.deck_id == "team-t1"
    assert daily.info.deck is not None and daily.info.deck.id == "team-t1"
