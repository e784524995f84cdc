"""The rule every store keeps for an answer, "the first meeting scores; the card moves by
`after_study`" (`bot.domain.scoring.kept`), held against each store's own way of keeping it:
SQLite's batched click write, PostgreSQL's one-statement click (the rule said in SQL) and the
memory store.

Seeded random sequences of posts opened and closed, waves of clicks (people clicking at
once, so SQLite's group commit writes them in one transaction), run answers and review
answers, over days in a zone with a daylight-saving change, are played against a store and
against a model that decides each answer with `kept`. Every click's outcome (status, the
choice that stands, points), every card, every total and the mastery board must be the
model's. A failing sequence is named by its seed.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.domain.answer import points_for
from bot.domain.records import AnswerStatus, NewPost, PostAnswer, PostRecord, RunRecord
from bot.domain.review import Card, Source, Study, after_study, local_day
from bot.domain.scoring import kept
from bot.service.ports import QuizStore

ZONE = "America/New_York"
T0 = datetime(2026, 3, 6, 12, tzinfo=UTC)
"""Two days before New York's clocks go forward: due days cross the change."""
USERS = ("u1", "u2", "u3", "u4", "u5")
QUESTIONS = (("d1", "q1"), ("d1", "q2"), ("d1", "q3"), ("d2", "q1"), ("d2", "q4"))
SEQUENCES = 12
STEPS = 40


@dataclass
class Model:
    """What the rule says the store holds (one server, one season)."""

    server: str
    closed: set[int] = field(default_factory=set)
    met: set[tuple[str, str, str]] = field(default_factory=set)
    cards: dict[tuple[str, str, str], Card] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)
    answers: dict[tuple[int, str], int] = field(default_factory=dict)
    """(post, user) -> the choice that stands."""
    run_answers: set[tuple[str, str, str]] = field(default_factory=set)
    """(user, deck, question) answered in the user's run of the deck."""

    def card(self, user: str, deck: str, question: str) -> Card:
        return self.cards.get((user, deck, question)) or Card.new(deck, question)

    def keep(self, user: str, deck: str, question: str, correct: bool, at: datetime) -> int:
        """An answer stored, to a post or in a run: `kept` decides; its points."""
        study = Study(user, deck, question, correct, at, Source.PLAY)
        first = (user, deck, question) not in self.met
        now = kept(
            study, points_for(correct), first, self.card(user, deck, question), local_day(at, ZONE)
        )
        self.met.add((user, deck, question))
        self.cards[(user, deck, question)] = now.card
        self.points[user] = self.points.get(user, 0) + now.points
        return now.points

    def review(self, user: str, deck: str, question: str, correct: bool, at: datetime) -> None:
        study = Study(user, deck, question, correct, at, Source.REVIEW)
        card = self.card(user, deck, question)
        self.cards[(user, deck, question)] = after_study(card, study, local_day(at, ZONE))


async def play(store: QuizStore, seed: int) -> None:
    """Sequence `seed`, on a server of its own."""
    rng = random.Random(seed)
    model = Model(server=f"slack:T{seed}")
    server = model.server
    await store.set_server_timezone(server, ZONE)
    at = T0
    open_posts: dict[tuple[str, str], PostRecord] = {}
    closed_posts: list[PostRecord] = []
    runs: dict[tuple[str, str], RunRecord] = {}
    reviews = 0
    for step in range(STEPS):
        at += timedelta(minutes=rng.choice((1, 7, 90, 600, 1500)))
        kind = rng.random()
        where = f"seed {seed}, step {step}"
        if kind < 0.2 or not open_posts:
            free = [q for q in QUESTIONS if q not in open_posts]
            if free:
                deck, question = rng.choice(free)
                open_posts[(deck, question)] = await store.create_post(
                    NewPost(server, "C1", deck, question, (0, 1, 2, 3), "en", "U0", 1, at)
                )
        elif kind < 0.3:
            post = open_posts.pop(rng.choice(sorted(open_posts)))
            assert await store.close_post(post.id, at), where
            model.closed.add(post.id)
            closed_posts.append(post)
        elif kind < 0.75:
            await wave(store, model, rng, [*open_posts.values(), *closed_posts[-2:]], at, where)
        elif kind < 0.9:
            user = rng.choice(USERS)
            deck, question = rng.choice(QUESTIONS)
            run = runs.get((user, deck))
            if run is None:
                run = runs[(user, deck)] = await store.start_run(server, user, deck, 1, at)
            choice = rng.randrange(4)
            got = await store.record_run_answer(run, question, choice, choice == 0, at)
            if (user, deck, question) in model.run_answers:
                assert got.status is AnswerStatus.DUPLICATE, where
            else:
                model.run_answers.add((user, deck, question))
                points = model.keep(user, deck, question, choice == 0, at)
                assert (got.status, got.answer.points) == (AnswerStatus.NEW, points), where
        else:
            user = rng.choice(USERS)
            deck, question = rng.choice(QUESTIONS)
            reviews += 1
            correct = rng.random() < 0.6
            assert await store.record_review(
                server, user, deck, question, reviews, 0 if correct else 1, correct, at
            ), where
            model.review(user, deck, question, correct, at)
    await assert_kept(store, model, seed)


