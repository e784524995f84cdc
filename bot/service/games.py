"""Live games: `/quiz game` starts one, and the game loop plays it in its channel.

The loop is driven by the injected clock and the deadlines stored with each game, like the
scheduler: every `TICK` it asks the store which games have a step due and starts each in a
task of its own (one slow channel never delays another game; one game never takes two
steps at once). A step is claimed first (compare-and-set; of several processes one wins)
and taken: the announcement, a question (an ordinary post of the game, with its deadline
stored: a click after it is refused whatever the loop is doing), the reveal at the
deadline with the standings, the results. A process that dies mid-step leaves a claim that
lapses after `LEASE`, and whoever ticks next takes the step again; a restart therefore
picks every running game up where it was. A reveal's counts are the stored answers.

Faults (`bot.service.delivery`, `bot.service.supervision`): a step that fails is tried
again with backoff, claiming it anew each time, so the game's clock moves with it; only a
channel that refuses the bot (`ChannelRefused`), a deck that is gone, or a step failing for
`GIVE_UP` ends a game, and then its starter is told why (the channel too, where it can be).
A question is never open without being visible: one sent but not recorded is withdrawn
before the next is asked, and counts for nothing.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import replace
from datetime import datetime, timedelta

from bot.decks.model import Deck, Localized
from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.game import (
    GIVE_UP,
    LEASE,
    PAUSE,
    RETRY_FIRST,
    RETRY_MOST,
    START_DELAY,
    AskedSoFar,
    EndCause,
    GameNews,
    GameRecord,
    GameState,
    NewGame,
    NewsKind,
    Phase,
    Placing,
    closes_at,
    game_settings,
    placings,
    question_seconds,
    step_of,
)
from bot.domain.post import PostView
from bot.domain.records import PostRecord
from bot.service import ports
from bot.service.answering import Answering
from bot.service.catalog import Catalog
from bot.service.deliveries import Deliveries
from bot.service.delivery import ChannelRefused, Delivery, show_reveal
from bot.service.ports import QuestionOpen, StoreUnavailable
from bot.service.publishing import Publishing
from bot.service.supervision import Backoff, Faults, Supervisor, reason

log = logging.getLogger("quizbot.games")

TICK = 0.25
"""Seconds between looks for due steps: a reveal comes within a second of its deadline."""
LOOP_BACKOFF = Backoff(first=TICK, most=5.0)
"""After a look that failed (the database unavailable): a quarter second, doubling to 5 s."""
RETRY = Backoff(first=RETRY_FIRST, most=RETRY_MOST)


class Games:
    def __init__(
        self,
        catalog: Catalog,
        clock: Clock,
        answering: Answering,
        publishing: Publishing,
        deliveries: Deliveries,
        games: ports.Games,
        posts: ports.PostsAndAnswers,
        servers: ports.Servers,
        rng: random.Random | None = None,
    ) -> None:
        self._catalog = catalog
        self.clock = clock
        self._answering = answering
        self._publishing = publishing
        self.deliveries = deliveries
        self._games = games
        self._posts = posts
        self._servers = servers
        self._rng = rng or random.Random()
        self._faults = Faults(clock, log)
        self._playing: dict[int, asyncio.Task[bool]] = {}
        """Each game stepping in this process now: never two steps of one game at once."""
        self._shown: dict[int, PostView] = {}
        """Open questions as this process posted them (by post id), to reveal one whose
        question a deck reload took away."""
        self._announced: set[tuple[int, NewsKind, int]] = set()
        """(game, kind, questions asked) of each public message sent: a step taken again
        after a failure does not send one twice."""

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
        channel has one. No deck: the server's default."""
        rounds, per_question = game_settings(questions, seconds)
        deck = await self._catalog.deck_for(actor.server_id, deck_id)
        server = await self._servers.server(actor.server_id)
        game = await self._games.create_game(
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
        game = await self._games.running_game(actor.server_id, channel_id)
        if game is None:
            raise QuizError("no_game")
        if game.starter_id != actor.user_id and not actor.is_admin:
            raise QuizError("not_your_game")
        await self._games.stop_game(game.id, actor.user_id)
        return game

    # The loop -------------------------------------------------------------

    async def run(self) -> None:
        """Starts due steps every `TICK` seconds until cancelled, supervised (a look at the
        games that fails is logged without flooding and tried again after a backoff); each
        step runs in a task of its own, never waited for here."""
        log.info("game loop started")
        try:
            await Supervisor(self.clock, self._faults).loop(
                "the game loop", self._launch, TICK, LOOP_BACKOFF
            )
        finally:
            stepping = list(self._playing.values())
            for task in stepping:
                task.cancel()
            await asyncio.gather(*stepping, return_exceptions=True)

    async def tick(self) -> list[int]:
        """Takes every step that is due now, each game in a task of its own, and waits for
        them; the ids of the games it moved. Raises if the due games cannot be read."""
        started = await self._launch()
        moved = await asyncio.gather(*started.values())
        return [game_id for game_id, took in zip(started, moved, strict=True) if took]

    async def _launch(self) -> dict[int, asyncio.Task[bool]]:
        """Starts a task for each due game of a platform this process serves, unless one is
        stepping it already."""
        started: dict[int, asyncio.Task[bool]] = {}
        for game in await self._games.due_games(self.clock.now()):
            delivery = self.deliveries.of_server(game.server_id)
            if delivery is None or game.id in self._playing:
                continue  # another process serves this platform; or it is stepping
            task = asyncio.create_task(self._play(game, delivery))
            self._playing[game.id] = started[game.id] = task
            task.add_done_callback(self._stepped)
        return started

    def _stepped(self, task: asyncio.Task[bool]) -> None:
        for game_id, playing in list(self._playing.items()):
            if playing is task:
                del self._playing[game_id]

    async def _play(self, game: GameRecord, delivery: Delivery) -> bool:
        """Takes the game's due step; True if this process took it. A step that fails is
        taken again after a backoff (claimed anew each time, so another process leaves it
        alone, and with the clock of that moment), until it works, the channel refuses the
        bot or the deck is gone (the game ends), or it failed for `GIVE_UP` with anything
        but an unavailable database (the game ends)."""
        what = f"game {game.id} (step {game.phase.value})"
        claimed = False
        first_failure: datetime | None = None
        while True:
            now = self.clock.now()
            try:
                if first_failure is not None:  # as it is now: stopped meanwhile, say
                    fresh = await self._games.game(game.id)
                    held = game.step + 1 if claimed else game.step
                    if fresh is None or fresh.state is not GameState.RUNNING:
                        return claimed
                    if fresh.step != held:
                        return claimed  # moved on (another process, its claim lapsed)
                    game = fresh
                if not await self._games.claim_game(game.id, game.step, now + LEASE):
                    return claimed
                claimed = True
                await self._step(game, delivery, now)
            except ChannelRefused as refused:
                await self._end(game, delivery, now, EndCause.CANNOT_POST, refused.reason)
                return True
            except Exception as error:
                failures = self._faults.failed(("game", game.id), what, error)
                first_failure = first_failure or now
                giving_up = now - first_failure >= GIVE_UP
                if claimed and giving_up and not isinstance(error, StoreUnavailable):
                    await self._end(game, delivery, now, EndCause.FAILING, reason(error))
                    return True
                await self.clock.sleep(RETRY.after(failures))
                continue
            self._faults.recovered(("game", game.id), what)
            return True

    async def _step(self, game: GameRecord, delivery: Delivery, now: datetime) -> None:
        so_far = AskedSoFar.of(await self._games.game_posts(game.id))
        for post in so_far.half_asked:  # never open without being visible
            log.warning("game %s: withdrawing post %s, sent but not recorded", game.id, post.id)
            await self._answering.withdraw(post.id)
        deck = self._catalog.decks.get(game.deck_id)
        if deck is None:  # the deck was removed (or renamed) while the game ran
            said = f"its deck {game.deck_id} is no longer loaded (was it removed or renamed?)"
            await self._end(game, delivery, now, EndCause.DECK_GONE, said, so_far)
        elif game.stop_by is not None:
            await self._finish(game, deck.title, delivery, now, so_far, GameState.STOPPED)
        elif game.phase is Phase.STARTING:
            await self._announce(delivery, self._news(NewsKind.STARTED, game, deck.title, [], 0))
            await self._games.move_game(game.id, game.step, Phase.BETWEEN, now + START_DELAY)
        elif game.phase is Phase.BETWEEN:
            await self._ask(game, deck, delivery, now, so_far)
        else:
            await self._reveal(game, deck, delivery, now, so_far)

    async def _ask(
        self, game: GameRecord, deck: Deck, delivery: Delivery, now: datetime, so_far: AskedSoFar
    ) -> None:
        """The next question, or the results when none is left to ask."""
        if so_far.open:  # posted and recorded by a step that died before moving on
            closes = closes_at(so_far.open[0], game.seconds)
            await self._games.move_game(game.id, game.step, Phase.OPEN, closes)
            return
        asked = so_far.shown
        if len(asked) >= game.rounds:
            await self._finish(game, deck.title, delivery, now, so_far, GameState.FINISHED)
            return
        view = await self._post_question(game, deck, {p.question_id for p in asked})
        if view is None:  # every other question is open in a post of this server
            await self._finish(game, deck.title, delivery, now, so_far, GameState.FINISHED)
            return
        step = step_of(view.post, game.id, len(asked) + 1, game.rounds, game.seconds)
        shown = replace(view, game=step)
        self._shown[view.post.id] = shown
        await self._publishing.publish(shown, delivery.post)  # withdrawn if it failed
        await self._games.move_game(game.id, game.step, Phase.OPEN, step.closes_at)

    async def _post_question(
        self, game: GameRecord, deck: Deck, asked: set[str]
    ) -> PostView | None:
        """A question of the deck not asked in this game and not open in a post of the
        server (its reveal would give the other away), posted as the game's, with its
        deadline: the game's time, or the question's own when it needs longer."""
        starter = Actor(game.server_id, game.starter_id)
        open_now = await self._posts.open_questions(game.server_id)
        left = [q.id for q in deck if q.id not in asked and (deck.id, q.id) not in open_now]
        self._rng.shuffle(left)
        for question_id in left:
            try:
                return await self._answering.post(
                    starter,
                    game.channel_id,
                    deck.id,
                    question_id,
                    game_id=game.id,
                    closes_after=timedelta(
                        seconds=question_seconds(deck.question(question_id), game.seconds)
                    ),
                )
            except QuestionOpen:  # opened elsewhere just now
                continue
        return None

    async def _reveal(
        self, game: GameRecord, deck: Deck, delivery: Delivery, now: datetime, so_far: AskedSoFar
    ) -> None:
        """The open question's reveal, then the standings; the results after the last."""
        asked = await self._reveal_open(game, delivery, so_far)
        if asked >= game.rounds:
            await self._finish(
                game, deck.title, delivery, now, so_far, GameState.FINISHED, revealed=True
            )
            return
        board = placings(await self._games.game_scores(game.id))
        await self._announce(
            delivery, self._news(NewsKind.STANDINGS, game, deck.title, board, asked)
        )
        await self._games.move_game(game.id, game.step, Phase.BETWEEN, now + PAUSE)

    async def _reveal_open(self, game: GameRecord, delivery: Delivery, so_far: AskedSoFar) -> int:
        """Closes and reveals the game's open question, if any; how many were asked."""
        for number, post in enumerate(so_far.shown, start=1):
            if post.is_open:
                await self._show_reveal(game, post, number, delivery)
        return len(so_far.shown)

    async def _show_reveal(
        self, game: GameRecord, post: PostRecord, number: int, delivery: Delivery
    ) -> None:
        try:
            reveal = await self._answering.close_by_system(post.id, self._shown.get(post.id))
        except QuizError as error:  # its question is no longer loaded, and not known here
            log.warning(
                "game %s: post %s closed, its reveal not shown (%s)", game.id, post.id, error.key
            )
            return
        step = step_of(post, game.id, number, game.rounds, game.seconds)
        await show_reveal(delivery, replace(reveal, view=replace(reveal.view, game=step)))
        self._shown.pop(post.id, None)

    async def _finish(
        self,
        game: GameRecord,
        title: Localized,
        delivery: Delivery,
        now: datetime,
        so_far: AskedSoFar,
        state: GameState,
        *,
        revealed: bool = False,
    ) -> None:
        """Reveals what is still open (unless the caller just did: `revealed`), posts the
        results (once: a step taken again after a failure does not post them again), then
        stores the places."""
        asked = len(so_far.shown) if revealed else await self._reveal_open(game, delivery, so_far)
        board = placings(await self._games.game_scores(game.id))
        stopped = state is GameState.STOPPED
        news = self._news(NewsKind.RESULTS, game, title, board, asked, stopped=stopped)
        await self._announce(delivery, news)
        await self._done(game, state, now, board)

    async def _end(
        self,
        game: GameRecord,
        delivery: Delivery,
        now: datetime,
        cause: EndCause,
        why: str,
        so_far: AskedSoFar | None = None,
    ) -> None:
        """Ends a game early: what is open is revealed (shown if the channel takes it), the
        places stored, the results posted where the channel still takes them (best effort),
        and the starter told privately why. If the database refuses, the claim lapses and
        the step is taken again later."""
        log.warning(
            "game %s ends: %s",
            game.id,
            why,
            extra={"event": "game_ended", "game": game.id, "cause": cause.value},
        )
        title = self._title(game)
        try:
            if so_far is None:
                so_far = AskedSoFar.of(await self._games.game_posts(game.id))
            asked = await self._reveal_open(game, delivery, so_far)
            board = placings(await self._games.game_scores(game.id))
            if not await self._games.finish_game(game.id, GameState.STOPPED, now, board):
                return
        except Exception as error:
            self._faults.failed(("game", game.id), f"ending game {game.id}", error)
            return
        self._forget(game.id)
        news = GameNews(NewsKind.RESULTS, game, title, board, asked, True, cause, why)
        if cause is not EndCause.CANNOT_POST:
            try:
                await delivery.announce(news)
            except Exception as error:
                log.info("game %s: its results could not be posted (%s)", game.id, reason(error))
        try:
            await delivery.notify_game_end(news)
        except Exception:
            log.exception("game %s: telling its starter why it ended", game.id)

    async def _done(
        self, game: GameRecord, state: GameState, now: datetime, board: list[Placing]
    ) -> None:
        await self._games.finish_game(game.id, state, now, board)
        self._forget(game.id)

    def _forget(self, game_id: int) -> None:
        """What this process kept about a game that ended."""
        self._announced = {a for a in self._announced if a[0] != game_id}
        for post_id in [p for p, v in self._shown.items() if v.post.game_id == game_id]:
            del self._shown[post_id]
        self._faults.reset(("game", game_id))

    def _title(self, game: GameRecord) -> Localized:
        """The game's deck title: as loaded, else as it was when a question was posted
        here, else its id."""
        deck = self._catalog.decks.get(game.deck_id)
        if deck is not None:
            return deck.title
        shown = (v.deck.title for v in self._shown.values() if v.post.game_id == game.id)
        return next(shown, {game.locale: game.deck_id})

    async def _announce(self, delivery: Delivery, news: GameNews) -> None:
        """A public message of the game, unless this process sent it already."""
        sent = (news.game.id, news.kind, news.asked)
        if sent in self._announced:
            return
        await delivery.announce(news)
        self._announced.add(sent)

    @staticmethod
    def _news(
        kind: NewsKind,
        game: GameRecord,
        title: Localized,
        board: list[Placing],
        asked: int,
        *,
        stopped: bool = False,
    ) -> GameNews:
        return GameNews(kind, game, title, board, asked, stopped)
