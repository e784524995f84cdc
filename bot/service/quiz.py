"""The quiz engine: the one object adapters call.

Every method takes plain values (an Actor, ids, indexes), does its work through the store,
and returns a result object for the adapter to render. Refusals are `QuizError`s.
"""

from __future__ import annotations

import asyncio
import random
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import timedelta

from bot.decks.model import Deck, DeckLibrary, Question
from bot.domain.actor import Actor
from bot.domain.answer import AnswerResult, points_for
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.language import language
from bot.domain.leaderboard import ALL_TIME, TOP, Leaderboard, Period, period_bounds, period_key
from bot.domain.post import PostView, Reveal, build_reveal, choice_order
from bot.domain.records import (
    AnswerStatus,
    NewPost,
    Player,
    PostAnswer,
    PostRecord,
    ServerSettings,
    StandingsQuery,
)
from bot.domain.stats import Stats
from bot.service.authoring import Authoring
from bot.service.deck_choice import DeckChoice
from bot.service.learning import Learning
from bot.service.ports import QuizStore
from bot.service.runs import Runs

POSTS_KEPT = 256
"""Posts whose record clicks read from memory (`Quiz._post_of`): the posts a burst is on.
A click on one forgotten costs one read."""


@dataclass
class Quiz(DeckChoice, Runs, Learning, Authoring):
    store: QuizStore
    decks: DeckLibrary
    clock: Clock
    ui_locales: tuple[str, ...] = ("en", "bn")
    rng: random.Random | None = None
    config_default: str | None = None
    """`[questions] default`: the deck where a command names none and its server has no
    default of its own (`bot.domain.default_deck`)."""

    def __post_init__(self) -> None:
        self._rng = self.rng or random.Random()
        self._known_defaults = {}
        self._posts: OrderedDict[int, asyncio.Future[PostRecord | None]] = OrderedDict()
        """Recently posted or clicked posts, each read at most once (a burst's first clicks
        all wait for the one read). What a click needs of one (server, deck, question,
        choice order) never changes once posted; whether it is still open is decided by
        the store when the answer is recorded."""

    # Questions -----------------------------------------------------------

    def question(self, deck: Deck, ref: str | None) -> Question:
        if ref is None or ref == "":
            return self._rng.choice(deck.questions)
        question = deck.question(ref)
        if question is None:
            raise QuizError("unknown_question", question=ref, deck=deck.id, count=len(deck))
        return question

    # Languages -----------------------------------------------------------

    async def reply_locale(self, actor: Actor, deck: Deck) -> str:
        """The language of a reply about `deck` (see `bot.domain.language`)."""
        mine = await self.store.user_locale(actor.server_id, actor.user_id)
        server = await self.store.server(actor.server_id)
        return _deck_locale(actor, deck, mine, server)

    async def ui_locale(self, actor: Actor) -> str:
        """Language for replies that belong to no deck (help, leaderboard, errors); with no
        setting, English (or the first deck's language when it has no English)."""
        mine = await self.store.user_locale(actor.server_id, actor.user_id)
        server = await self.store.server(actor.server_id)
        first = self.decks.first()
        fallback = first.fallback_locale if first is not None else self.ui_locales[0]
        return language(
            self.ui_locales,
            platform=actor.locale,
            mine=mine,
            server=server.locale,
            fallback=fallback if fallback in self.ui_locales else self.ui_locales[0],
        )

    async def set_language(self, actor: Actor, locale: str, *, server: bool = False) -> str:
        locale = locale.strip().lower()
        if locale not in self.ui_locales:
            raise QuizError("unknown_locale", locale=locale, locales=", ".join(self.ui_locales))
        if server:
            self._require_admin(actor)
            await self.store.set_server_locale(actor.server_id, locale)
        else:
            await self.store.set_user_locale(actor.server_id, actor.user_id, locale)
        return locale

    # Posts ---------------------------------------------------------------

    async def post(
        self,
        actor: Actor,
        channel_id: str,
        deck_id: str | None = None,
        question_ref: str | None = None,
        *,
        schedule_id: int | None = None,
        game_id: int | None = None,
        closes_after: timedelta | None = None,
    ) -> PostView:
        """Posts a question: fixes its choice order and its language now, for good (and a
        game's question its deadline, `closes_after` from now). No deck: the server's
        default."""
        deck = await self.deck_for(actor.server_id, deck_id)
        question = self.question(deck, question_ref)
        server = await self.store.server(actor.server_id)
        now = self.clock.now()
        record = await self.store.create_post(
            NewPost(
                server_id=actor.server_id,
                channel_id=channel_id,
                deck_id=deck.id,
                question_id=question.id,
                order=choice_order(question, self._rng),
                locale=deck.locale_or_default(server.locale),
                poster_id=actor.user_id,
                season=server.season,
                opened_at=now,
                schedule_id=schedule_id,
                game_id=game_id,
                closes_at=None if closes_after is None else now + closes_after,
            )
        )
        known: asyncio.Future[PostRecord | None] = asyncio.get_running_loop().create_future()
        known.set_result(record)
        self._remember(record.id, known)
        return PostView(record, deck, question, answered=0)

    async def set_message(self, post_id: int, message_ref: str) -> None:
        await self.store.set_post_message(post_id, message_ref)

    async def view(self, post_id: int) -> PostView:
        post = await self.store.post(post_id)
        if post is None:
            raise QuizError("stale_click")
        return await self._view(post)

    async def _view(self, post: PostRecord) -> PostView:
        view = self._clicked(post)
        return replace(view, answered=await self.store.answer_count(post.id))

    def _clicked(self, post: PostRecord, actor: Actor | None = None) -> PostView:
        """The post, for a private reply to `actor`'s click: its `answered` is not counted
        (0), since no reply shows it."""
        if actor is not None and post.server_id != actor.server_id:
            raise QuizError("stale_click")
        deck = self.decks.get(post.deck_id)
        question = deck.question(post.question_id) if deck else None
        if deck is None or question is None:
            raise QuizError("question_gone")
        return PostView(post, deck, question, 0)

    async def _post_of(self, actor: Actor, post_id: int) -> PostView:
        """The clicked post; from memory after the first read (the fields a reply shows
        never change)."""
        known = self._posts.get(post_id)
        if known is None:
            known = asyncio.ensure_future(self.store.post(post_id))
            self._remember(post_id, known)
        try:
            post = await asyncio.shield(known)
        except BaseException:
            if known.done():  # the read failed: the next click reads again
                self._posts.pop(post_id, None)
            raise
        if post is None:
            raise QuizError("stale_click")
        return self._clicked(post, actor)

    def _remember(self, post_id: int, post: asyncio.Future[PostRecord | None]) -> None:
        self._posts[post_id] = post
        if len(self._posts) > POSTS_KEPT:
            self._posts.popitem(last=False)

    async def answer(
        self, actor: Actor, post_id: int, shown_index: int, *, deadline: float | None = None
    ) -> AnswerResult:
        """Records a click on choice button `shown_index` (0 = A); committed when this
        returns. The first click stands. `deadline` (`time.monotonic()`): a click the store
        has not begun to write by then is refused with "try again", unstored."""
        view = await self._post_of(actor, post_id)
        if not 0 <= shown_index < len(view.post.order):
            raise QuizError("stale_click")
        now = self.clock.now()
        if view.post.too_late(now):  # a game's deadline holds, whatever its loop is doing
            player = await self.store.player(actor.server_id, actor.user_id)
            return self._answer_result(actor, view, AnswerStatus.CLOSED, None, player)
        choice = view.post.order[shown_index]
        correct = choice == view.question.answer
        answer = PostAnswer(view.post, actor.user_id, choice, correct, points_for(correct), now)
        outcome = await self.store.answer_post(answer, deadline=deadline)
        if outcome.post is None:
            raise QuizError("stale_click")
        view = self._clicked(outcome.post, actor)
        result = self._answer_result(actor, view, outcome.status, outcome.choice, outcome.player)
        scored = view.post.game_id is None  # a game's click is scored at its reveal
        if scored and outcome.status is AnswerStatus.NEW and correct and outcome.points == 0:
            return replace(result, practice=True)
        return result

    async def my_answer(
        self, actor: Actor, post_id: int, locale: str | None = None
    ) -> AnswerResult:
        """The caller's standing answer to a post, again (the "other language" button)."""
        view = await self._post_of(actor, post_id)
        if view.post.game_id is not None:  # a game's reply says no more than "locked in"
            raise QuizError("stale_click")
        choice = await self.store.post_answer_of(post_id, actor.user_id)
        if choice is None:
            raise QuizError("not_answered")
        player = await self.store.player(actor.server_id, actor.user_id)
        result = self._answer_result(actor, view, AnswerStatus.DUPLICATE, choice, player, locale)
        return replace(result, replay=True)

    def _answer_result(
        self,
        actor: Actor,
        view: PostView,
        status: AnswerStatus,
        choice: int | None,
        player: Player,
        locale: str | None = None,
    ) -> AnswerResult:
        reply = view.deck.locale_or_default(locale) if locale else None
        reply = reply or _deck_locale(actor, view.deck, player.locale, player.server)
        return AnswerResult(
            status=status,
            view=view,
            choice=choice,
            locale=reply,
            other_locale=view.deck.other_locale(reply),
            totals=player.totals,
            streak=player.streak,
        )

    async def close(
        self, actor: Actor, channel_id: str | None = None, post_id: int | None = None
    ) -> Reveal:
        """Closes a post (this channel's newest open one, or by id) with its reveal.

        Its poster or an admin may close it; closing a closed post shows the reveal again.
        The closer is shown the answer, so for them it is a first meeting (fair play).
        """
        if post_id is not None:
            post = await self.store.post(post_id)
            if post is None or post.server_id != actor.server_id:
                raise QuizError("no_open_post")
        elif channel_id is not None:
            post = await self.store.open_post_in_channel(actor.server_id, channel_id)
            if post is None:
                raise QuizError("no_open_post")
        else:
            raise QuizError("no_open_post")
        if post.poster_id != actor.user_id and not actor.is_admin:
            raise QuizError("not_your_post")
        now = self.clock.now()
        closed_now = await self.store.close_post(post.id, now)
        await self.store.meet(
            post.server_id, post.season, actor.user_id, post.deck_id, post.question_id, now
        )
        return await self._reveal(post.id, closed_now)

    async def close_by_system(self, post_id: int, shown: PostView | None = None) -> Reveal:
        """Closes a post for the scheduler or a game (no actor, no permission check).
        `shown`: the post as it was posted, to reveal it by if its question is no longer
        loaded (a deck reloaded without it meanwhile)."""
        closed_now = await self.store.close_post(post_id, self.clock.now())
        return await self._reveal(post_id, closed_now, shown)

    async def withdraw(self, post_id: int) -> None:
        """Closes a post whose message was never sent: no reveal, and a scheduled one gives
        its question back to the schedule."""
        await self.store.discard_post(post_id, self.clock.now())

    async def _reveal(
        self, post_id: int, closed_now: bool, shown: PostView | None = None
    ) -> Reveal:
        post = await self.store.post(post_id)
        if post is None:
            raise QuizError("no_open_post")
        try:
            view = self._clicked(post)
        except QuizError:
            if shown is None or shown.post.id != post.id:
                raise
            view = PostView(post, shown.deck, shown.question, 0)
        tally = await self.store.tally(post.id)
        return build_reveal(replace(view, answered=sum(tally.values())), tally, closed_now)

    # Leaderboard and stats -------------------------------------------------

    async def leaderboard(
        self, actor: Actor, period: Period = Period.WEEK, deck_id: str | None = None
    ) -> Leaderboard:
        if deck_id:
            self.deck(deck_id)
        server = await self.store.server(actor.server_id)
        now = self.clock.now()
        since, until = period_bounds(period, now, server.timezone)
        query = StandingsQuery(
            actor.server_id,
            server.season,
            since,
            until,
            deck_id or None,
            period=period_key(period, now, server.timezone),
        )
        rows = list(await self.store.standings(query, TOP))
        me = next((r for r in rows if r.user_id == actor.user_id), None)
        if me is None:
            me = await self.store.standing_of(query, actor.user_id)
        others = [r.user_id for r in rows if r.user_id != actor.user_id]
        hidden = await self.store.hidden_among(actor.server_id, others)
        return Leaderboard(
            period=period,
            deck_id=deck_id or None,
            rows=rows,
            me=me,
            caller_id=actor.user_id,
            locale=await self.ui_locale(actor),
            since=since,
            until=until,
            hidden=frozenset(hidden),
        )

    async def stats(self, actor: Actor, user_id: str | None = None) -> Stats:
        who = user_id or actor.user_id
        if who != actor.user_id and await self.store.hidden_among(actor.server_id, [who]):
            raise QuizError("user_hidden")
        server = await self.store.server(actor.server_id)
        totals = await self.store.totals(actor.server_id, server.season, who)
        all_time = StandingsQuery(actor.server_id, server.season, period=ALL_TIME)
        standing = await self.store.standing_of(all_time, who)
        mastery = await self.mastery(actor, who)
        return Stats(
            user_id=who,
            totals=totals,
            streak=await self.store.streak(actor.server_id, who),
            rank=standing.rank if standing else None,
            locale=await self.ui_locale(actor),
            mastery=mastery,
            due=mastery.due if who == actor.user_id else None,
            games=await self.store.games_of(actor.server_id, who),
        )

    async def is_hidden(self, actor: Actor) -> bool:
        return bool(await self.store.hidden_among(actor.server_id, [actor.user_id]))

    async def set_hidden(self, actor: Actor, hidden: bool) -> None:
        """Hides the caller from others on this server's leaderboards (`/quiz privacy`): they
        keep their points and rank, and others see "a hidden player" in their place."""
        await self.store.set_hidden(actor.server_id, actor.user_id, hidden)

    async def forget_me(self, actor: Actor) -> int:
        """Deletes everything kept about the caller in this server (`/quiz privacy`, after
        its confirm); the number of answers deleted."""
        return await self.store.forget_user(actor.server_id, actor.user_id)

    async def server(self, actor: Actor) -> ServerSettings:
        return await self.store.server(actor.server_id)

    async def reset(self, actor: Actor, confirms: int, *, deadline: float | None = None) -> int:
        """Starts season `confirms` + 1, once: the confirm button carries the season it was
        shown for, so a second press, or a button left over from an old reset, changes nothing.
        Nothing is deleted."""
        self._require_admin(actor)
        season = await self.store.new_season(
            actor.server_id, self.clock.now(), after=confirms, deadline=deadline
        )
        if season is None:
            server = await self.store.server(actor.server_id)
            raise QuizError("reset_stale", season=server.season)
        return season

    @staticmethod
    def _require_admin(actor: Actor) -> None:
        if not actor.is_admin:
            raise QuizError("admin_only")


def _deck_locale(actor: Actor, deck: Deck, mine: str | None, server: ServerSettings) -> str:
    return language(
        deck.locales,
        platform=actor.locale,
        mine=mine,
        server=server.locale,
        fallback=deck.fallback_locale,
    )