async def wave(
    store: QuizStore,
    model: Model,
    rng: random.Random,
    posts: list[PostRecord],
    at: datetime,
    where: str,
) -> None:
    """People clicking at once, one click each (as admission lets them), on posts open or
    closed; the model decides each click in turn (different people share no rule)."""
    clickers = rng.sample(USERS, rng.randint(1, len(USERS)))
    clicks = []
    for user in clickers:
        post = rng.choice(posts)
        choice = rng.randrange(4)
        clicks.append(PostAnswer(post, user, choice, choice == 0, points_for(choice == 0), at))
    got = await asyncio.gather(*(store.answer_post(click) for click in clicks))
    for click, outcome in zip(clicks, got, strict=True):
        post, user = click.post, click.user_id
        earlier = model.answers.get((post.id, user))
        if post.id in model.closed:
            expected = (AnswerStatus.CLOSED, earlier, 0)
        elif earlier is not None:
            expected = (AnswerStatus.DUPLICATE, earlier, 0)
        else:
            model.answers[(post.id, user)] = click.choice
            points = model.keep(user, post.deck_id, post.question_id, click.correct, click.at)
            expected = (AnswerStatus.NEW, click.choice, points)
        assert (outcome.status, outcome.choice, outcome.points) == expected, (where, click)


async def assert_kept(store: QuizStore, model: Model, seed: int) -> None:
    server = model.server
    for user in USERS:
        cards = {(c.deck_id, c.question_id): c for c in await store.cards(server, user)}
        expected = {(d, q): c for (u, d, q), c in model.cards.items() if u == user}
        assert cards == expected, (seed, user)
        totals = await store.totals(server, 1, user)
        assert totals.points == model.points.get(user, 0), (seed, user)
    mastered = {
        user: n
        for user in USERS
        if (n := sum(c.mastered for (u, _, _), c in model.cards.items() if u == user))
    }
    board = await store.mastery_board(server, 100)
    assert {row.user_id: row.points for row in board} == mastered, seed


async def test_every_store_keeps_answers_as_the_rule_says(any_store: QuizStore) -> None:
    for seed in range(SEQUENCES):
        await play(any_store, seed)


def test_the_first_meeting_scores_and_every_answer_moves_the_card() -> None:
    day = local_day(T0, ZONE)
    wrong = Study("u1", "d1", "q1", False, T0, Source.PLAY)
    right = Study("u1", "d1", "q1", True, T0, Source.PLAY)
    first = kept(wrong, points_for(False), True, Card.new("d1", "q1"), day)
    assert first.points == 0 and first.card.missed and first.card.due == day
    again = kept(right, points_for(True), False, first.card, day)
    assert again.points == 0, "a later meeting is practice"
    assert again.card == after_study(first.card, right, day)
    fresh = kept(right, points_for(True), True, Card.new("d1", "q2"), day)
    assert fresh.points == points_for(True) and fresh.card.mastered
