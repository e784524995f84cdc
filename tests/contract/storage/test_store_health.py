"""The report's counts (`question_tallies`) made in the store, held to the Python rules over
every answer (`bot.domain.health.tallies` of `answer_log`) on SQLite, PostgreSQL and memory:
first tries, Kelley's groups with their ties, people keyed by server."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from bot.domain.health import health, health_of, tallies
from bot.service.ports import QuizStore
from tests import factories
from tests.contract.storage.test_store_contract import new_post
from tests.databases import any_store

__all__ = ["any_store"]

AT = datetime(2026, 6, 1, 9, tzinfo=UTC)
# Mixed case and non-ASCII: ties in accuracy are broken by id as Python orders strings.
PEOPLE = ["ana", "Bo", "bo", "Zed", "émile", "U10", "U9", "_x", "mia", "Ümit", "li", "Kai"]


async def _answers(store: QuizStore, seed: int) -> None:
    rng = random.Random(seed)
    at = AT
    for server in ("slack:T1", "slack:T2"):
        for round_ in range(4):
            for q in range(5):
                at += timedelta(minutes=1)
                post = await new_post(
                    store,
                    server_id=server,
                    deck_id="demo" if q < 4 else "other",
                    question_id=f"q{q}",
                    opened_at=at,
                    season=1,
                )
                for user in rng.sample(PEOPLE, rng.randint(3, len(PEOPLE))):
                    at += timedelta(seconds=1)
                    choice = rng.choice([0, 0, 1, 2, 3]) if round_ else rng.choice([0, 1])
                    await factories.click(store, post, user, choice, choice == 0, at)
                await store.close_post(post.id, at)


def _key(t: object) -> str:
    return repr(t)


async def test_the_store_counts_what_the_rules_count_from_every_answer(
    any_store: QuizStore,
) -> None:
    await _answers(any_store, seed=5)
    questions = {("demo", f"q{q}"): (4, 0) for q in range(4)}
    for server, deck in (("slack:T1", "demo"), ("slack:T2", None), (None, "demo"), (None, None)):
        log = await any_store.answer_log(server, deck)
        expected = tallies(log)
        got = await any_store.question_tallies(server, deck)
        assert sorted(got, key=_key) == sorted(expected, key=_key), (server, deck)
        assert health_of(got, questions) == health(log, questions)
    one = {
        (t.deck_id, t.question_id): t for t in await any_store.question_tallies("slack:T1", None)
    }
    assert set(one) == {("demo", f"q{q}") for q in range(4)} | {("other", "q4")}
    # first tries only: four posts of each question, counted once per person
    assert all(sum(t.picks.values()) <= len(PEOPLE) for t in one.values())
    assert any(t.top[0] and t.bottom[0] for t in one.values())
    assert await any_store.question_tallies("slack:nobody", None) == []
