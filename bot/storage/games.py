"""`Games` in SQL: live games, their steps claimed by compare-and-set on `step`, and their
results. A game's scores are read from its questions' answers (`answers` of its posts that
were shown: a stored message); clicks on an open question are held apart until its reveal
(`bot.storage.held_answers`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import and_, case, func, or_, select, update
from sqlalchemy.engine import Connection

from bot.domain.game import GameRecord, GameScore, GameState, NewGame, Phase, Placing
from bot.domain.records import PostRecord
from bot.service.game_port import Games
from bot.storage.aggregate import SqlAggregate
from bot.storage.game_tables import GAME_RUNNING, game_results, games
from bot.storage.player import AnyRow
from bot.storage.records import post_record
from bot.storage.tables import answers, posts

RUNNING = GameState.RUNNING.value


class SqlGames(SqlAggregate, Games):
    async def create_game(self, game: NewGame) -> GameRecord | None:
        stmt = (
            self._sql.insert(games)
            .values(
                server_id=game.server_id,
                channel_id=game.channel_id,
                deck_id=game.deck_id,
                starter_id=game.starter_id,
                locale=game.locale,
                season=game.season,
                rounds=game.rounds,
                seconds=game.seconds,
                state=RUNNING,
                phase=Phase.STARTING.value,
                due_at=game.started_at,
                step=0,
                started_at=game.started_at,
            )
            .on_conflict_do_nothing(
                index_elements=[games.c.server_id, games.c.channel_id], index_where=GAME_RUNNING
            )
            .returning(*games.c)
        )
        row = await self._one(stmt, write=True)
        return None if row is None else game_record(row)

    async def running_game(self, server_id: str, channel_id: str) -> GameRecord | None:
        row = await self._one(
            select(games).where(
                games.c.server_id == server_id, games.c.channel_id == channel_id, GAME_RUNNING
            )
        )
        return None if row is None else game_record(row)

    async def game(self, game_id: int) -> GameRecord | None:
        row = await self._one(select(games).where(games.c.id == game_id))
        return None if row is None else game_record(row)

    async def due_games(self, now: datetime) -> Sequence[GameRecord]:
        stmt = (
            select(games)
            .where(GAME_RUNNING)
            .where(or_(games.c.due_at <= now, games.c.stop_by.is_not(None)))
            .where(or_(games.c.lease_until.is_(None), games.c.lease_until <= now))
            .order_by(games.c.due_at)
        )
        return [game_record(r) for r in await self._all(stmt)]

    async def claim_game(self, game_id: int, step: int, lease_until: datetime) -> bool:
        return await self._moved(
            update(games)
            .where(games.c.id == game_id, games.c.step == step, GAME_RUNNING)
            .values(step=step + 1, lease_until=lease_until)
        )

    async def move_game(self, game_id: int, step: int, phase: Phase, due_at: datetime) -> bool:
        return await self._moved(
            update(games)
            .where(games.c.id == game_id, games.c.step == step + 1, GAME_RUNNING)
            .values(step=step + 2, phase=phase.value, due_at=due_at, lease_until=None)
        )

    async def stop_game(self, game_id: int, user_id: str) -> None:
        await self._exec(
            update(games)
            .where(games.c.id == game_id, GAME_RUNNING, games.c.stop_by.is_(None))
            .values(stop_by=user_id)
        )

    async def finish_game(
        self, game_id: int, state: GameState, at: datetime, board: Sequence[Placing]
    ) -> bool:
        end = (
            update(games)
            .where(games.c.id == game_id, GAME_RUNNING)
            .values(state=state.value, ended_at=at, lease_until=None)
        )

        def write(conn: Connection) -> bool:
            if conn.execute(end).rowcount != 1:
                return False
            server_id = conn.scalar(select(games.c.server_id).where(games.c.id == game_id))
            if board:
                conn.execute(
                    game_results.insert(),
                    [
                        {
                            "game_id": game_id,
                            "user_id": p.user_id,
                            "server_id": server_id,
                            "points": p.points,
                            "place": p.place,
                        }
                        for p in board
                    ],
                )
            return True

        return await self._tx.write(write)

    async def game_posts(self, game_id: int) -> Sequence[PostRecord]:
        stmt = select(posts).where(posts.c.game_id == game_id).order_by(posts.c.id)
        return [post_record(r) for r in await self._all(stmt)]

    async def game_scores(self, game_id: int) -> Sequence[GameScore]:
        right = func.sum(case((answers.c.correct, 1), else_=0))
        stmt = (
            select(answers.c.user_id, right)
            .select_from(answers.join(posts, answers.c.post_id == posts.c.id))
            .where(posts.c.game_id == game_id, posts.c.message_ref.is_not(None))
            .group_by(answers.c.user_id)
        )
        return [GameScore(user_id, int(points or 0)) for user_id, points in await self._all(stmt)]

    async def games_of(self, server_id: str, user_id: str) -> tuple[int, int]:
        won = func.sum(
            case((and_(game_results.c.place == 1, game_results.c.points > 0), 1), else_=0)
        )
        row = await self._one(
            select(func.count(), won).where(
                game_results.c.server_id == server_id, game_results.c.user_id == user_id
            )
        )
        return (0, 0) if row is None else (int(row[0] or 0), int(row[1] or 0))

    async def _moved(self, stmt: object) -> bool:
        def write(conn: Connection) -> bool:
            return bool(conn.execute(stmt).rowcount == 1)  # type: ignore[call-overload]

        return await self._tx.write(write)


def game_record(row: AnyRow) -> GameRecord:
    return GameRecord(
        id=row.id,
        server_id=row.server_id,
        channel_id=row.channel_id,
        deck_id=row.deck_id,
        starter_id=row.starter_id,
        locale=row.locale,
        season=row.season,
        rounds=row.rounds,
        seconds=row.seconds,
        state=GameState(row.state),
        phase=Phase(row.phase),
        due_at=row.due_at,
        step=row.step,
        started_at=row.started_at,
        lease_until=row.lease_until,
        stop_by=row.stop_by,
        ended_at=row.ended_at,
    )
