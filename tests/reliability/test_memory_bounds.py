"""What the bot keeps in memory per click or per post stays within its bound over a long run
(docs/operations.md, "What the bot keeps in memory"): each structure is sent a burst larger
than its bound and its size checked, and those kept for a time forget on an injected clock.
`python -m bench --only soak` measures the whole process over 100,000 clicks."""

from __future__ import annotations

import asyncio
import ctypes
import hashlib
import hmac
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.bootstrap import capabilities
from bot.discord import buttons as discord_buttons
from bot.discord import embeds
from bot.discord import fastpath as discord_fastpath
from bot.domain.actor import Actor
from bot.domain.answer import AnswerResult
from bot.domain.clock import ManualClock
from bot.domain.post import PostView, Reveal
from bot.service.admission import Admission
from bot.service.answering import KEEP_POSTS, Answering
from bot.service.live_posts import LivePosts
from bot.service.ports import QuizStore
from bot.slack import blocks as slack_blocks
from bot.slack.client import web_client
from bot.slack.dedup import SeenEvents, SeenSignatures
from bot.slack.identity import Admins
from bot.storage.sql import SqlStore, open_store
from bot.testing.fake_slack import BOT_TOKEN, FakeSlack
from tests import factories
from tests.databases import db, store

__all__ = ["db", "store"]

START = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)
POSTS = KEEP_POSTS + 44
"""More posts than any per-post structure keeps."""


def signature(n: int) -> str:
    """A signature shaped as Slack's: `v0=` and an HMAC-SHA256 in hex."""
    return "v0=" + hmac.new(b"secret", str(n).encode(), hashlib.sha256).hexdigest()


class Seconds:
    """A monotonic clock that moves when told to."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_admission_forgets_each_person_once_their_clicks_are_answered() -> None:
    admission = Admission()
    release = asyncio.Event()
    people = 2_000

    async def click(who: str) -> None:
        async with admission.admit(who):
            await release.wait()

    clicks = [asyncio.create_task(click(f"U{i % people}")) for i in range(2 * people)]
    await asyncio.sleep(0)
    assert len(admission._turns) == people  # one turn per person, however many clicks
    release.set()
    await asyncio.gather(*clicks)
    assert admission._turns == {}
    assert admission.pending == 0


async def test_signatures_are_kept_within_their_bound_and_their_five_minutes() -> None:
    clock = Seconds()
    seen = SeenSignatures(clock=clock)
    for n in range(25_000):  # a burst past the bound (20,000), within the five minutes
        assert seen.first_time(signature(n), int(clock.now))
    assert len(seen) == 20_000
    assert not seen.first_time(signature(24_999), int(clock.now))  # a replay, still caught
    assert seen.first_time(signature(0), int(clock.now))  # forgotten early: the oldest
    clock.now += 301  # every one's timestamp is now too old to pass the signature check
    assert seen.first_time(signature(-1), int(clock.now))
    assert len(seen) == 1


def test_event_ids_are_kept_within_their_bound_and_their_hour() -> None:
    clock = Seconds()
    seen = SeenEvents(clock=clock)
    for n in range(12_000):
        assert seen.first_time(f"Ev{n}")
    assert len(seen) == 10_000
    assert not seen.first_time("Ev11999")
    clock.now += 3601
    assert seen.first_time("Ev-1")
    assert len(seen) == 1


async def test_admin_answers_are_kept_within_their_bound_and_two_minutes() -> None:
    fake = FakeSlack()
    await fake.start()
    client = web_client(fake.api_url, BOT_TOKEN)
    try:
        clock = Seconds()
        admins = Admins((), size=50, clock=clock)
        for n in range(80):
            assert not await admins.is_admin(client, "slack:T1", f"U{n}")
        assert len(admins) == 50
        asked = len(fake.api("users.info"))
        assert not await admins.is_admin(client, "slack:T1", "U79")  # kept
        assert len(fake.api("users.info")) == asked
        clock.now += 121
        assert not await admins.is_admin(client, "slack:T1", "U0")
        assert len(admins) == 1  # the expired answers went as a new one came
    finally:
        await fake.stop()


async def posted_and_answered(quiz: Answering) -> list[AnswerResult]:
    """`POSTS` posts, one per server, each answered once."""
    results = []
    for n in range(POSTS):
        server = f"slack:T{n}"
        view = await quiz.post(Actor(server, "poster"), "C1", "demo", "1")
        results.append(await quiz.answer(Actor(server, f"U{n}"), view.post.id, 0))
    return results


def answering(store: QuizStore) -> Answering:
    made = capabilities(store, factories.library(), ManualClock(START), rng=random.Random(1))
    return made.answering


@pytest.fixture
def quiz(store: SqlStore) -> Answering:
    return answering(store)


async def test_per_post_replies_and_records_are_kept_within_their_bounds(quiz: Answering) -> None:
    results = await posted_and_answered(quiz)
    assert len(quiz._posts) == KEEP_POSTS
    for result in results:  # each post's private reply, as each platform builds it
        slack_blocks.answer_reply(result).payload()
        discord_fastpath.answer_body(result, discord_buttons._answer_parts)
    caches = {
        "slack reply buttons": (slack_blocks._reply_buttons, slack_blocks.POST_BLOCKS_KEPT),
        "slack text blocks": (slack_blocks._plain, slack_blocks.TEXT_BLOCKS_KEPT),
        "slack context blocks": (slack_blocks._context, slack_blocks.TEXT_BLOCKS_KEPT),
        "discord escaped texts": (embeds.esc, embeds.TEXTS_KEPT),
    }
    for name, (cache, bound) in caches.items():
        assert cache.cache_info().currsize <= bound, name
    assert slack_blocks._reply_buttons.cache_info().currsize == slack_blocks.POST_BLOCKS_KEPT
    assert len(discord_fastpath._FRAMES) <= discord_fastpath._MOST_FRAMES


async def test_a_persons_totals_line_is_built_for_them_and_not_kept(quiz: Answering) -> None:
    view = await quiz.post(Actor("slack:T1", "poster"), "C1", "demo", "1")
    slack_blocks._context.cache_clear()
    for n in range(40):  # forty people, forty different totals lines
        result = await quiz.answer(Actor("slack:T1", f"U{n}"), view.post.id, n % 3)
        slack_blocks.answer_reply(result)
    assert slack_blocks._context.cache_info().currsize <= 2  # "added to your review" at most


class Editor:
    """A platform's message editing, as the live posts see it: what was drawn."""

    def __init__(self) -> None:
        self.drawn: list[int] = []

    async def redraw(self, view: PostView) -> None:
        self.drawn.append(view.post.id)

    async def reveal(self, reveal: Reveal) -> str | None:
        return None


