"""Live games: `/quiz game` starts one, and the game loop plays it in its channel.

The loop is driven by the injected clock and the deadlines stored with each game, like the
scheduler: every `TICK` it asks the store which games have a step due, claims each step
(compare-and-set; of several processes one wins) and takes it: the announcement, a question
(an ordinary post of the game: its clicks go through admission and the same write as any
post's), the reveal at the deadline with the standings, the results. A process that dies
mid-step leaves a claim that lapses after `LEASE`, and whoever ticks next takes the step
again; a restart therefore picks every running game up where it was, revealing a question
whose time ran out meanwhile. A reveal's counts are the stored answers.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from bot.decks.model import Deck
from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.game import (
    LEASE,
    PAUSE,
    START_DELAY,
    GameNews,
    GameRecord,
    GameState,
    GameStep,
    NewGame,
    NewsKind,
    Phase,
    Placing,
    game_settings,
    placings,
)
from bot.domain.post import PostView
from bot.domain.records import PostRecord
from bot.service.delivery import Delivery, DeliveryError, show_reveal
from bot.service.ports import QuestionOpen, QuizStore
from bot.service.publishing import Publishing
from bot.service.quiz import Quiz

log = logging.getLogger("quizbot.games")

TICK = 0.25
"""Seconds between looks for due steps: a reveal comes within a second of its deadline."""


class Games:
    def __init__(
        self,
        store: QuizStore,
        quiz: Quiz,
        clock: Clock,
        deliveries: Mapping[str, Delivery],
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.quiz = quiz
        self.clock = clock
        self.deliveries = deliveries
        """Shared with the scheduler, which registers each platform's as it connects."""
        self._publishing = Publishing(quiz)
        self._rng = rng or random.Random()

    # Commands -------------------------------------------------------------

    async def start(
        self,
        actor: Actor,
        channel_id: str,
        deck_id: str | None = None,
        questions: object = None,
        seconds: object = None,
    ) -> GameRecord:
        """A game in this channel, announced by the loop within a tick; refused while the
        channel has one."""
        rounds, per_question = game_settings(questions, seconds)
        deck = self.quiz.deck(deck_id)
        server = await self.store.server(actor.server_id)
        game = await self.store.create_game(
            NewGame(
                server_id=actor.server_id,
                channel_id=channel_id,
                deck_id=deck.id,
                starter_id=actor.user_id,
                locale=deck.locale_or_default(server.locale),
                season=server.season,
                rounds=min(rounds, len(deck)),
                seconds=per_question,
                started_at=self.clock.now(),
            )
        )
        if game is None:
            raise QuizError("game_running")
        return game

    async def stop(self, actor: Actor, channel_id: str) -> GameRecord:
        """Asks the loop to end this channel's game: its open question is revealed (its
        clicks count) and the results are posted. Its starter or an admin may."""
        game = await self.store.running_game(actor.server_id, channel_id)
        if game is None:
            raise QuizError("no_game")
        if game.starter_id != actor.user_id and not actor.is_admin:
            raise QuizError("not_your_game")
        await self.store.stop_game(game.id, actor.user_id)
        return game

    # The loop -------------------------------------------------------------

    async def run(self) -> None:
        """Takes due steps every `TICK` seconds until cancelled. A tick never raises."""
        log.info("game loop started")
        while True:
            await self.tick()
            await self.clock.sleep(TICK)

    async def tick(self) -> list[int]:
        """Takes every step that is due now; the ids of the games it moved."""
        now = self.clock.now()
        try:
            due = await self.store.due_games(now)
        except Exception:
            log.exception("games: could not read the games due")
            return []
        moved = await asyncio.gather(*(self._take(game, now) for game in due))
        return [game.id for game, took in zip(due, moved, strict=True) if took]

    async def _take(self, game: GameRecord, now: datetime) -> bool:
        delivery = self.deliveries.get(game.server_id.partition(":")[0])
        if delivery is None:
            return False  # another process serves this platform
        if not await self.store.claim_game(game.id, game.step, now + LEASE):
            return False
        try:
            await self._step(game, delivery, now)
        except DeliveryError as error:  # the bot may not post there: nobody can play it
            log.warning("game %s ends: the channel refused (%s)", game.id, error.reason)
            await self._end_quietly(game, now)
        except Exception:  # taken again once the claim lapses
            log.exception("game %s: step %s (%s)", game.id, game.step, game.phase.value)
        return True

    async def _end_quietly(self, game: GameRecord, now: datetime) -> None:
        try:
            board = placings(await self.store.game_scores(game.id))
            await self.store.finish_game(game.id, GameState.STOPPED, now, board)
        except Exception:
            log.exception("game %s: could not end it", game.id)

    async def _step(self, game: GameRecord, delivery: Delivery, now: datetime) -> None:
        deck = self.quiz.decks.get(game.deck_id)
        if deck is None:  # the deck was removed while the game ran
            await self._finish(game, None, delivery, now, GameState.STOPPED)
        elif game.stop_by is not None:
            await self._finish(game, deck, delivery, now, GameState.STOPPED)
        elif game.phase is Phase.STARTING:
            await delivery.announce(self._news(NewsKind.STARTED, game, deck, [], 0))
            await self.store.move_game(game.id, game.step, Phase.BETWEEN, now + START_DELAY)
        elif game.phase is Phase.BETWEEN:
            await self._ask(game, deck, delivery, now)
        else:
            await self._reveal(game, deck, delivery, now)

    async def _ask(self, game: GameRecord, deck: Deck, delivery: Delivery, now: datetime) -> None:
        """The next question, or the results when none is left to ask."""
        asked = [p for p in await self.store.game_posts(game.id) if p.message_ref]
        stray = [p for p in asked if p.is_open]
        if stray:  # posted by a step that died before recording it: that is the question
            closes = stray[0].opened_at + timedelta(seconds=game.seconds)
            await self.store.move_game(game.id, game.step, Phase.OPEN, closes)
            return
        if len(asked) >= game.rounds:
            await self._finish(game, deck, delivery, now, GameState.FINISHED)
            return
        view = await self._post_question(game, deck, {p.question_id for p in asked})
        if view is None:  # every other question is open in a post of this server
            await self._finish(game, deck, delivery, now, GameState.FINISHED)
            return
        closes = view.post.opened_at + timedelta(seconds=game.seconds)
        shown = replace(view, game=GameStep(game.id, len(asked) + 1, game.rounds, closes))
        await self._publishing.publish(shown, delivery.post)  # withdrawn if it failed
        await self.store.move_game(game.id, game.step, Phase.OPEN, closes)

    async def _post_question(
        self, game: GameRecord, deck: Deck, asked: set[str]
    ) -> PostView | None:
        """A question of the deck not asked in this game and not open in a post of the
        server (its reveal would give the other away), posted as the game's."""
        starter = Actor(game.server_id, game.starter_id)
        open_now = await self.store.open_questions(game.server_id)
        left = [q.id for q in deck if q.id not in asked and (deck.id, q.id) not in open_now]
        self._rng.shuffle(left)
        for question_id in left:
            try:
                return await self.quiz.post(
                    starter, game.channel_id, deck.id, question_id, game_id=game.id
                )
            except QuestionOpen:  # opened elsewhere just now
                continue
        return None

    async def _reveal(
        self, game: GameRecord, deck: Deck, delivery: Delivery, now: datetime
    ) -> None:
        """The open question's reveal, then the standings; the results after the last."""
        asked = await self._reveal_open(game, delivery)
        if asked >= game.rounds:
            await self._finish(game, deck, delivery, now, GameState.FINISHED, asked=asked)
            return
        board = placings(await self.store.game_scores(game.id))
        await delivery.announce(self._news(NewsKind.STANDINGS, game, deck, board, asked))
        await self.store.move_game(game.id, game.step, Phase.BETWEEN, now + PAUSE)

    async def _reveal_open(self, game: GameRecord, delivery: Delivery) -> int:
        """Closes and reveals the game's open question, if any; how many were asked."""
        asked = [p for p in await self.store.game_posts(game.id) if p.message_ref]
        for number, post in enumerate(asked, start=1):
            if post.is_open:
                await self._show_reveal(game, post, number, delivery)
        return len(asked)

    async def _show_reveal(
        self, game: GameRecord, post: PostRecord, number: int, delivery: Delivery
    ) -> None:
        reveal = await self.quiz.close_by_system(post.id)
        closes = post.opened_at + timedelta(seconds=game.seconds)
        view = replace(reveal.view, game=GameStep(game.id, number, game.rounds, closes))
        await show_reveal(delivery, replace(reveal, view=view))

    async def _finish(
        self,
        game: GameRecord,
        deck: Deck | None,
        delivery: Delivery,
        now: datetime,
        state: GameState,
        *,
        asked: int | None = None,
    ) -> None:
        """Reveals what is still open (unless the caller just did: `asked` given), stores
        the places, then posts the results (once: only the process whose finish lands posts
        them)."""
        if asked is None:
            asked = await self._reveal_open(game, delivery)
        board = placings(await self.store.game_scores(game.id))
        if not await self.store.finish_game(game.id, state, now, board):
            return
        if deck is None:
            return
        stopped = state is GameState.STOPPED
        news = self._news(NewsKind.RESULTS, game, deck, board, asked, stopped=stopped)
        await delivery.announce(news)

    @staticmethod
    def _news(
        kind: NewsKind,
        game: GameRecord,
        deck: Deck,
        board: list[Placing],
        asked: int,
        *,
        stopped: bool = False,
    ) -> GameNews:
        return GameNews(kind, game, deck.title, board, asked, stopped)
