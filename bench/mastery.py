"""7. The mastery board (`/quiz leaderboard mastery`, `Boards.mastery_board`: the top ten plus
the caller) at 10^5 answers (quick), 10^6 (full) and 10^7 (full with `--mastery-1e7`,
SQLite), and the longest event-loop stall while it is built.

The fixture is written through the store's own write path, so the counts the board reads
are the ones clicks keep: posts of a 500-question deck, each answered by up to 1,000 of U
people (U = n / 20, at most 100,000; right 40% to 90% of the time, per person), through
`SqlStore.answer_post` as concurrent clicks that the group commit batches (64 a
transaction), and every fifth miss answered later in review (`record_review`), right 70% of
the time. Questions come round again, so counts go up and down as on a real server.

The stall is measured by a ticker task (wakes every millisecond, records how late) running
beside the board's repetitions. For the record, at 10^5 the replay the board did before
(every answer of the server read and folded in Python) is timed once with the same ticker.
Targets: the board <= 10 ms at 10^6, at most 2x its 10^5 time at 10^7; stall <= 20 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import text

from bench.databases import KINDS, Place, place
from bench.report import Figure, failed, judged
from bot.bootstrap import capabilities
from bot.decks.model import DeckLibrary
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.records import NewPost, PostAnswer
from bot.domain.review import cards_of
from bot.presentation.locales import LOCALES
from bot.storage.engine import store_engine
from bot.storage.sql import SqlStore, open_store

SECTION = "7 mastery board"
SERVER = "slack:TMASTERY"
DECK = "mastery-bench"
QUESTIONS = 500
START = datetime(2024, 1, 1, 9, tzinfo=UTC)
IN_FLIGHT = 256
"""Clicks awaited together: the group commit takes them 64 a transaction."""


def shape(n: int) -> tuple[int, int]:
    """(answers per post, people) for about `n` answers."""
    people = max(100, min(100_000, n // 20))
    return min(1000, people), people


async def _gather(calls: list[Callable[[], Awaitable[Any]]]) -> None:
    for start in range(0, len(calls), IN_FLIGHT):
        await asyncio.gather(*(call() for call in calls[start : start + IN_FLIGHT]))


async def write(store: SqlStore, n: int, seed: int = 22) -> int:
    """Writes about `n` answers (posts and review) through the store; how many it wrote."""
    rng = random.Random(seed)
    per_post, people = shape(n)
    skill = [0.4 + 0.5 * rng.random() for _ in range(people)]
    reviews: defaultdict[tuple[int, int], int] = defaultdict(int)
    missed: list[tuple[int, int]] = []
    written = 0
    at = START
    post_no = 0
    while written < n:
        question = post_no % QUESTIONS
        at += timedelta(hours=6)
        post = await store.create_post(
            NewPost(
                server_id=SERVER,
                channel_id=f"C{post_no % 7}",
                deck_id=DECK,
                question_id=f"q{question}",
                order=(0, 1, 2, 3),
                locale="en",
                poster_id="UPOSTER",
                season=1,
                opened_at=at,
                schedule_id=None,
            )
        )
        clicks: list[Callable[[], Awaitable[Any]]] = []
        for k, person in enumerate(rng.sample(range(people), min(per_post, n - written))):
            right = rng.random() < skill[person]
            clicked = at + timedelta(seconds=k)
            answer = PostAnswer(
                post, f"U{person:06}", 0 if right else 1, right, int(right), clicked
            )
            clicks.append(functools.partial(store.answer_post, answer))
            if not right and rng.random() < 0.2:
                missed.append((person, question))
        await _gather(clicks)
        written += len(clicks)
        await store.close_post(post.id, at + timedelta(hours=1))
        due, missed = missed[: per_post // 10], missed[per_post // 10 :]
        later = at + timedelta(hours=2)
        calls: list[Callable[[], Awaitable[Any]]] = []
        for person, q in dict.fromkeys(due):
            number = reviews[(person, q)]
            reviews[(person, q)] += 1
            right = rng.random() < 0.7
            user = f"U{person:06}"
            calls.append(
                functools.partial(
                    store.record_review, SERVER, user, DECK, f"q{q}", number, 0, right, later
                )
            )
        await _gather(calls)
        written += len(calls)
        post_no += 1
    return written


class Ticker:
    """Wakes every millisecond beside the work being measured; the worst lateness is the
    longest the event loop was kept from running anything else."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._since = time.perf_counter()
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            self._since = time.perf_counter()
            await asyncio.sleep(0.001)
            self.worst = max(self.worst, time.perf_counter() - self._since - 0.001)

    async def __aenter__(self) -> Ticker:
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(0.005)  # let it start
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self._task is not None
        # The work just measured may still be holding up the tick due: count it too.
        self.worst = max(self.worst, time.perf_counter() - self._since - 0.001)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


