"""`Servers` in SQL: server settings and seasons, users' languages, key/value state."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update

from bot.domain.records import ServerSettings
from bot.service.ports import Servers
from bot.storage.aggregate import SqlAggregate
from bot.storage.player import SERVER, USER_LOCALE, server_settings
from bot.storage.tables import meta, servers, user_settings


class SqlServers(SqlAggregate, Servers):
    async def server(self, server_id: str) -> ServerSettings:
        return server_settings(server_id, await self._one(SERVER.params(server_id=server_id)))

    async def set_server_locale(self, server_id: str, locale: str | None) -> None:
        await self._upsert(servers, {"server_id": server_id}, {"locale": locale})

    async def set_server_timezone(self, server_id: str, timezone: str) -> None:
        await self._upsert(servers, {"server_id": server_id}, {"timezone": timezone})

    async def new_season(
        self, server_id: str, at: datetime, after: int, *, deadline: float | None = None
    ) -> int | None:
        # A compare-and-set: the row moves from `after` to `after + 1` at most once. A server
        # never stored is in season 1, so only after=1 may create its row.
        stmt = self._insert(servers).values(
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

    async def get_meta(self, key: str) -> str | None:
        value: str | None = await self._scalar(select(meta.c.value).where(meta.c.key == key))
        return value

    async def set_meta(self, key: str, value: str) -> None:
        await self._upsert(meta, {"key": key}, {"value": value})
