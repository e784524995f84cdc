"""The standings table (points per period, kept as answers are stored) always says what the
answers themselves say: on both databases and in memory, for posts and runs, per deck and for
all decks, in a server's own time zone, and after the migration that backfills it."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from alembic import command
from alembic.config import Config
from sqlalchemy import delete
from sqlalchemy.engine import Connection

from bot.domain.leaderboard import Period, period_bounds, period_key
from bot.domain.records import NewPost, StandingsQuery
from bot.service.ports import QuizStore
from bot.storage.engine import MIGRATIONS, store_engine
from bot.storage.tables import standings
from tests.factories import click

if TYPE_CHECKING:
    from tests.databases import Database

SERVER = "slack:T1"
DECKS = ("deck-a", "deck-b")
USERS = [f"U{i}" for i in range(12)]
START = datetime(2026, 1, 26, 22, 30, tzinfo=UTC)  # a Monday night: weeks and months turn


async def play(store: QuizStore, seed: int, server: str = SERVER) -> list[datetime]:
    """Six weeks of posts and runs with right and wrong answers, some out of time order.
    Returns moments to ask leaderboards at."""
    rng = random.Random(seed)
    moments = []
    for day in range(36):
        opened = START + timedelta(days=day, minutes=rng.randrange(-90, 90))
        deck = DECKS[day % 2]
        post = await store.create_post(
            NewPost(server, "C1", deck, f"q{day}", (0, 1, 2), "en", "U0", 1, opened)
        )
        for user in rng.sample(USERS, rng.randrange(2, len(USERS))):
            at = opened + timedelta(minutes=rng.randrange(0, 180))
            right = rng.random() < 0.6
            await click(store, post, user, 0 if right else 1, right, at)
        if day % 5 == 0:
            user = rng.choice(USERS)
            run = await store.start_run(server, user, deck, 1, opened)
            for q in range(3):
                at = opened - timedelta(minutes=q * 7)  # out of order on purpose
                await store.record_run_answer(run, f"q{q}", 0, rng.random() < 0.7, at)
            await store.finish_run(run.id, opened)
        moments.append(opened + timedelta(hours=1))
    return moments


async def assert_same(
    store: QuizStore, moments: list[datetime], zone: str, server: str = SERVER
) -> int:
    """Every leaderboard asked at every moment: kept standings == standings from answers."""
    checked = 0
    for now in [*moments[::8], moments[-1]]:
        for period in Period:
            since, until = period_bounds(period, now, zone)
            for deck in (None, *DECKS):
                raw = StandingsQuery(server, 1, since, until, deck)
                kept = StandingsQuery(server, 1, since, until, deck, period_key(period, now, zone))
                expected = list(await store.standings(raw, 100))
                assert list(await store.standings(kept, 100)) == expected, (period, now, deck)
                assert list(await store.standings(kept, 3)) == expected[:3]
                for user in [*USERS, "nobody"]:
                    mine = await store.standing_of(kept, user)
                    assert mine == await store.standing_of(raw, user), (period, now, deck, user)
                checked += len(expected)
    return checked


async def test_standings_equal_the_answers(store: QuizStore) -> None:
    moments = await play(store, seed=1)
    assert await assert_same(store, moments, "UTC") > 50


async def test_standings_equal_the_answers_when_clicks_share_transactions(
    store: QuizStore,
) -> None:
    """A burst: clicks on many posts at once, one person on several of them, so the group
    commit puts a person's answers in one transaction (on SQLite their standings rows are
    added up there and written at its end)."""
    rng = random.Random(7)
    clicks = []
    moments = []
    for day in range(10):
        opened = START + timedelta(days=day)
        post = await store.create_post(
            NewPost(SERVER, "C1", DECKS[day % 2], f"q{day}", (0, 1, 2), "en", "U0", 1, opened)
        )
        for user in rng.sample(USERS, 8):
            right = rng.random() < 0.7
            at = opened + timedelta(minutes=rng.randrange(0, 120))
            clicks.append(click(store, post, user, 0 if right else 1, right, at))
        moments.append(opened + timedelta(hours=3))
    await asyncio.gather(*clicks)
    assert await assert_same(store, moments, "UTC") > 50


async def test_standings_in_the_servers_zone(store: QuizStore) -> None:
    await store.set_server_timezone(SERVER, "America/Los_Angeles")
    moments = await play(store, seed=2)
    assert await assert_same(store, moments, "America/Los_Angeles") > 50


async def test_a_zone_change_moves_no_stored_answer(store: QuizStore) -> None:
    """Answers keep the week they were stored in; the next ones count in the new zone."""
    post = await store.create_post(
        NewPost(SERVER, "C1", "deck-a", "q", (0, 1), "en", "U0", 1, START)
    )
    sunday_night_utc = datetime(2026, 2, 1, 23, 0, tzinfo=UTC)  # Monday morning in Dhaka
    await click(store, post, "U1", 0, True, sunday_night_utc)
    await store.set_server_timezone(SERVER, "Asia/Dhaka")
    await click(store, post, "U2", 0, True, sunday_night_utc)
    old_week = StandingsQuery(SERVER, 1, period=period_key(Period.WEEK, sunday_night_utc, "UTC"))
    new_week = StandingsQuery(
        SERVER, 1, period=period_key(Period.WEEK, sunday_night_utc, "Asia/Dhaka")
    )
    assert [s.user_id for s in await store.standings(old_week, 10)] == ["U1"]
    assert [s.user_id for s in await store.standings(new_week, 10)] == ["U2"]


def _migrate(conn: Connection, revision: str, down: bool) -> None:
    config = Config(str(MIGRATIONS / "alembic.ini"))
    config.attributes["connection"] = conn
    (command.downgrade if down else command.upgrade)(config, revision)


async def _on(db: Database, fn: Any) -> None:
    engine = store_engine(db.url, schema=db.schema)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(fn)
    finally:
        await engine.dispose()


async def test_migration_backfills_the_standings(db: Database) -> None:
    store = await db.open()
    await store.set_server_timezone("slack:T2", "Asia/Dhaka")
    moments = await play(store, seed=3)
    zoned = await play(store, seed=4, server="slack:T2")
    await store.close()
    db.stores.remove(store)
    await _on(db, lambda conn: _migrate(conn, "0002", down=True))
    await _on(db, lambda conn: _migrate(conn, "head", down=False))
    store = await db.open()
    assert await assert_same(store, moments, "UTC") > 50
    assert await assert_same(store, zoned, "Asia/Dhaka", server="slack:T2") > 50
    # and the rows are really the backfill's, not left over
    await _on(db, lambda conn: conn.execute(delete(standings)))
    assert list(await store.standings(StandingsQuery(SERVER, 1, period="all"), 10)) == []


async def test_postgresql_period_keys_match_the_core_across_zones_and_dst(
    pg_schema: str,
) -> None:
    """A PostgreSQL click computes its week and month keys in SQL (one round trip); they must
    be the core's `answer_keys` for every instant and zone, across DST changes and the turn
    of a week, a month and a year. (SQLite's clicks use `answer_keys` itself.)"""
    from sqlalchemy import bindparam, select

    from bot.domain.leaderboard import answer_keys
    from bot.storage import open_store
    from bot.storage.postgres.click import period_keys_sql
    from bot.storage.tables import UtcDateTime
    from tests.databases import POSTGRES_URL

    store = await open_store(POSTGRES_URL, schema=pg_schema)
    at = bindparam("at", type_=UtcDateTime())
    zone = bindparam("zone")
    stmt = select(*period_keys_sql(at, zone))
    zones = ["UTC", "Asia/Dhaka", "America/New_York", "Europe/London", "Pacific/Auckland"]
    instants = (
        [
            datetime(2026, 3, 8, 6, 59, tzinfo=UTC) + timedelta(minutes=m)  # New York springs
            for m in (0, 1, 2, 61)
        ]
        + [
            datetime(2026, 10, 25, 0, 30, tzinfo=UTC) + timedelta(hours=h)  # London falls back
            for h in range(4)
        ]
        + [datetime(2025, 12, 31, 23, 30, tzinfo=UTC) + timedelta(hours=h) for h in range(30)]
    )

    def read(conn: Any) -> list[tuple[str, ...]]:
        return [
            tuple(conn.execute(stmt, {"at": when, "zone": name}).one())
            for name in zones
            for when in instants
        ]

    try:
        got = await store._tx.read(read)
    finally:
        await store.close()
    expected = [answer_keys(when, name) for name in zones for when in instants]
    assert got == expected
