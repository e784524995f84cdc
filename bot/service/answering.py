"""Questions posted in channels and the clicks on them: post, answer, close, reveal.

Every method takes plain values (an Actor, ids, indexes) and returns a result for the
adapter to render; refusals are `QuizError`s. A click is judged here (right or wrong, its
points by `bot.domain.answer`) and stored in one write, committed before this returns;
the store decides only what must be atomic against other clicks (the first click stands,
the first meeting scores).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import replace
from datetime import timedelta

from bot.domain.actor import Actor
from bot.domain.answer import AnswerResult, points_for
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.post import PostView, Reveal, build_reveal, choice_order
from bot.domain.records import AnswerStatus, NewPost, Player, PostAnswer, PostRecord
from bot.service.catalog import Catalog, deck_locale
from bot.service.ports import PostsAndAnswers, Servers, Standings

KEEP_POSTS = 1024
"""How many recently posted or clicked posts are kept in memory (`Answering._post_of`)."""


class Answering:
    def __init__(
        self,
        catalog: Catalog,
        clock: Clock,
        posts: PostsAndAnswers,
        servers: Servers,
        standings: Standings,
    ) -> None:
        self._catalog = catalog
        self.clock = clock
        self._store = posts
        self._servers = servers
        self._standings = standings
        self._posts: OrderedDict[int, asyncio.Future[PostRecord | None]] = OrderedDict()
        """Recently posted or clicked posts, each read at most once (a burst's first clicks
        all wait for the one read). What a click needs of one (server, deck, question,
        choice order) never changes once posted; whether it is still open is decided by
        the store when the answer is recorded."""

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
        deck = await self._catalog.deck_for(actor.server_id, deck_id)
        question = self._catalog.question(deck, question_ref)
        server = await self._servers.server(actor.server_id)
        now = self.clock.now()
        record = await self._store.create_post(
            NewPost(
                server_id=actor.server_id,
                channel_id=channel_id,
                deck_id=deck.id,
                question_id=question.id,
                order=choice_order(question, self._catalog.rng),
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
        await self._store.set_post_message(post_id, message_ref)

    async def view(self, post_id: int) -> PostView:
        post = await self._store.post(post_id)
        if post is None:
            raise QuizError("stale_click")
        view = self._clicked(post)
        return replace(view, answered=await self._store.answer_count(post.id))

    def _clicked(self, post: PostRecord, actor: Actor | None = None) -> PostView:
        """The post, for a private reply to `actor`'s click: its `answered` is not counted
        (0), since no reply shows it."""
        if actor is not None and post.server_id != actor.server_id:
            raise QuizError("stale_click")
        deck = self._catalog.decks.get(post.deck_id)
        question = deck.question(post.question_id) if deck else None
        if deck is None or question is None:
            raise QuizError("question_gone")
        return PostView(post, deck, question, 0)

    async def _post_of(self, actor: Actor, post_id: int) -> PostView:
        """The clicked post; from memory after the first read (the fields a reply shows
        never change)."""
        known = self._posts.get(post_id)
        if known is None:
            known = asyncio.ensure_future(self._store.post(post_id))
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
        if len(self._posts) > KEEP_POSTS:
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
            player = await self._standings.player(actor.server_id, actor.user_id)
            return self._answer_result(actor, view, AnswerStatus.CLOSED, None, player)
        choice = view.post.order[shown_index]
        correct = choice == view.question.answer
        answer = PostAnswer(view.post, actor.user_id, choice, correct, points_for(correct), now)
        outcome = await self._store.answer_post(answer, deadline=deadline)
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
        choice = await self._store.post_answer_of(post_id, actor.user_id)
        if choice is None:
            raise QuizError("not_answered")
        player = await self._standings.player(actor.server_id, actor.user_id)
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
        reply = reply or deck_locale(actor, view.deck, player.locale, player.server)
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
            post = await self._store.post(post_id)
            if post is None or post.server_id != actor.server_id:
                raise QuizError("no_open_post")
        elif channel_id is not None:
            post = await self._store.open_post_in_channel(actor.server_id, channel_id)
            if post is None:
                raise QuizError("no_open_post")
        else:
            raise QuizError("no_open_post")
        if post.poster_id != actor.user_id and not actor.is_admin:
            raise QuizError("not_your_post")
        now = self.clock.now()
        closed_now = await self._store.close_post(post.id, now)
        await self._store.meet(
            post.server_id, post.season, actor.user_id, post.deck_id, post.question_id, now
        )
        return await self._reveal(post.id, closed_now)

    async def close_by_system(self, post_id: int, shown: PostView | None = None) -> Reveal:
        """Closes a post for the scheduler or a game (no actor, no permission check).
        `shown`: the post as it was posted, to reveal it by if its question is no longer
        loaded (a deck reloaded without it meanwhile)."""
        closed_now = await self._store.close_post(post_id, self.clock.now())
        return await self._reveal(post_id, closed_now, shown)

    async def withdraw(self, post_id: int) -> None:
        """Closes a post whose message was never sent: no reveal, and a scheduled one gives
        its question back to the schedule."""
        await self._store.discard_post(post_id, self.clock.now())

    async def _reveal(
        self, post_id: int, closed_now: bool, shown: PostView | None = None
    ) -> Reveal:
        post = await self._store.post(post_id)
        if post is None:
            raise QuizError("no_open_post")
        try:
            view = self._clicked(post)
        except QuizError:
            if shown is None or shown.post.id != post.id:
                raise
            view = PostView(post, shown.deck, shown.question, 0)
        tally = await self._store.tally(post.id)
        return build_reveal(replace(view, answered=sum(tally.values())), tally, closed_now)
