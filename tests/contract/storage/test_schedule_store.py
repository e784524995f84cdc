"""The schedule half of the store contract, on SQLite, PostgreSQL and in memory."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from alembic import command
from alembic.config import Config
from sqlalchemy import inspect, literal
from sqlalchemy.engine import Connection

from bot.domain.records import NewPost, NewSchedule, SlotStatus
from bot.service.ports import QuizStore
from bot.storage.engine import MIGRATIONS, store_engine
from bot.storage.records import post_record
from bot.storage.tables import answers, posts

if TYPE_CHECKING:
    from tests.databases import Database

T0 = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)
DAY = date(2026, 3, 4)


BASE = NewSchedule("slack:T1", "C1", "09:00", "Asia/Dhaka", "demo", "daily", "boss", T0)


def new(channel: str = "C1", server: str = "slack:T1", **changes: Any) -> NewSchedule:
    return replace(BASE, server_id=server, channel_id=channel, **changes)


def a_post(
    schedule_id: int | None, question: str = "q1", at: datetime = T0, channel: str = "C1"
) -> NewPost:
    return NewPost(
        server_id="slack:T1",
        channel_id=channel,
        deck_id="demo",
        question_id=question,
        order=(0, 1, 2),
        locale="en",
        poster_id="boss",
        season=1,
        opened_at=at,
        schedule_id=schedule_id,
    )


async def test_a_schedule_without_a_deck_follows_the_default(store: QuizStore) -> None:
    """Set without a deck, a schedule names none (the server's default at each post); set
    again with one, it names it, and without, it follows the default again."""
    following = await store.put_schedule(new(deck_id=None))
    assert following.deck_id is None
    assert (await store.schedule(following.id)) == following
    named = await store.put_schedule(new(deck_id="demo"))
    assert named.deck_id == "demo" and named.id == following.id
    await store.put_schedule(new(deck_id=None))
    (enabled,) = await store.enabled_schedules()
    assert enabled.schedule.deck_id is None
    assert (await store.schedule_in_channel("slack:T1", "C1")) == enabled.schedule


async def test_one_schedule_per_channel_replaced_in_place(store: QuizStore) -> None:
    first = await store.put_schedule(new())
    assert first.time == "09:00" and first.enabled and first.days == "daily"
    assert first.created_at == T0 and first.updated_at == T0
    later = T0 + timedelta(hours=1)
    second = await store.put_schedule(
        new(time="17:30", zone="UTC", days="weekdays", created_by="other", at=later)
    )
    assert second.id == first.id
    assert (second.time, second.zone, second.days, second.created_by) == (
        "17:30",
        "UTC",
        "weekdays",
        "other",
    )
    assert second.created_at == T0 and second.updated_at == later
    assert await store.schedule(first.id) == second
    assert await store.schedule_in_channel("slack:T1", "C1") == second
    assert await store.schedule_in_channel("slack:T2", "C1") is None


async def test_server_schedules_and_off(store: QuizStore) -> None:
    b = await store.put_schedule(new("C2"))
    a = await store.put_schedule(new("C1"))
    await store.put_schedule(new("C1", server="discord:9"))
    assert [s.id for s in await store.server_schedules("slack:T1")] == [a.id, b.id]
    off = await store.disable_schedule("slack:T1", "C1", T0 + timedelta(minutes=5))
    assert off is not None and not off.enabled and off.id == a.id
    assert await store.disable_schedule("slack:T1", "C1", T0) is None
    assert [s.id for s in await store.server_schedules("slack:T1")] == [b.id]
    again = await store.put_schedule(new("C1", at=T0 + timedelta(hours=2)))
    assert again.id == a.id and again.enabled


async def test_enabled_schedules_carry_their_newest_slot_date(store: QuizStore) -> None:
    a = await store.put_schedule(new("C1"))
    b = await store.put_schedule(new("C2"))
    off = await store.put_schedule(new("C3"))
    await store.disable_schedule("slack:T1", "C3", T0)
    assert await store.claim_slot(a.id, DAY, T0)
    assert await store.claim_slot(a.id, DAY - timedelta(days=3), T0, SlotStatus.SKIPPED)
    rows = {e.schedule.id: e.last_date for e in await store.enabled_schedules()}
    assert rows == {a.id: DAY, b.id: None}
    assert off.id not in rows


async def test_a_date_is_claimed_once(store: QuizStore) -> None:
    s = await store.put_schedule(new())
    assert await store.claim_slot(s.id, DAY, T0)
    assert not await store.claim_slot(s.id, DAY, T0 + timedelta(seconds=1))
    assert not await store.claim_slot(s.id, DAY, T0, SlotStatus.SKIPPED)
    assert await store.claim_slot(s.id, DAY + timedelta(days=1), T0)
    [newest, oldest] = await store.recent_slots(s.id, 5)
    assert newest.local_date == DAY + timedelta(days=1)
    assert (oldest.local_date, oldest.status, oldest.claimed_at) == (DAY, SlotStatus.CLAIMED, T0)


async def test_concurrent_claims_from_several_stores_one_wins(db: Database) -> None:
    stores = [await db.open() for _ in range(4)]
    s = await stores[0].put_schedule(new())
    results = await asyncio.gather(
        *(st.claim_slot(s.id, DAY, T0) for st in stores for _ in range(3))
    )
    assert sorted(results) == [False] * 11 + [True]


async def test_finish_slot_records_the_outcome(store: QuizStore) -> None:
    s = await store.put_schedule(new())
    post = await store.create_post(a_post(s.id))
    await store.claim_slot(s.id, DAY, T0)
    await store.finish_slot(s.id, DAY, SlotStatus.POSTED, post_id=post.id)
    await store.claim_slot(s.id, DAY + timedelta(days=1), T0)
    await store.finish_slot(
        s.id, DAY + timedelta(days=1), SlotStatus.FAILED, error="channel_not_found"
    )
    failed, posted = await store.recent_slots(s.id, 10)
    assert (failed.status, failed.error, failed.post_id) == (
        SlotStatus.FAILED,
        "channel_not_found",
        None,
    )
    assert (posted.status, posted.post_id, posted.error) == (SlotStatus.POSTED, post.id, None)
    assert len(await store.recent_slots(s.id, 1)) == 1


async def test_question_history_and_open_scheduled_posts(store: QuizStore) -> None:
    s = await store.put_schedule(new())
    other = await store.put_schedule(new("C2"))
    p1 = await store.create_post(a_post(s.id, "q2", T0))
    p2 = await store.create_post(a_post(s.id, "q1", T0 + timedelta(days=1)))
    await store.create_post(a_post(None, "q9", T0))  # a manual post
    p4 = await store.create_post(a_post(other.id, "q3", T0, channel="C2"))
    assert await store.scheduled_questions(s.id, "demo") == ["q2", "q1"]
    assert await store.scheduled_questions(s.id, "other-deck") == []
    assert [p.id for p in await store.open_scheduled_posts(s.id)] == [p1.id, p2.id]
    assert [p.id for p in await store.open_scheduled_posts()] == [p1.id, p4.id, p2.id]
    before = T0 + timedelta(hours=1)
    assert [p.id for p in await store.open_scheduled_posts(opened_before=before)] == [
        p1.id,
        p4.id,
    ]
    await store.close_post(p1.id, T0 + timedelta(hours=2))
    assert [p.id for p in await store.open_scheduled_posts(s.id)] == [p2.id]


async def test_a_discarded_post_leaves_the_schedule(store: QuizStore) -> None:
    s = await store.put_schedule(new())
    post = await store.create_post(a_post(s.id, "q2"))
    await store.discard_post(post.id, T0 + timedelta(minutes=1))
    gone = await store.post(post.id)
    assert gone is not None
    assert gone.closed_at == T0 + timedelta(minutes=1) and gone.schedule_id is None
    assert await store.scheduled_questions(s.id, "demo") == []
    assert await store.open_scheduled_posts(s.id) == []


def _columns(post: NewPost) -> dict[str, Any]:
    return {
        "server_id": post.server_id,
        "channel_id": post.channel_id,
        "deck_id": post.deck_id,
        "question_id": post.question_id,
        "choice_order": ",".join(map(str, post.order)),
        "locale": post.locale,
        "poster_id": post.poster_id,
        "season": post.season,
        "schedule_id": post.schedule_id,
        "opened_at": post.opened_at,
    }


def _upgrade_to(revision: str) -> Callable[[Connection], set[str]]:
    def run(conn: Connection) -> set[str]:
        config = Config(str(MIGRATIONS / "alembic.ini"))
        config.attributes["connection"] = conn
        command.upgrade(config, revision)
        return set(inspect(conn).get_table_names())

    return run


async def test_a_0001_database_with_data_upgrades(db: Database) -> None:
    engine = store_engine(db.url, schema=db.schema)
    try:
        async with engine.begin() as conn:
            tables = await conn.run_sync(_upgrade_to("0001"))
    finally:
        await engine.dispose()
    assert "schedules" not in tables
    # Written as an 0001 bot wrote them: two open posts of one question (the newer one
    # stays open, the older is closed by 0005) and an answer (a first meeting since 0005).
    old = store_engine(db.url, schema=db.schema)
    try:
        async with old.begin() as conn:
            made = []
            for post in (a_post(None), a_post(None, at=T0 + timedelta(hours=1), channel="C2")):
                later = ("game_id", "closes_at")  # games came in 0011, deadlines in 0012
                then = [c for c in posts.c if c.name not in later]
                insert = (
                    posts.insert()
                    .values(**_columns(post))
                    .returning(*then, *(literal(None).label(name) for name in later))
                )
                made.append(post_record((await conn.execute(insert)).one()))
            kept, newer = made
            await conn.execute(
                answers.insert().values(
                    server_id="slack:T1",
                    season=1,
                    user_id="U1",
                    deck_id="demo",
                    question_id="q1",
                    post_id=kept.id,
                    choice=0,
                    correct=True,
                    points=1,
                    answered_at=T0 + timedelta(minutes=1),
                )
            )
    finally:
        await old.dispose()
    store = await db.open()  # migrates to head
    assert (await store.post(kept.id)) == replace(kept, closed_at=kept.opened_at)
    assert (await store.post(newer.id)) == newer
    assert await store.open_questions("slack:T1") == {("demo", "q1"): "C2"}
    run = await store.start_run("slack:T1", "U1", "demo", 1, T0 + timedelta(hours=2))
    again = await store.record_run_answer(run, "q1", 0, True, T0 + timedelta(hours=2))
    assert again.answer.points == 0  # met in a post before the upgrade
    s = await store.put_schedule(new())
    assert await store.claim_slot(s.id, DAY, T0)


async def test_a_stuck_claim_is_taken_over_by_one_caller(store: QuizStore) -> None:
    s = await store.put_schedule(new())
    assert await store.claim_slot(s.id, DAY, T0)
    (enabled,) = await store.enabled_schedules()
    assert (enabled.last_date, enabled.last_status, enabled.last_claimed_at) == (
        DAY,
        SlotStatus.CLAIMED,
        T0,
    )
    later = T0 + timedelta(minutes=10)
    wrong = T0 + timedelta(seconds=1)
    assert not await store.reclaim_slot(s.id, DAY, wrong, later)  # not the claim it saw
    takers = await asyncio.gather(*(store.reclaim_slot(s.id, DAY, T0, later) for _ in range(3)))
    assert sorted(takers) == [False, False, True]
    (enabled,) = await store.enabled_schedules()
    assert enabled.last_claimed_at == later
    await store.finish_slot(s.id, DAY, SlotStatus.POSTED)
    assert not await store.reclaim_slot(s.id, DAY, later, later + timedelta(minutes=10))