async def middle_person(where: Place) -> str:
    """The person in the middle of the board (one query, outside the clock)."""
    engine = store_engine(where.url, schema=where.schema)
    try:
        async with engine.connect() as conn:
            count = (
                await conn.execute(
                    text("SELECT count(*) FROM mastery WHERE server_id = :s AND mastered > 0"),
                    {"s": SERVER},
                )
            ).scalar_one()
            user = (
                await conn.execute(
                    text(
                        "SELECT user_id FROM mastery WHERE server_id = :s AND mastered > 0"
                        " ORDER BY mastered DESC, reached_at, user_id LIMIT 1 OFFSET :o"
                    ),
                    {"s": SERVER, "o": count // 2},
                )
            ).scalar_one()
            return str(user)
    finally:
        await engine.dispose()


async def time_board(
    store: SqlStore, caller: str, quick: bool
) -> tuple[float, float, dict[str, Any]]:
    """Median ms of the board, the worst stall (ms) while it was built, what it showed."""
    quiz = capabilities(
        store=store,
        decks=DeckLibrary([]),
        clock=ManualClock(START + timedelta(days=3650)),
        ui_locales=LOCALES,
    )
    actor = Actor(SERVER, caller)
    board = await quiz.boards.mastery_board(actor)  # warm-up: caches, plans
    times = []
    async with Ticker() as ticker:
        budget = time.perf_counter() + (2.0 if quick else 5.0)
        for _ in range(30 if quick else 60):
            started = time.perf_counter()
            board = await quiz.boards.mastery_board(actor)
            times.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.002)  # as requests arrive: the ticker runs between them
            if time.perf_counter() > budget and len(times) >= 5:
                break
    shown = {
        "top": [(r.user_id, r.points, r.rank) for r in board.rows[:3]],
        "me": None if board.me is None else (board.me.points, board.me.rank),
        "repeats": len(times),
    }
    return statistics.median(times), ticker.worst * 1000, shown


async def time_replay(store: SqlStore) -> tuple[float, float]:
    """The board as it was built before (every answer read, folded in Python): ms, stall."""
    async with Ticker() as ticker:
        started = time.perf_counter()
        zone = (await store.server(SERVER)).timezone
        people: defaultdict[str, list[Any]] = defaultdict(list)
        for s in await store.studies(SERVER):
            people[s.user_id].append(s)
        counts = {
            u: sum(c.mastered for c in cards_of(ss, zone).values()) for u, ss in people.items()
        }
        ranked = sorted(((n, u) for u, n in counts.items() if n > 0), key=lambda p: (-p[0], p[1]))
        assert ranked
        spent = (time.perf_counter() - started) * 1000
    return spent, ticker.worst * 1000


async def measure(kind: str, sizes: list[int], quick: bool) -> list[Figure]:
    figures: list[Figure] = []
    base: float | None = None
    for n in sizes:
        async with place(kind, f"mastery{n}") as where:
            store = await open_store(where.url, schema=where.schema)
            try:
                started = time.perf_counter()
                written = await write(store, n)
                load = time.perf_counter() - started
                caller = await middle_person(where)
                ms, stall, shown = await time_board(store, caller, quick)
                replay = await time_replay(store) if n == 10**5 else None
            finally:
                await store.close()
        label = f"{kind}, {n:.0e} answers".replace("+0", "")
        extra = {
            "answers": written,
            "people": shape(n)[1],
            "write_seconds": round(load, 1),
            "written_per_second": round(written / load),
            **shown,
        }
        board = Figure(SECTION, f"{label}, board", ms, "ms", base, "same at 1e5", extra=extra)
        if n == 10**5:
            base = ms
        if n == 10**6:
            judged(board, "<= 10 ms", lambda v, r: v <= 10)
        elif n == 10**7:
            judged(board, "<= 2x the 1e5 time", lambda v, r: r is not None and r <= 2)
        figures.append(board)
        figures.append(
            judged(
                Figure(SECTION, f"{label}, longest event-loop stall", stall, "ms", None, ""),
                "<= 20 ms",
                lambda v, r: v <= 20,
            )
        )
        if replay is not None:
            figures.append(
                Figure(
                    SECTION,
                    f"{label}, the replay the board did before (for the record)",
                    replay[0],
                    "ms",
                    None,
                    "",
                    note=f"event loop stalled {replay[1]:.0f} ms",
                )
            )
    return figures


def sizes_for(kind: str, quick: bool, with_1e7: bool = False) -> list[int]:
    """Quick: 10^5 on SQLite only (written click by click, a minute or two; the quick run is
    the one users start on a fresh clone). Full: 10^5 and 10^6 on each database, and 10^7 on
    SQLite with `--mastery-1e7` (hours of clicks)."""
    if quick:
        return [10**5] if kind == "sqlite" else []
    sizes = [10**5, 10**6]
    if with_1e7 and kind == "sqlite":
        sizes.append(10**7)
    return sizes


async def run(quick: bool, with_1e7: bool = False, kinds: tuple[str, ...] = KINDS) -> list[Figure]:
    figures: list[Figure] = []
    for kind in kinds:
        try:
            figures += await measure(kind, sizes_for(kind, quick, with_1e7), quick)
        except Exception as error:
            figures.append(failed(SECTION, kind, repr(error)))
    return figures
