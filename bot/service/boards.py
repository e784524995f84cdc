"""What people have scored and learnt: the leaderboards, a person's stats and mastery.

Everything here is read from what the store keeps as answers are stored (standings, totals,
streaks, cards, mastery counts), so no board replays a server's history. A person who hides
(`Membership.set_hidden`) keeps their place; others see "a hidden player" in it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.leaderboard import ALL_TIME, TOP, Leaderboard, Period, period_bounds, period_key
from bot.domain.mastery import Mastery, mastery_of
from bot.domain.records import Standing, StandingsQuery
from bot.domain.stats import Stats
from bot.service.catalog import Catalog
from bot.service.game_port import Games
from bot.service.ports import Reviews, Servers, Standings
from bot.service.review import cards_today


class Boards:
    def __init__(
        self,
        catalog: Catalog,
        clock: Clock,
        servers: Servers,
        standings: Standings,
        reviews: Reviews,
        games: Games,
    ) -> None:
        self._catalog = catalog
        self.clock = clock
        self._servers = servers
        self._standings = standings
        self._reviews = reviews
        self._games = games

    async def leaderboard(
        self, actor: Actor, period: Period = Period.WEEK, deck_id: str | None = None
    ) -> Leaderboard:
        if deck_id:
            self._catalog.deck(deck_id)
        server = await self._servers.server(actor.server_id)
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
        rows = list(await self._standings.standings(query, TOP))
        return await self._board(
            actor,
            rows,
            lambda user_id: self._standings.standing_of(query, user_id),
            period,
            deck_id or None,
            since,
            until,
        )

    async def stats(self, actor: Actor, user_id: str | None = None) -> Stats:
        who = user_id or actor.user_id
        if who != actor.user_id and await self._servers.hidden_among(actor.server_id, [who]):
            raise QuizError("user_hidden")
        server = await self._servers.server(actor.server_id)
        totals = await self._standings.totals(actor.server_id, server.season, who)
        all_time = StandingsQuery(actor.server_id, server.season, period=ALL_TIME)
        standing = await self._standings.standing_of(all_time, who)
        mastery = await self.mastery(actor, who)
        return Stats(
            user_id=who,
            totals=totals,
            streak=await self._standings.streak(actor.server_id, who),
            rank=standing.rank if standing else None,
            locale=await self._catalog.ui_locale(actor),
            mastery=mastery,
            due=mastery.due if who == actor.user_id else None,
            games=await self._games.games_of(actor.server_id, who),
        )

    async def mastery(self, actor: Actor, user_id: str | None = None) -> Mastery:
        cards, today = await cards_today(
            self._servers, self._reviews, self.clock, actor.server_id, user_id or actor.user_id
        )
        return mastery_of(self._catalog.decks, cards, today)

    async def mastery_board(self, actor: Actor) -> Leaderboard:
        """`/quiz leaderboard mastery`: the server's people by questions mastered (ties share
        a rank), over every season: what a newcomer can climb and speed cannot buy. Read
        from the counts kept as answers are stored, ranked in the store: ten rows and the
        caller's, whatever the server's history."""
        rows = list(await self._reviews.mastery_board(actor.server_id, TOP))
        return await self._board(
            actor,
            rows,
            lambda user_id: self._reviews.mastery_standing(actor.server_id, user_id),
            Period.ALL,
            mastery=True,
        )

    async def _board(
        self,
        actor: Actor,
        rows: list[Standing],
        standing_of: Callable[[str], Awaitable[Standing | None]],
        period: Period,
        deck_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        *,
        mastery: bool = False,
    ) -> Leaderboard:
        """`rows` as the caller sees them: with their own standing (from the rows, else
        asked of `standing_of`) and the others who hide."""
        me = next((r for r in rows if r.user_id == actor.user_id), None)
        if me is None:
            me = await standing_of(actor.user_id)
        others = [r.user_id for r in rows if r.user_id != actor.user_id]
        hidden = await self._servers.hidden_among(actor.server_id, others)
        return Leaderboard(
            period=period,
            deck_id=deck_id,
            rows=rows,
            me=me,
            caller_id=actor.user_id,
            locale=await self._catalog.ui_locale(actor),
            since=since,
            until=until,
            hidden=frozenset(hidden),
            mastery=mastery,
        )
