"""The `Suggestions` port's contract, on SQLite, PostgreSQL and in memory: one draft per
author, the limits of sending, one admin's decision wins, forgetting keeps approved
questions uncredited, and a second process on the same database sees an approval."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.domain.suggestion import Draft, Finding, Sent, Status
from bot.service.ports import QuizStore
from bot.service.suggestion_port import Suggestions
from bot.storage import SqlStore, SqlSuggestions
from bot.storage.memory_suggestions import MemorySuggestions
from tests.databases import Database

AT = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
DAY = datetime(2026, 12, 5, tzinfo=UTC)
SERVER = "slack:T1"
DRAFT = Draft(
    "Which collective sums gradients?",
    "all-reduce",
    ("broadcast", "gather"),
    "It sums.",
    ("one to all", ""),
)


@pytest.fixture
def box(any_store: QuizStore) -> Suggestions:
    if isinstance(any_store, SqlStore):
        return SqlSuggestions(any_store)
    return MemorySuggestions()


async def test_a_draft_is_kept_whole_and_saving_again_replaces_it(box: Suggestions) -> None:
    first = await box.save_draft(SERVER, "U1", "ana", DRAFT, AT)
    assert first.status is Status.DRAFT and first.draft == DRAFT
    edited = Draft("Which collective sums?", "all-reduce", ("broadcast",), "", (), "en")
    again = await box.save_draft(SERVER, "U1", "Ana B", edited, AT + timedelta(minutes=1))
    assert again.id == first.id
    found = await box.draft_of(SERVER, "U1")
    assert found is not None and found.draft == edited and found.author_name == "Ana B"
    assert await box.draft_of(SERVER, "U2") is None
    assert await box.draft_of("slack:T2", "U1") is None


async def test_sending_moves_the_draft_to_the_queue_with_its_findings(box: Suggestions) -> None:
    draft = await box.save_draft(SERVER, "U1", "ana", DRAFT, AT)
    found = [Finding("length-tell", "10 vs 5"), Finding("no-explanation")]
    assert await box.send(draft.id, "U2", found, AT, DAY, 3, 20) is Sent.GONE  # not theirs
    assert await box.send(draft.id, "U1", found, AT, DAY, 3, 20) is Sent.SENT
    assert await box.send(draft.id, "U1", found, AT, DAY, 3, 20) is Sent.GONE  # sent already
    assert await box.draft_of(SERVER, "U1") is None
    [waiting] = await box.waiting(SERVER, 10)
    assert (waiting.id, waiting.status, waiting.submitted_at) == (draft.id, Status.WAITING, AT)
    assert list(await box.findings(draft.id)) == found
    assert await box.waiting_count(SERVER) == 1


async def test_a_person_sends_a_few_a_day_and_the_queue_holds_a_few(box: Suggestions) -> None:
    for n in range(2):
        d = await box.save_draft(SERVER, "U1", "ana", DRAFT, AT + timedelta(minutes=n))
        assert await box.send(d.id, "U1", [], AT + timedelta(minutes=n), DAY, 2, 3) is Sent.SENT
    third = await box.save_draft(SERVER, "U1", "ana", DRAFT, AT + timedelta(hours=1))
    assert await box.send(third.id, "U1", [], AT, DAY, 2, 3) is Sent.DAY_FULL
    tomorrow = DAY + timedelta(days=1)
    assert await box.send(third.id, "U1", [], tomorrow, tomorrow, 2, 3) is Sent.SENT
    other = await box.save_draft(SERVER, "U2", "bo", DRAFT, AT)
    assert await box.send(other.id, "U2", [], AT, DAY, 2, 3) is Sent.QUEUE_FULL
    assert (await box.draft_of(SERVER, "U2")) is not None  # kept


async def test_the_queue_is_oldest_first_and_one_decision_wins(box: Suggestions) -> None:
    ids = []
    for n, user in enumerate(["U3", "U1", "U2"]):
        d = await box.save_draft(SERVER, user, user, DRAFT, AT)
        await box.send(d.id, user, [], AT + timedelta(minutes=n), DAY, 3, 20)
        ids.append(d.id)
    assert [s.id for s in await box.waiting(SERVER, 2)] == ids[:2]
    assert await box.decide(ids[0], "slack:T9", Status.APPROVED, "UA", None, AT) is None
    done = await box.decide(ids[0], SERVER, Status.APPROVED, "UA", None, AT)
    assert done is not None and done.status is Status.APPROVED and done.decided_by == "UA"
    assert await box.decide(ids[0], SERVER, Status.REJECTED, "UB", "no", AT) is None
    no = await box.decide(ids[1], SERVER, Status.REJECTED, "UA", "unclear", AT)
    assert no is not None and no.reason == "unclear"
    assert [s.id for s in await box.approved()] == [ids[0]]
    assert [s.id for s in await box.waiting(SERVER, 10)] == [ids[2]]


async def test_an_admin_edit_rewrites_only_a_waiting_one(box: Suggestions) -> None:
    d = await box.save_draft(SERVER, "U1", "ana", DRAFT, AT)
    better = Draft("Which collective sums gradients?", "all-reduce", ("gather",), "Sums.", ())
    assert await box.rewrite(d.id, better, [], AT) is None  # still a draft
    await box.send(d.id, "U1", [Finding("no-explanation")], AT, DAY, 3, 20)
    done = await box.rewrite(d.id, better, [], AT)
    assert done is not None and done.draft == better
    assert list(await box.findings(d.id)) == []


async def test_forgetting_a_person_keeps_their_approved_questions_uncredited(
    box: Suggestions,
) -> None:
    kept = await box.save_draft(SERVER, "U1", "ana", DRAFT, AT)
    await box.send(kept.id, "U1", [], AT, DAY, 3, 20)
    await box.decide(kept.id, SERVER, Status.APPROVED, "UA", None, AT)
    await box.save_draft(SERVER, "U1", "ana", DRAFT, AT)
    stamp = await box.approved_stamp()
    assert await box.forget_author(SERVER, "U1", AT + timedelta(minutes=5)) == 2
    assert await box.draft_of(SERVER, "U1") is None
    assert await box.authored(SERVER, "U1") == []
    [approved] = await box.approved()
    assert (approved.id, approved.author_id, approved.author_name) == (kept.id, None, None)
    assert await box.approved_stamp() != stamp


async def test_another_process_on_the_database_sees_an_approval(db: Database) -> None:
    one, two = SqlSuggestions(await db.open()), SqlSuggestions(await db.open())
    d = await one.save_draft(SERVER, "U1", "ana", DRAFT, AT)
    await one.send(d.id, "U1", [], AT, DAY, 3, 20)
    before = await two.approved_stamp()
    await one.decide(d.id, SERVER, Status.APPROVED, "UA", None, AT)
    assert await two.approved_stamp() != before
    assert [s.draft for s in await two.approved()] == [DRAFT]
