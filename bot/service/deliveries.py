"""The platforms this process can post to now: one registry, shared by the daily questions
(`Scheduler`), live games (`Games`) and the problem-report digest (`ProblemDigest`).

A platform registers its `Delivery` when its session is up and takes it back when the session
closes; a server whose platform has none is left alone (another process may serve it).
"""

from __future__ import annotations

from collections.abc import Iterator

from bot.service.delivery import Delivery


def platform_of(server_id: str) -> str:
    """The platform a server id belongs to: its prefix ("slack", "discord", "local")."""
    return server_id.partition(":")[0]


class Deliveries:
    def __init__(self, deliveries: dict[str, Delivery] | None = None) -> None:
        self._by_platform: dict[str, Delivery] = dict(deliveries or {})

    def register(self, platform: str, delivery: Delivery) -> None:
        """Lets the scheduler post daily questions, the game loop play games, and the digest
        tell admins, on `platform` ("slack", "discord")."""
        self._by_platform[platform] = delivery

    def unregister(self, platform: str, delivery: Delivery) -> None:
        """No more posting through `delivery` (its session is closing); a newer one
        registered since stays."""
        if self._by_platform.get(platform) is delivery:
            del self._by_platform[platform]

    def get(self, platform: str) -> Delivery | None:
        return self._by_platform.get(platform)

    def of_server(self, server_id: str) -> Delivery | None:
        return self._by_platform.get(platform_of(server_id))

    def __contains__(self, platform: object) -> bool:
        return platform in self._by_platform

    def __iter__(self) -> Iterator[str]:
        """The platforms served, by name."""
        return iter(sorted(self._by_platform))

    def __len__(self) -> int:
        return len(self._by_platform)
