"""Review of misses: a person's due questions, one at a time, with feedback.

A person's cards (`bot.domain.review`) are kept by the store as each answer is stored (and
the mastery board, `Boards`, from per-person counts kept alongside), so no call here replays
a person's or a server's history. The only write is a review answer, numbered so that one
shown review question counts once. Review never scores: its answers are kept apart from the
leaderboards' tables. (The board counts what a person mastered in any deck they answered;
`/quiz stats` counts the loaded decks' questions only.)
"""

from __future__ import annotations

from datetime import date

from bot.decks.model import Deck, DeckLibrary, Question
from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.review import (
    Card,
    ReviewDone,
    ReviewFeedback,
    ReviewStep,
    Source,
    Study,
    after_study,
    due_cards,
    local_day,
    next_due,
    review_order,
)
from bot.service.catalog import Catalog
from bot.service.ports import PostsAndAnswers, Reviews, Servers

Cards = dict[tuple[str, str], Card]


async def cards_today(
    servers: Servers, reviews: Reviews, clock: Clock, server_id: str, user_id: str
) -> tuple[Cards, date]:
    """The person's cards (one per question they met, kept as answers are stored: no
    replay of their history), and today in the server's time zone."""
    server = await servers.server(server_id)
    cards = await reviews.cards(server_id, user_id)
    today = local_day(clock.now(), server.timezone)
    return {(c.deck_id, c.question_id): c for c in cards}, today


def loaded(decks: DeckLibrary, card: Card) -> tuple[Deck, Question] | None:
    """The card's deck and question, while they are loaded."""
    deck = decks.get(card.deck_id)
    question = deck.question(card.question_id) if deck else None
    return None if deck is None or question is None else (deck, question)


class Review:
    def __init__(
        self,
        catalog: Catalog,
        clock: Clock,
        servers: Servers,
        posts: PostsAndAnswers,
        reviews: Reviews,
    ) -> None:
        self._catalog = catalog
        self.clock = clock
        self._servers = servers
        self._posts = posts
        self._reviews = reviews

    async def _cards(self, actor: Actor) -> tuple[Cards, date]:
        return await cards_today(
            self._servers, self._reviews, self.clock, actor.server_id, actor.user_id
        )

    def _question(self, card: Card) -> tuple[Deck, Question] | None:
        return loaded(self._catalog.decks, card)

    def _keeps_to(self, card: Card, tag: str | None) -> bool:
        found = self._question(card)
        return found is not None and (tag is None or tag in found[1].tags)

    async def start_review(self, actor: Actor, tag: str | None = None) -> ReviewStep | ReviewDone:
        """The first question due for the caller (of topic `tag`, if given), or when the
        next one falls due."""
        if tag is not None and tag not in self._catalog.topics():
            raise QuizError("unknown_topic", tag=tag)
        cards, today = await self._cards(actor)
        return await self._next(actor, cards, today, tag)

    async def _next(
        self, actor: Actor, cards: Cards, today: date, tag: str | None
    ) -> ReviewStep | ReviewDone:
        mine = [c for c in cards.values() if self._keeps_to(c, tag)]
        due = due_cards(mine, today)
        waiting = await self._waiting(actor, [(c.deck_id, c.question_id) for c in due])
        due = [c for c in due if (c.deck_id, c.question_id) not in waiting]
        if not due:
            locale = await self._catalog.ui_locale(actor)
            return ReviewDone(next_due(mine, today), today, locale, tag)
        card = due[0]
        found = self._question(card)
        assert found is not None  # _keeps_to kept only loaded questions
        deck, question = found
        locale = await self._catalog.reply_locale(actor, deck)
        order = review_order(actor.user_id, card, question, card.reviews)
        return ReviewStep(deck, question, card, order, len(due), locale, tag)

    async def review_answer(
        self,
        actor: Actor,
        key: str,
        number: int,
        shown_index: int,
        tag: str | None = None,
        *,
        deadline: float | None = None,
    ) -> ReviewFeedback:
        """Answers review question `key` (`Card.key`) shown as number `number`; committed
        when this returns (`deadline`: as for `answer`). A repeat click changes nothing."""
        cards, today = await self._cards(actor)
        card, deck, question, order = self._clicked(cards, actor, key, number, shown_index)
        # An earlier card of the question (a repeat click) would show its answer too: while
        # a channel is guessing it, every card of it waits.
        waiting = await self._waiting(actor, [(card.deck_id, card.question_id)])
        if waiting:
            raise QuizError("review_question_open", channel=next(iter(waiting.values())))
        right = order[shown_index] == question.answer
        stored = number == card.reviews and await self._reviews.record_review(
            actor.server_id,
            actor.user_id,
            card.deck_id,
            card.question_id,
            number,
            order[shown_index],
            right,
            self.clock.now(),
            deadline=deadline,
        )
        if stored:  # the answer just stored, applied as a reread would: no second read
            study = Study(
                actor.user_id,
                card.deck_id,
                card.question_id,
                right,
                self.clock.now(),
                Source.REVIEW,
            )
            cards = {**cards, (card.deck_id, card.question_id): after_study(card, study, today)}
        locale = await self._catalog.reply_locale(actor, deck)
        return ReviewFeedback(
            deck=deck,
            question=question,
            order=order,
            choice=order[shown_index] if stored else None,
            duplicate=not stored,
            card=cards[(card.deck_id, card.question_id)],
            today=today,
            locale=locale,
            other_locale=deck.other_locale(locale),
            next=await self._next(actor, cards, today, tag),
        )

    def _clicked(
        self, cards: Cards, actor: Actor, key: str, number: int, shown_index: int
    ) -> tuple[Card, Deck, Question, tuple[int, ...]]:
        """The card, deck, question and choice order a review click names; a click that no
        longer names them (a card gone, a later review, a choice out of range) is stale."""
        card = next((c for c in cards.values() if c.key == key), None)
        found = None if card is None else self._question(card)
        if card is None or found is None or number > card.reviews:
            raise QuizError("stale_click")
        deck, question = found
        order = review_order(actor.user_id, card, question, number)
        if not 0 <= shown_index < len(order):
            raise QuizError("stale_click")
        return card, deck, question, order

    async def _waiting(
        self, actor: Actor, questions: list[tuple[str, str]]
    ) -> dict[tuple[str, str], str]:
        """Those of `questions` open in a post the caller has not answered, to its channel:
        their review waits, since it would show the answer that channel is guessing. (One
        the caller answered in that post is theirs to review: they were shown its answer.
        Not in a game's post: a game's click is only locked in, its answer shown at the
        reveal, so its review waits for everyone.)"""
        if not questions:
            return {}
        open_in = await self._posts.open_questions(actor.server_id)
        waiting = {}
        for question in questions:
            channel = open_in.get(question)
            if channel is None:
                continue
            post = await self._posts.open_post_in_channel(actor.server_id, channel)
            answered = (
                post is not None
                and post.game_id is None
                and (post.deck_id, post.question_id) == question
                and await self._posts.post_answer_of(post.id, actor.user_id) is not None
            )
            if not answered:
                waiting[question] = channel
        return waiting