async def test_live_posts_keep_at_most_their_bound_and_forget_a_revealed_post(
    quiz: Answering,
) -> None:
    live = LivePosts(quiz, ManualClock(START), interval=1.0, keep=10)
    editor = Editor()
    views = [await quiz.post(Actor(f"slack:T{n}", "p"), "C1", "demo", "1") for n in range(30)]
    for view in views:
        await quiz.set_message(view.post.id, f"{view.post.id}.000100")
    for view in views:  # a burst on 30 posts: no redraw runs (holding a lock) meanwhile
        live.answered(view.post.id, editor)
    assert len(live._live) == 10
    await live.flush()
    last = views[-1].post.id
    assert await live.reveal(await quiz.close_by_system(last), editor) is None
    assert last not in live._live


def sqlite_memory() -> int:
    """Bytes SQLite's own allocations hold in this process (page caches, prepared statements)."""
    used = ctypes.CDLL("libsqlite3.so.0").sqlite3_memory_used
    used.restype = ctypes.c_int64
    return int(used())


async def test_bursts_of_every_size_prepare_few_sqlite_statements(tmp_path: Path) -> None:
    """The driver keeps 128 prepared statements a connection; a many-row statement of 90 rows
    holds tens of KB in SQLite. Bursts of 1 to 60 clicks, each committed together, once
    prepared a statement per size and table (some 20 MB over a long run); now a few sizes."""
    store = await open_store(f"sqlite:///{tmp_path / 'quiz.db'}")
    try:
        quiz = answering(store)
        before = sqlite_memory()
        for size in range(1, 61):
            server = f"slack:T{size}"
            view = await quiz.post(Actor(server, "poster"), "C1", "demo", "1")
            await asyncio.gather(
                *(quiz.answer(Actor(server, f"U{i}"), view.post.id, i % 3) for i in range(size))
            )
        assert sqlite_memory() - before < 4 * 2**20  # 2.6 MB now; 9.7 MB before
    finally:
        await store.close()
