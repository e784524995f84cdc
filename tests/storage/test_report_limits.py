"""The limits on problem reports hold when one person's forms arrive at once (issue 32,
finding 10): five a day and one open report per question, checked in the report's own
transaction, with a partial unique index for the one open report. On SQLite and
PostgreSQL, through two stores on one database, as two processes would be."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection

from bot.bootstrap import capabilities
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.errors import QuizError
from bot.domain.problems import DAILY_REPORTS
from bot.domain.review import card_key
from bot.storage.engine import MIGRATIONS, store_engine, upgrade
from bot.storage.tables import problem_reports
from tests import factories
from tests.storage.databases import Database

SERVER = "slack:T1"
AT = datetime(2026, 12, 5, 9, tzinfo=UTC)
FORMS = 24


async def test_reports_sent_at_once_by_one_person_store_at_most_the_limit(db: Database) -> None:
    decks = factories.library(factories.deck("demo", n=FORMS))
    clock = ManualClock(AT)
    stores = [await db.open(), await db.open()]
    quizzes = [capabilities(store=store, decks=decks, clock=clock) for store in stores]
    person = Actor(SERVER, "flooder")
    # Twelve questions, each reported twice: both limits are raced at once.
    keys = [card_key("demo", f"q{n % 12 + 1}") for n in range(FORMS)]
    forms = (
        quizzes[n % 2].authoring.report_problem(person, keys[n], "typo", f"{n}")
        for n in range(FORMS)
    )
    outcomes = await asyncio.gather(*forms, return_exceptions=True)
    stored = await stores[0].problem_reports(SERVER)
    refused = [o for o in outcomes if isinstance(o, QuizError)]
    print(f"\n{db.kind}: {FORMS} forms at once, {len(stored)} stored, {len(refused)} refused")
    assert [o for o in outcomes if isinstance(o, Exception) and not isinstance(o, QuizError)] == []
    assert len(stored) == DAILY_REPORTS
    assert len({r.question_id for r in stored}) == len(stored)  # one open per question
    assert len(refused) == FORMS - DAILY_REPORTS
    assert {o.key for o in refused} <= {"report_open", "report_limit"}
    assert {o.key for o in refused} >= {"report_limit"}


def _to_0011_with_twice_reported(conn: Connection) -> None:
    config = Config(str(MIGRATIONS / "alembic.ini"))
    config.attributes["connection"] = conn
    command.upgrade(config, "0011")
    sent = datetime(2026, 12, 4, tzinfo=UTC)
    for n, sent_at in enumerate([None, None, None, sent, None]):
        conn.execute(
            problem_reports.insert().values(
                server_id="s",
                user_id="u",
                deck_id="demo",
                question_id="q1" if n < 4 else "q2",
                deck_version="v1",
                reason="typo",
                text=f"r{n}",
                reported_at=datetime(2026, 12, n + 1, 9, tzinfo=UTC),
                sent_at=sent_at,
            )
        )


async def test_the_migration_keeps_twice_reported_questions_but_one_open(db: Database) -> None:
    """Reports the race let in twice before 0013: all are kept, the first stays open."""
    engine = store_engine(db.url, schema=db.schema)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_to_0011_with_twice_reported)
    finally:
        await engine.dispose()
    await upgrade(db.url, schema=db.schema)
    store = await db.open()
    reports = await store.problem_reports("s")
    assert [(r.text, r.sent_at is None) for r in reports] == [
        ("r0", True),
        ("r1", False),
        ("r2", False),
        ("r3", False),
        ("r4", True),
    ]
