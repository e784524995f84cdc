"""The mastery board and review cards kept as answers are stored, held to one contract on
SQLite, PostgreSQL and memory: the same answers give the same board, and the board and cards
are exactly what replaying every answer (`bot.domain.review.cards_of`) gives; ties, the
caller's row, seasons, hidden and forgotten players; and the migration's backfill."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete
from sqlalchemy.engine import Connection

from bot.bootstrap import capabilities
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.records import Standing
from bot.domain.review import cards_of
from bot.presentation.locales import text
from bot.presentation.review_messages import mastery_board_message
from bot.service.ports import QuizStore
from bot.storage.mastery import keep_played
from bot.storage.memory import MemoryStore
from bot.storage.scores import Scored, add_points
from bot.storage.sql import SqlStore
from bot.storage.tables import cards, mastery, mastery_counts
from tests import factories
from tests.storage.databases import Database, any_store
from tests.storage.test_store_contract import new_post
from tests.storage.test_store_migrations import statements
from tests.storage.test_store_standings import _migrate, _on

__all__ = ["any_store"]

S = "slack:T1"
DECK = "demo"
T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)


class History:
    """Answers to posts, in runs and in review, written through the store's own methods,
    each a minute (or a day) after the last."""

    def __init__(self, store: QuizStore, server: str = S) -> None:
        self.store, self.server, self.at = store, server, T0
        self.season = 1

    def tick(self, days: int = 0) -> datetime:
        self.at += timedelta(days=days, minutes=1)
        return self.at

    async def post(self, question: str, answers: dict[str, bool]) -> None:
        post = await new_post(
            self.store,
            server_id=self.server,
            deck_id=DECK,
            question_id=question,
            opened_at=self.tick(),
            season=self.season,
        )
        for user, right in answers.items():
            await factories.click(self.store, post, user, 0 if right else 1, right, self.tick())
        await self.store.close_post(post.id, self.tick())

    async def run(self, user: str, answers: dict[str, bool]) -> None:
        run = await self.store.start_run(self.server, user, DECK, self.season, self.tick())
        for question, right in answers.items():
            await self.store.record_run_answer(run, question, 0 if right else 1, right, self.tick())
        await self.store.finish_run(run.id, self.tick())

    async def review(self, user: str, question: str, right: bool, days: int = 1) -> None:
        mine = await self.store.cards(self.server, user)
        number = next((c.reviews for c in mine if c.question_id == question), 0)
        await self.store.record_review(
            self.server, user, DECK, question, number, 0 if right else 1, right, self.tick(days)
        )

    async def new_season(self) -> None:
        started = await self.store.new_season(self.server, self.tick(), self.season)
        assert started == self.season + 1
        self.season += 1


async def random_history(store: QuizStore, seed: int, server: str = S) -> History:
    rng = random.Random(seed)
    history = History(store, server)
    users = [f"u{i}" for i in range(9)]
    questions = [f"q{i}" for i in range(7)]
    for step in range(60):
        kind = rng.random()
        if step == 30:
            await history.new_season()
        if kind < 0.35:
            who = rng.sample(users, rng.randint(1, 5))
            await history.post(rng.choice(questions), {u: rng.random() < 0.6 for u in who})
        elif kind < 0.55:
            asked = rng.sample(questions, rng.randint(1, 4))
            await history.run(rng.choice(users), {q: rng.random() < 0.6 for q in asked})
        else:
            await history.review(
                rng.choice(users), rng.choice(questions), rng.random() < 0.7, rng.randint(0, 3)
            )
    return history


async def replayed_board(store: QuizStore, server: str = S) -> dict[str, int]:
    """Questions mastered per person, worked out from every answer as the board was before
    counts were kept (`cards_of` over each person's answers)."""
    zone = (await store.server(server)).timezone
    people: defaultdict[str, list[Any]] = defaultdict(list)
    for study in await store.studies(server):
        people[study.user_id].append(study)
    counts = {
        user: sum(card.mastered for card in cards_of(studies, zone).values())
        for user, studies in people.items()
    }
    return {user: n for user, n in counts.items() if n > 0}


async def assert_kept_as_replayed(store: QuizStore, server: str = S) -> list[Standing]:
    """The kept cards and board are the replay's; the whole board, ranked."""
    zone = (await store.server(server)).timezone
    every = await store.studies(server)
    for user in {s.user_id for s in every}:
        mine = [s for s in every if s.user_id == user]
        kept = {(c.deck_id, c.question_id): c for c in await store.cards(server, user)}
        assert kept == cards_of(mine, zone), user
    expected = await replayed_board(store, server)
    board = list(await store.mastery_board(server, 1000))
    assert {r.user_id: r.points for r in board} == expected
    for row in board:
        assert row.rank == 1 + sum(1 for n in expected.values() if n > row.points)
        assert await store.mastery_standing(server, row.user_id) == row
    assert [r.points for r in board] == sorted((r.points for r in board), reverse=True)
    return board


async def test_the_board_and_cards_are_what_replaying_every_answer_gives(
    any_store: QuizStore,
) -> None:
    await random_history(any_store, seed=1)
    board = await assert_kept_as_replayed(any_store)
    assert len(board) >= 4 and len({r.points for r in board}) >= 2
    top = await any_store.mastery_board(S, 3)
    assert list(top) == board[:3]
    assert await any_store.mastery_board("slack:elsewhere", 10) == []


async def test_cards_and_board_are_kept_when_a_burst_shares_transactions(
    any_store: QuizStore,
) -> None:
    """Clicks on several posts at once and reviews beside them (each person once a burst),
    so the group commit puts many people's answers in one transaction: on SQLite their
    cards are moved at its end, and a review in it moves its own card first."""
    rng = random.Random(3)
    history = History(any_store)
    users = [f"u{i}" for i in range(12)]
    questions = [f"q{i}" for i in range(5)]
    for _ in range(12):
        people = rng.sample(users, 9)
        posts = []
        for question in rng.sample(questions, 2):
            posts.append(
                await new_post(
                    any_store,
                    server_id=S,
                    deck_id=DECK,
                    question_id=question,
                    opened_at=history.tick(),
                    season=1,
                )
            )
        writes = []
        for i, user in enumerate(people[:8]):
            right = rng.random() < 0.7
            post = posts[i % 2]
            writes.append(
                factories.click(any_store, post, user, 0 if right else 1, right, history.tick())
            )
        reviewer = people[8]
        mine = await any_store.cards(S, reviewer)
        if mine:
            card = rng.choice(list(mine))
            writes.append(
                any_store.record_review(
                    S, reviewer, DECK, card.question_id, card.reviews, 0, True, history.tick(1)
                )
            )
        await asyncio.gather(*writes)
        for post in posts:
            await any_store.close_post(post.id, history.tick())
    board = await assert_kept_as_replayed(any_store)
    assert len(board) >= 4


async def test_same_answers_give_the_same_board_on_every_store(
    any_store: QuizStore,
) -> None:
    """Pinned figures of one seeded history, which SQLite, PostgreSQL and memory must each
    give, reached-at times and all."""
    await random_history(any_store, seed=7)
    again = await random_history(MemoryStore(), seed=7)
    board = await any_store.mastery_board(S, 10)
    assert len(board) >= 4
    assert board == await again.store.mastery_board(S, 10)
    for user in (f"u{i}" for i in range(9)):
        assert await any_store.mastery_standing(S, user) == await again.store.mastery_standing(
            S, user
        )


async def test_ties_share_a_rank_in_order_reached_and_the_caller_row_below_the_ten(
    any_store: QuizStore,
) -> None:
    history = History(any_store)
    # Twelve people: p00 masters 6 questions ... each later one fewer, two at each count.
    for i in range(12):
        await history.run(f"p{i:02}", {f"q{k}": True for k in range(6 - i // 2)})
    board = await any_store.mastery_board(S, 10)
    assert [(r.user_id, r.points, r.rank) for r in board] == [
        ("p00", 6, 1),
        ("p01", 6, 1),
        ("p02", 5, 3),
        ("p03", 5, 3),
        ("p04", 4, 5),
        ("p05", 4, 5),
        ("p06", 3, 7),
        ("p07", 3, 7),
        ("p08", 2, 9),
        ("p09", 2, 9),
    ]
    last = await any_store.mastery_standing(S, "p11")
    assert last is not None and (last.points, last.rank) == (1, 11)
    assert await any_store.mastery_standing(S, "nobody") is None
    # A miss takes a mastered question away: p00 joins p02 and p03's tie, reached last.
    await history.post("q0", {"p00": False})
    board = await any_store.mastery_board(S, 4)
    assert [(r.user_id, r.points, r.rank) for r in board] == [
        ("p01", 6, 1),
        ("p02", 5, 2),
        ("p03", 5, 2),
        ("p00", 5, 2),
    ]
    # ... and a right answer in review gives it back; p00 reached 6 after p01.
    await history.review("p00", "q0", right=True)
    board = await any_store.mastery_board(S, 3)
    assert [(r.user_id, r.points, r.rank) for r in board] == [
        ("p01", 6, 1),
        ("p00", 6, 1),
        ("p02", 5, 3),
    ]
    await assert_kept_as_replayed(any_store)


async def test_a_season_reset_keeps_the_board_which_counts_every_season(
    any_store: QuizStore,
) -> None:
    history = History(any_store)
    await history.run("ana", {"q1": True, "q2": True})
    await history.run("bo", {"q1": True})
    before = list(await any_store.mastery_board(S, 10))
    await history.new_season()
    assert list(await any_store.mastery_board(S, 10)) == before
    await history.post("q3", {"bo": True, "ana": False})
    await history.post("q4", {"bo": True})
    board = await any_store.mastery_board(S, 10)
    assert [(r.user_id, r.points, r.rank) for r in board] == [("bo", 3, 1), ("ana", 2, 2)]


async def test_hidden_players_are_hidden_and_forgotten_ones_gone(any_store: QuizStore) -> None:
    history = History(any_store)
    await history.run("ana", {"q1": True, "q2": True, "q3": True})
    await history.run("bo", {"q1": True, "q2": True})
    await history.run("cy", {"q1": True})
    await any_store.set_hidden(S, "ana", True)
    quiz = capabilities(
        store=any_store,
        decks=factories.library(factories.deck(DECK, n=3)),
        clock=ManualClock(history.tick()),
        rng=random.Random(1),
    )

    def mention(user: str) -> str:
        return f"<@{user}>"

    seen_by_cy = await quiz.boards.mastery_board(Actor(S, "cy"))
    _, lines, you = mastery_board_message(seen_by_cy, mention)
    hidden = text(seen_by_cy.locale, "leaderboard.hidden")
    assert hidden in lines[0] and "<@ana>" not in " ".join(lines)
    assert "<@bo>" in lines[1] and "<@cy>" in lines[2] and you is None
    assert [(r.points, r.rank) for r in seen_by_cy.rows] == [(3, 1), (2, 2), (1, 3)]
    seen_by_ana = await quiz.boards.mastery_board(Actor(S, "ana"))
    assert "<@ana>" in mastery_board_message(seen_by_ana, mention)[1][0]

    assert await any_store.forget_user(S, "ana") > 0
    board = await any_store.mastery_board(S, 10)
    assert [(r.user_id, r.points, r.rank) for r in board] == [("bo", 2, 1), ("cy", 1, 2)]
    assert await any_store.mastery_standing(S, "ana") is None
    assert await any_store.cards(S, "ana") == []
    cy = await any_store.mastery_standing(S, "cy")
    assert cy is not None and cy.rank == 2  # the counts above cy lost ana


async def test_the_migration_backfills_cards_and_counts_from_stored_answers(
    db: Database,
) -> None:
    store = await db.open()
    await store.set_server_timezone("slack:T2", "Asia/Dhaka")
    await random_history(store, seed=3)
    await random_history(store, seed=4, server="slack:T2")
    kept = {s: list(await store.mastery_board(s, 1000)) for s in (S, "slack:T2")}
    kept_cards = {u: await store.cards(S, u) for u in (f"u{i}" for i in range(9))}
    await store.close()
    db.stores.remove(store)
    await _on(db, lambda conn: _migrate(conn, "0008", down=True))
    await _on(db, lambda conn: _migrate(conn, "head", down=False))
    store = await db.open()
    for server, board in kept.items():
        assert len(board) >= 3
        assert list(await store.mastery_board(server, 1000)) == board
        assert await assert_kept_as_replayed(store, server) == board
    for user, mine in kept_cards.items():
        assert sorted(await store.cards(S, user), key=str) == sorted(mine, key=str)
    # and the rows are really the backfill's, not left over
    for table in (mastery, mastery_counts, cards):
        await _on(db, lambda conn, table=table: conn.execute(delete(table)))
    assert list(await store.mastery_board(S, 10)) == []
    assert await store.cards(S, "u1") == []


async def test_shared_counts_are_written_in_one_order_whatever_came_first(
    sql_store: SqlStore,
) -> None:
    """Score counts and mastery counts are rows every transaction may write; flushed by kind
    (not by first use), two transactions never lock them in opposite orders (a deadlock on
    PostgreSQL)."""
    at = T0

    def work(mastery_first: bool) -> Callable[[Connection], None]:
        def run(conn: Connection) -> None:
            user = f"w{mastery_first}"
            steps = [
                lambda: keep_played(conn, S, user, DECK, "q1", True, at, "UTC"),
                lambda: add_points(conn, Scored(S, 1, DECK, user, 1, at), "UTC"),
            ]
            for step in steps if mastery_first else reversed(steps):
                step()

        return run

    for mastery_first in (True, False):
        with statements() as sent:
            await sql_store._tx.write(work(mastery_first))
        counts = [s for s in sent if "_counts" in s and s.lstrip().upper().startswith("INSERT")]
        assert len(counts) == 2 and "mastery_counts" in counts[0], counts
    board = await sql_store.mastery_board(S, 10)
    assert [(r.user_id, r.points, r.rank) for r in board] == [("wFalse", 1, 1), ("wTrue", 1, 1)]
