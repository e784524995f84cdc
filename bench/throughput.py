"""1. Answers recorded per second through the engine (`Answering.answer`, reply included), on
SQLite and PostgreSQL, with 1, 10 and 100 users clicking at once.

Baseline: the bare driver (aiosqlite, asyncpg) writing the same rows with the same
transaction shape as `SqlStore.answer_post` (read the post, insert the answer, add a right
answer's point to its six standings rows and move its score counts), one transaction per
answer, through a pool of
the same size as the engine's (5 + 10 overflow), with the same number of concurrent users.
The engine does more: it also reads what the private reply shows (totals, streak,
languages). Rounds alternate baseline and engine; each side's best round counts (the
machine is shared and noisy).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import aiosqlite
import asyncpg
from sqlalchemy import insert

from bench.databases import KINDS, Place, place
from bench.report import ROOT, Figure, failed, judged
from bot.bootstrap import capabilities
from bot.decks.loading import load_decks
from bot.decks.model import DeckLibrary
from bot.domain.actor import Actor
from bot.domain.clock import SystemClock
from bot.domain.leaderboard import answer_keys
from bot.domain.records import AnswerStatus
from bot.presentation.locales import LOCALES
from bot.service.services import Capabilities
from bot.storage.engine import store_engine
from bot.storage.sql import SqlStore, open_store
from bot.storage.tables import ALL_DECKS, posts

SERVER = "slack:TBENCH"
POOL = 15  # SQLAlchemy's default QueuePool: 5 connections + 10 overflow
USERS = (1, 10, 100)
SECTION = "1 answers"

Answer = Callable[[int, str, int, bool], Awaitable[None]]
"""(post_id, user_id, choice, correct): records one answer."""


def library() -> DeckLibrary:
    report = load_decks([ROOT / "questions"])
    assert report.ok, report.problems
    return DeckLibrary(report.decks)


SERVER_OF: dict[int, str] = {}
"""Each bench post's server: a question is open once per server and scores once per user and
season (fair play), so every pass over the deck is in a server of its own, and every answer
is a first meeting that scores, as a busy channel's answers are."""
_BATCHES = itertools.count()


async def make_posts(where: Place, decks: DeckLibrary, count: int) -> list[int]:
    """`count` open posts, in bulk."""
    deck = decks.first()
    assert deck is not None
    now = datetime.now(UTC)
    batch = next(_BATCHES)
    rows = []
    for i in range(count):
        question = deck.questions[i % len(deck.questions)]
        rows.append(
            {
                "server_id": f"{SERVER}-{batch}-{i // len(deck.questions)}",
                "channel_id": "CBENCH",
                "deck_id": deck.id,
                "question_id": question.id,
                "choice_order": ",".join(str(c) for c in range(len(question.choices))),
                "locale": deck.default_locale,
                "poster_id": "UPOSTER",
                "season": 1,
                "opened_at": now,
            }
        )
    engine = store_engine(where.url, schema=where.schema)
    try:
        async with engine.begin() as conn:
            result = await conn.execute(
                insert(posts).returning(posts.c.id, posts.c.server_id), rows
            )
            made = {r.id: r.server_id for r in result}
    finally:
        await engine.dispose()
    SERVER_OF.update(made)
    return sorted(made)


# The bare drivers: the store's transaction for one post answer, statement for statement.

_SQLITE_POST = "SELECT server_id, season, deck_id, question_id, closed_at FROM posts WHERE id = ?"
_SQLITE_MEETING = (
    "INSERT INTO first_meetings (server_id, season, user_id, deck_id, question_id, met_at)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING met_at"
)
_PG_MEETING = (
    "INSERT INTO first_meetings (server_id, season, user_id, deck_id, question_id, met_at)"
    " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING met_at"
)
_SQLITE_INSERT = (
    "INSERT INTO answers (server_id, season, user_id, deck_id, question_id, post_id, choice,"
    " correct, points, answered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (post_id, user_id) DO NOTHING RETURNING id"
)
_PG_POST = (
    "SELECT server_id, season, deck_id, question_id, closed_at FROM posts WHERE id = $1 FOR SHARE"
)
_PG_INSERT = (
    "INSERT INTO answers (server_id, season, user_id, deck_id, question_id, post_id, choice,"
    " correct, points, answered_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    " ON CONFLICT (post_id, user_id) DO NOTHING RETURNING id"
)


def _points(placeholders: list[str], greatest: str) -> str:
    """The six standings rows of a right answer in one statement, returning the new totals
    (the store's upsert)."""
    values = ", ".join(f"({', '.join(group)})" for group in _groups(placeholders, 7))
    return (
        "INSERT INTO standings (server_id, season, period, deck_key, user_id, points,"
        f" reached_at) VALUES {values} ON CONFLICT (server_id, season, period, deck_key,"
        " user_id) DO UPDATE SET points = standings.points + excluded.points,"
        f" reached_at = {greatest}(standings.reached_at, excluded.reached_at)"
        " RETURNING period, deck_key, points"
    )


