"""What a running process keeps in the database about itself, not about any quiz: the
events it has seen (Slack's retries and replays), and small values kept across restarts
(the hash of the last Discord command sync)."""

from __future__ import annotations

from datetime import timedelta

from bot.domain.clock import Clock
from bot.service.ports import Servers


class ProcessState:
    def __init__(self, clock: Clock, servers: Servers) -> None:
        self.clock = clock
        self._servers = servers

    async def first_seen(self, key: str, seconds: float) -> bool:
        """True the first time `key` is seen by any process on this database, for `seconds`
        (Slack's retries and replays, `[slack] shared_seen`)."""
        now = self.clock.now()
        return await self._servers.first_seen(key, now, now + timedelta(seconds=seconds))

    async def get_meta(self, key: str) -> str | None:
        return await self._servers.get_meta(key)

    async def set_meta(self, key: str, value: str) -> None:
        await self._servers.set_meta(key, value)
