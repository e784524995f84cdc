"""`quizbot export`: the CSV a server admin opens in a spreadsheet."""

from __future__ import annotations

import csv
import os
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.bootstrap import capabilities
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.storage.export import export_server
from tests import factories
from tests.storage.databases import Database


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


async def test_export_answers_and_leaderboards(db: Database, tmp_path: Path) -> None:
    store = await db.open()
    clock = ManualClock(datetime(2026, 5, 1, 9, tzinfo=UTC))
    quiz = capabilities(store=store, decks=factories.library(), clock=clock, rng=random.Random(3))
    admin = Actor("slack:T1", "boss", is_admin=True)

    async def answer(name: str, right: bool, server: str = "slack:T1") -> None:
        view = await quiz.answering.post(
            Actor(server, "poster"), f"C{clock.now().timestamp()}", "demo", "q1"
        )
        clock.advance(timedelta(minutes=1))
        index = view.question.answer if right else (view.question.answer + 1) % 3
        await quiz.answering.answer(Actor(server, name), view.post.id, view.post.order.index(index))
        await quiz.answering.close(Actor(server, "poster"), post_id=view.post.id)

    await answer("ana", True)
    await answer("=HYPERLINK(1)", True)  # a name a spreadsheet would run as a formula
    await answer("bo", False)
    await answer("other-server", True, server="discord:9")
    await quiz.membership.reset(admin, confirms=1)
    await answer("bo", True)

    written = await export_server(db.url, "slack:T1", tmp_path, schema=db.schema)
    answers_csv = tmp_path / "slack_T1-answers.csv"
    board_csv = tmp_path / "slack_T1-leaderboard.csv"
    assert written == {
        answers_csv: 4,
        board_csv: 3,
        tmp_path / "slack_T1-reviews.csv": 0,
        tmp_path / "slack_T1-problem-reports.csv": 0,
    }

    exported = rows(answers_csv)
    assert [
        (r["season"], r["user_id"], r["correct"], r["points"], r["source"]) for r in exported
    ] == [
        ("1", "ana", "1", "1", "post"),
        ("1", "'=HYPERLINK(1)", "1", "1", "post"),
        ("1", "bo", "0", "0", "post"),
        ("2", "bo", "1", "1", "post"),
    ]
    assert datetime.fromisoformat(exported[0]["answered_at"]) == datetime(
        2026, 5, 1, 9, 1, tzinfo=UTC
    )

    board = rows(board_csv)
    assert [(r["season"], r["rank"], r["user_id"], r["points"]) for r in board] == [
        ("1", "1", "ana", "1"),  # tied, and reached 1 point first
        ("1", "1", "'=HYPERLINK(1)", "1"),
        ("2", "1", "bo", "1"),
    ]
    assert "other-server" not in answers_csv.read_text(encoding="utf-8")


async def test_a_server_with_nothing_stored_gets_no_files(db: Database, tmp_path: Path) -> None:
    store = await db.open()
    clock = ManualClock(datetime(2026, 5, 1, 9, tzinfo=UTC))
    quiz = capabilities(store=store, decks=factories.library(), clock=clock, rng=random.Random(3))
    view = await quiz.answering.post(Actor("slack:T1", "poster"), "C1", "demo", "q1")
    await quiz.answering.answer(Actor("slack:T1", "ana"), view.post.id, 0)
    await store.close()

    assert await export_server(db.url, "slack:T2", tmp_path, schema=db.schema) == {}
    assert [p for p in os.listdir(tmp_path) if p.endswith(".csv")] == []
    written = await export_server(db.url, "slack:T1", tmp_path, schema=db.schema)
    assert written[tmp_path / "slack_T1-answers.csv"] == 1