def _counts(placeholders: list[str]) -> str:
    """The score count moves of a right answer in one statement, as the store writes them."""
    values = ", ".join(f"({', '.join(group)})" for group in _groups(placeholders, 6))
    return (
        "INSERT INTO score_counts (server_id, season, period, deck_key, points, users)"
        f" VALUES {values} ON CONFLICT (server_id, season, period, deck_key, points)"
        " DO UPDATE SET users = score_counts.users + excluded.users"
    )


def _groups(items: list[str], size: int) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


_SQLITE_POINTS = _points(["?"] * 42, "max")
_PG_POINTS = _points([f"${i}" for i in range(1, 43)], "greatest")


def _points_args(row: Any, user_id: str, at: Any) -> list[Any]:
    """The six standings rows a right answer adds a point to (week, month, all time; its
    deck and all decks), flattened for `_points`."""
    return [
        value
        for period in answer_keys(datetime.now(UTC), "UTC")
        for deck in (row[2], ALL_DECKS)
        for value in (row[0], row[1], period, deck, user_id, 1, at)
    ]


def _moves(row: Any, totals: list[Any]) -> tuple[int, list[Any]]:
    """The score count moves for the new totals: (rows, flattened values), in key order."""
    moves = sorted(
        [(row[0], row[1], period, deck, total, 1) for period, deck, total in totals]
        + [
            (row[0], row[1], period, deck, total - 1, -1)
            for period, deck, total in totals
            if total > 1
        ],
        key=lambda m: (m[2], m[3], m[4]),
    )
    return len(moves), [value for move in moves for value in move]


def _sqlite_time(at: datetime) -> str:
    """How SQLAlchemy stores a UTC datetime in SQLite."""
    return at.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


@asynccontextmanager
async def bare_sqlite(where: Place) -> AsyncIterator[Answer]:
    assert where.path is not None
    idle: asyncio.Queue[aiosqlite.Connection] = asyncio.Queue()
    opened: list[aiosqlite.Connection] = []
    slots = asyncio.Semaphore(POOL)

    async def connect() -> aiosqlite.Connection:
        conn = await aiosqlite.connect(where.path, isolation_level=None)
        for pragma in (
            "PRAGMA journal_mode=WAL",
            "PRAGMA synchronous=NORMAL",
            "PRAGMA busy_timeout=5000",
            "PRAGMA foreign_keys=ON",
        ):
            await conn.execute(pragma)
        opened.append(conn)
        return conn

    async def answer(post_id: int, user_id: str, choice: int, correct: bool) -> None:
        async with slots:
            conn = idle.get_nowait() if not idle.empty() else await connect()
            try:
                await conn.execute("BEGIN IMMEDIATE")
                try:
                    cur = await conn.execute(_SQLITE_POST, (post_id,))
                    row = await cur.fetchone()
                    assert row is not None and row[4] is None
                    at = _sqlite_time(datetime.now(UTC))
                    cur = await conn.execute(
                        _SQLITE_MEETING, (row[0], row[1], user_id, row[2], row[3], at)
                    )
                    assert await cur.fetchone() is not None  # a first meeting: it scores
                    cur = await conn.execute(
                        _SQLITE_INSERT,
                        (
                            row[0],
                            row[1],
                            user_id,
                            row[2],
                            row[3],
                            post_id,
                            choice,
                            correct,
                            1 if correct else 0,
                            _sqlite_time(datetime.now(UTC)),
                        ),
                    )
                    assert await cur.fetchone() is not None
                    if correct:
                        now = _sqlite_time(datetime.now(UTC))
                        cur = await conn.execute(_SQLITE_POINTS, _points_args(row, user_id, now))
                        n, moves = _moves(row, list(await cur.fetchall()))
                        await conn.execute(_counts(["?"] * (6 * n)), moves)
                    await conn.execute("COMMIT")
                except BaseException:
                    await conn.execute("ROLLBACK")
                    raise
            finally:
                idle.put_nowait(conn)

    try:
        yield answer
    finally:
        for conn in opened:
            await conn.close()


