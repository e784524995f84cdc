"""The in-memory store's live games: `games` and `game_results` of the SQL store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from bot.domain.game import GameRecord, GameScore, GameState, NewGame, Phase, Placing
from bot.domain.records import PostRecord
from bot.storage.memory_answers import StoredAnswer
from bot.storage.memory_schedules import utc


class MemoryGames:
    _posts: dict[int, PostRecord]
    _post_answers: Mapping[int, dict[str, StoredAnswer]]

    def __init__(self) -> None:
        self._games: dict[int, GameRecord] = {}
        self._results: dict[int, list[tuple[str, str, Placing]]] = {}
        """game id -> (server, user, placing) of everyone who played it."""

    async def create_game(self, game: NewGame) -> GameRecord | None:
        if await self.running_game(game.server_id, game.channel_id) is not None:
            return None
        record = GameRecord(
            id=len(self._games) + 1,
            server_id=game.server_id,
            channel_id=game.channel_id,
            deck_id=game.deck_id,
            starter_id=game.starter_id,
            locale=game.locale,
            season=game.season,
            rounds=game.rounds,
            seconds=game.seconds,
            state=GameState.RUNNING,
            phase=Phase.STARTING,
            due_at=utc(game.started_at),
            step=0,
            started_at=utc(game.started_at),
        )
        self._games[record.id] = record
        return record

    async def running_game(self, server_id: str, channel_id: str) -> GameRecord | None:
        return next(
            (
                g
                for g in self._games.values()
                if (g.server_id, g.channel_id) == (server_id, channel_id)
                and g.state is GameState.RUNNING
            ),
            None,
        )

    async def game(self, game_id: int) -> GameRecord | None:
        return self._games.get(game_id)

    async def due_games(self, now: datetime) -> Sequence[GameRecord]:
        return sorted(
            (
                g
                for g in self._games.values()
                if g.state is GameState.RUNNING
                and (g.due_at <= now or g.stop_by is not None)
                and (g.lease_until is None or g.lease_until <= now)
            ),
            key=lambda g: g.due_at,
        )

    async def claim_game(self, game_id: int, step: int, lease_until: datetime) -> bool:
        game = self._games.get(game_id)
        if game is None or game.step != step or game.state is not GameState.RUNNING:
            return False
        self._games[game_id] = replace(game, step=step + 1, lease_until=utc(lease_until))
        return True

    async def move_game(self, game_id: int, step: int, phase: Phase, due_at: datetime) -> bool:
        game = self._games.get(game_id)
        if game is None or game.step != step + 1 or game.state is not GameState.RUNNING:
            return False
        self._games[game_id] = replace(
            game, step=step + 2, phase=phase, due_at=utc(due_at), lease_until=None
        )
        return True

    async def stop_game(self, game_id: int, user_id: str) -> None:
        game = self._games.get(game_id)
        if game is not None and game.state is GameState.RUNNING and game.stop_by is None:
            self._games[game_id] = replace(game, stop_by=user_id)

    async def finish_game(
        self, game_id: int, state: GameState, at: datetime, board: Sequence[Placing]
    ) -> bool:
        game = self._games.get(game_id)
        if game is None or game.state is not GameState.RUNNING:
            return False
        self._games[game_id] = replace(game, state=state, ended_at=utc(at), lease_until=None)
        self._results[game_id] = [(game.server_id, p.user_id, p) for p in board]
        return True

    async def game_posts(self, game_id: int) -> Sequence[PostRecord]:
        return sorted((p for p in self._posts.values() if p.game_id == game_id), key=lambda p: p.id)

    async def game_scores(self, game_id: int) -> Sequence[GameScore]:
        right: dict[str, int] = {}
        for post in await self.game_posts(game_id):
            if post.message_ref is None:  # never shown (withdrawn): counts for nothing
                continue
            for user_id, answer in self._post_answers.get(post.id, {}).items():
                right[user_id] = right.get(user_id, 0) + int(answer.correct)
        return [GameScore(user_id, points) for user_id, points in right.items()]

    async def games_of(self, server_id: str, user_id: str) -> tuple[int, int]:
        mine = [
            placing
            for rows in self._results.values()
            for server, user, placing in rows
            if (server, user) == (server_id, user_id)
        ]
        return len(mine), sum(1 for p in mine if p.place == 1 and p.points > 0)

    def forget_games(self, server_id: str, user_id: str) -> None:
        for game_id, rows in self._results.items():
            self._results[game_id] = [r for r in rows if (r[0], r[1]) != (server_id, user_id)]
