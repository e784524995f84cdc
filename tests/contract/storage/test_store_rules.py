"""Every store keeps the domain's rules (`bot.domain.totals`, `bot.domain.scoring`): weeks of
random daily posts, clicks, closes and runs, each read compared with the rule applied to
what the test itself did. The SQL store says them in SQL, so this holds the two forms together."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime, timedelta

from bot.domain.records import NewPost, StandingsQuery
from bot.domain.scoring import meeting_points, ranked
from bot.domain.totals import DailyPost, streak_of, totals_of
from bot.service.ports import QuizStore
from tests.factories import click

SERVER = "slack:T1"
USERS = ("U1", "U2", "U3")
T0 = datetime(2026, 2, 2, 9, tzinfo=UTC)


async def test_streaks_totals_and_standings_follow_the_rules(store: QuizStore) -> None:
    rng = random.Random(12)
    days: list[tuple[bool, bool, set[str]]] = []  # (scheduled, closed, who answered), oldest first
    answers: defaultdict[str, list[tuple[bool, int]]] = defaultdict(list)
    reached: dict[str, datetime] = {}
    for day in range(30):
        opened = T0 + timedelta(days=day)
        scheduled = rng.random() < 0.8
        post = await store.create_post(
            NewPost(
                SERVER,
                "C1",
                "deck",
                f"q{day}",
                (0, 1, 2),
                "en",
                "U0",
                1,
                opened,
                schedule_id=1 if scheduled else None,
            )
        )
        who: set[str] = set()
        for minute, user in enumerate(USERS, start=1):
            if rng.random() < 0.75:
                correct = rng.random() < 0.5
                at = opened + timedelta(minutes=minute)
                await click(store, post, user, 0 if correct else 1, correct, at)
                who.add(user)
                answers[user].append((correct, int(correct)))
                if correct:
                    reached[user] = at
        closed = rng.random() < 0.85
        if closed:
            await store.close_post(post.id, opened + timedelta(hours=12))
        days.append((scheduled, closed, who))
        for user in USERS:
            daily = [DailyPost(not c, user in w) for s, c, w in reversed(days) if s]
            assert await store.streak(SERVER, user) == streak_of(daily), (day, user)

    for user in USERS:
        assert await store.totals(SERVER, 1, user) == totals_of(answers[user])
    expected = ranked(
        (user, sum(points for _, points in answers[user]), reached[user]) for user in reached
    )
    assert list(await store.standings(StandingsQuery(SERVER, 1), 10)) == expected


async def test_meeting_points_follow_the_first_meeting_rule(store: QuizStore) -> None:
    rng = random.Random(13)
    met: set[tuple[str, str]] = set()
    answers: list[tuple[bool, int]] = []
    for n in range(8):
        deck = rng.choice(("deck-a", "deck-b"))
        run = await store.start_run(SERVER, "U1", deck, 1, T0 + timedelta(hours=n))
        for question in rng.sample(("q1", "q2", "q3", "q4"), 3):
            correct = rng.random() < 0.6
            outcome = await store.record_run_answer(run, question, 0, correct, run.started_at)
            expected = meeting_points(correct, (deck, question) not in met)
            met.add((deck, question))
            assert outcome.answer.points == expected, (n, deck, question)
            answers.append((correct, expected))
        await store.finish_run(run.id, run.started_at + timedelta(minutes=5))
    assert await store.totals(SERVER, 1, "U1") == totals_of(answers)
