"""`Servers` in SQL: server settings and seasons, users' languages, key/value state."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, Table, and_, bindparam, delete, select, update
from sqlalchemy.engine import Connection

from bot.domain.records import ServerSettings
from bot.service.ports import Servers
from bot.storage.aggregate import SqlAggregate
from bot.storage.game_tables import game_results, held_answers
from bot.storage.mastery import person
from bot.storage.player import SERVER, USER_LOCALE, server_settings
from bot.storage.tables import (
    answers,
    cards,
    first_meetings,
    mastery,
    meta,
    problem_reports,
    review_answers,
    runs,
    seen_requests,
    servers,
    standings,
    user_settings,
)
from bot.storage.transactions import accumulate

DEFAULT_DECK = select(servers.c.default_deck).where(servers.c.server_id == bindparam("server_id"))

SWEEP_EVERY = 1000
"""Every this many `first_seen` calls, expired rows are deleted in the same transaction."""


class SqlServers(SqlAggregate, Servers):
    _seen_calls = 0

    async def server(self, server_id: str) -> ServerSettings:
        return server_settings(server_id, await self._one(SERVER.params(server_id=server_id)))

    async def set_server_locale(self, server_id: str, locale: str | None) -> None:
        await self._upsert(servers, {"server_id": server_id}, {"locale": locale})

    async def set_server_timezone(self, server_id: str, timezone: str) -> None:
        await self._upsert(servers, {"server_id": server_id}, {"timezone": timezone})

    async def server_default_deck(self, server_id: str) -> str | None:
        deck_id: str | None = await self._scalar(DEFAULT_DECK.params(server_id=server_id))
        return deck_id

    async def set_server_default_deck(self, server_id: str, deck_id: str | None) -> None:
        await self._upsert(servers, {"server_id": server_id}, {"default_deck": deck_id})

    async def new_season(
        self, server_id: str, at: datetime, after: int, *, deadline: float | None = None
    ) -> int | None:
        # A compare-and-set: the row moves from `after` to `after + 1` at most once. A server
        # never stored is in season 1, so only after=1 may create its row.
        stmt = self._sql.insert(servers).values(
            server_id=server_id, season=after + 1, season_started_at=at
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=[servers.c.server_id],
            set_={"season": after + 1, "season_started_at": stmt.excluded.season_started_at},
            where=servers.c.season == after,
        )
        if after != 1:
            stmt = (
                update(servers)  # type: ignore[assignment]
                .where(servers.c.server_id == server_id, servers.c.season == after)
                .values(season=after + 1, season_started_at=at)
            )
        row = await self._one(stmt.returning(servers.c.season), write=True, deadline=deadline)
        return None if row is None else int(row.season)

    async def user_locale(self, server_id: str, user_id: str) -> str | None:
        locale: str | None = await self._scalar(
            USER_LOCALE.params(server_id=server_id, user_id=user_id)
        )
        return locale

    async def set_user_locale(self, server_id: str, user_id: str, locale: str | None) -> None:
        await self._upsert(
            user_settings, {"server_id": server_id, "user_id": user_id}, {"locale": locale}
        )

    async def set_hidden(self, server_id: str, user_id: str, hidden: bool) -> None:
        await self._upsert(
            user_settings, {"server_id": server_id, "user_id": user_id}, {"hidden": hidden}
        )

    async def hidden_among(self, server_id: str, user_ids: Sequence[str]) -> set[str]:
        if not user_ids:
            return set()
        rows = await self._all(
            select(user_settings.c.user_id).where(
                user_settings.c.server_id == server_id,
                user_settings.c.user_id.in_(list(user_ids)),
                user_settings.c.hidden,
            )
        )
        return {user_id for (user_id,) in rows}

    async def forget_user(self, server_id: str, user_id: str) -> int:

        def where(table: Table) -> ColumnElement[bool]:
            return and_(table.c.server_id == server_id, table.c.user_id == user_id)

        who = (server_id, user_id)

        def forget(conn: Connection) -> int:
            self._sql.pending_written(conn)  # this transaction's points first, then forgotten
            counts = accumulate(conn, self._sql.score_counts)
            for row in conn.execute(
                select(
                    standings.c.season,
                    standings.c.period,
                    standings.c.deck_key,
                    standings.c.points,
                ).where(where(standings))
            ):
                counts.leave((server_id, row.season, row.period, row.deck_key), row.points)
            conn.execute(delete(standings).where(where(standings)))
            mastered = conn.scalar(select(mastery.c.mastered).where(person(mastery, *who)))
            if mastered:  # out of the server's counts
                accumulate(conn, self._sql.mastery_counts).move(server_id, mastered, 0)
            conn.execute(delete(mastery).where(person(mastery, *who)))
            conn.execute(delete(cards).where(person(cards, *who)))
            answered = conn.execute(delete(answers).where(where(answers))).rowcount
            forgotten = (runs, first_meetings, review_answers, problem_reports, game_results)
            conn.execute(delete(held_answers).where(where(held_answers)))
            for table in (*forgotten, user_settings):
                conn.execute(delete(table).where(where(table)))
            return int(answered)

        return await self._tx.write(forget)

    async def first_seen(self, key: str, at: datetime, expires_at: datetime) -> bool:
        stmt = self._sql.insert(seen_requests).values(key=key, expires_at=expires_at)
        stmt = stmt.on_conflict_do_update(
            index_elements=[seen_requests.c.key],
            set_={"expires_at": stmt.excluded.expires_at},
            where=seen_requests.c.expires_at < at,
        )
        sweep = delete(seen_requests).where(seen_requests.c.expires_at < at)
        self._seen_calls += 1
        swept = self._seen_calls % SWEEP_EVERY == 0

        def record(conn: Connection) -> bool:
            if swept:
                conn.execute(sweep)
            return conn.execute(stmt.returning(seen_requests.c.key)).first() is not None

        return await self._tx.write(record)

    async def get_meta(self, key: str) -> str | None:
        value: str | None = await self._scalar(select(meta.c.value).where(meta.c.key == key))
        return value

    async def set_meta(self, key: str, value: str) -> None:
        await self._upsert(meta, {"key": key}, {"value": value})