@asynccontextmanager
async def bare_postgres(where: Place) -> AsyncIterator[Answer]:
    pool = await asyncpg.create_pool(
        where.dsn, min_size=1, max_size=POOL, server_settings={"search_path": where.schema or ""}
    )
    assert pool is not None

    async def answer(post_id: int, user_id: str, choice: int, correct: bool) -> None:
        async with pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(_PG_POST, post_id)
            assert row is not None and row["closed_at"] is None
            met = await conn.fetchval(
                _PG_MEETING,
                row["server_id"],
                row["season"],
                user_id,
                row["deck_id"],
                row["question_id"],
                datetime.now(UTC),
            )
            assert met is not None  # a first meeting: it scores
            stored = await conn.fetchval(
                _PG_INSERT,
                row["server_id"],
                row["season"],
                user_id,
                row["deck_id"],
                row["question_id"],
                post_id,
                choice,
                correct,
                1 if correct else 0,
                datetime.now(UTC),
            )
            assert stored is not None
            if correct:
                now = datetime.now(UTC)
                totals = await conn.fetch(_PG_POINTS, *_points_args(row, user_id, now))
                n, moves = _moves(row, [tuple(t) for t in totals])
                await conn.execute(_counts([f"${i}" for i in range(1, 6 * n + 1)]), *moves)

    try:
        yield answer
    finally:
        await pool.close()


def engine_answer(quiz: Capabilities) -> Answer:
    async def answer(post_id: int, user_id: str, choice: int, correct: bool) -> None:
        result = await quiz.answering.answer(Actor(SERVER_OF[post_id], user_id), post_id, choice)
        assert result.status is AnswerStatus.NEW, result.status

    return answer


async def one_round(
    answer: Answer, post_ids: list[int], users: int, tag: str, seconds: float = 60.0
) -> float:
    """`users` people at once, each answering the posts in turn (until every post is
    answered, or `seconds` have passed); answers per second."""
    done = 0
    started = time.perf_counter()
    deadline = started + seconds

    async def person(u: int) -> None:
        nonlocal done
        for i, post_id in enumerate(post_ids):
            if time.perf_counter() > deadline:
                return
            choice = (u + i) % 2
            await answer(post_id, f"{tag}-{u}", choice, choice == 0)
            done += 1

    await asyncio.gather(*(person(u) for u in range(users)))
    return done / (time.perf_counter() - started)


async def measure(kind: str, quick: bool) -> list[Figure]:
    total = 1200 if quick else 4000
    rounds = 3 if quick else 5
    seconds = 0.4 if quick else 2.0
    decks = library()
    figures: list[Figure] = []
    async with place(kind, "answers") as where:
        store: SqlStore = await open_store(where.url, schema=where.schema)
        quiz = capabilities(store=store, decks=decks, clock=SystemClock(), ui_locales=LOCALES)
        bare = bare_sqlite(where) if kind == "sqlite" else bare_postgres(where)
        try:
            async with bare as bare_answer:
                sides: dict[str, Answer] = {"driver": bare_answer, "engine": engine_answer(quiz)}
                # Warm-up: statement caches, prepared statements, pool connections.
                for name, answer in sides.items():
                    warm = await make_posts(where, decks, 5)
                    await one_round(answer, warm, 20, f"warm-{name}")
                for users in USERS:
                    per_user = max(1, total // users)
                    best: dict[str, float] = {"driver": 0.0, "engine": 0.0}
                    for r in range(rounds):
                        order = list(sides) if r % 2 == 0 else list(reversed(sides))
                        for name in order:
                            post_ids = await make_posts(where, decks, per_user)
                            rate = await one_round(
                                sides[name], post_ids, users, f"{name}-{users}-{r}", seconds
                            )
                            best[name] = max(best[name], rate)
                    figure = Figure(
                        SECTION,
                        f"{kind}, {users} concurrent",
                        best["engine"],
                        "answers/s",
                        best["driver"],
                        "bare driver",
                        extra={
                            "answers_per_round_at_most": per_user * users,
                            "seconds_per_round_at_most": seconds,
                            "rounds": rounds,
                        },
                    )
                    judged(figure, ">= 50% of baseline", lambda v, r: r is not None and r >= 0.5)
                    figures.append(figure)
                if kind == "sqlite":
                    # What this machine can record: one person clicking alone is bound by
                    # one transaction's latency, not by throughput.
                    best = max(figures, key=lambda f: f.value or 0.0)
                    peak = Figure(
                        SECTION,
                        f"sqlite, most answers/s ({best.name.split(', ')[1]})",
                        best.value,
                        "answers/s",
                        best.baseline,
                        "bare driver",
                    )
                    figures.append(judged(peak, ">= 2,000/s", lambda v, r: v >= 2000))
        finally:
            await store.close()
    return figures


async def run(quick: bool) -> list[Figure]:
    figures: list[Figure] = []
    for kind in KINDS:
        try:
            figures += await measure(kind, quick)
        except Exception as error:  # one database down must not hide the other's figures
            figures.append(failed(SECTION, f"{kind}", repr(error)))
    return figures


def main(argv: Any = None) -> None:
    from bench.report import table

    print(table(asyncio.run(run(quick=True))))


if __name__ == "__main__":
    main()
