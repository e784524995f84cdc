"""Who is asking: the server id of a request, and whether the user is an admin.

Slack has no command permissions, so the bot checks admin actions itself: a workspace admin
or owner (users.info), or a user id listed in `[slack] admins`.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.domain.actor import Actor

log = logging.getLogger("quizbot.slack")
_ADMIN_FLAGS = ("is_admin", "is_owner", "is_primary_owner")


def server_id(
    team_id: str | None, enterprise_id: str | None, is_enterprise_install: bool | None
) -> str | None:
    """`slack:<team_id>`, or `slack:<enterprise_id>` for an org-wide (Enterprise Grid) install."""
    if is_enterprise_install and enterprise_id:
        return f"slack:{enterprise_id}"
    if team_id:
        return f"slack:{team_id}"
    if enterprise_id:
        return f"slack:{enterprise_id}"
    return None


def actor_of(context: AsyncBoltContext, *, is_admin: bool = False) -> Actor | None:
    """The Actor of a request; None when it names no workspace or no user (malformed: bolt
    takes the ids from the payload as they are, strings or not)."""
    team, enterprise, user = context.team_id, context.enterprise_id, context.user_id
    if not all(isinstance(v, str | None) for v in (team, enterprise, user)):
        return None
    server = server_id(team, enterprise, context.is_enterprise_install)
    if server is None or not user:
        return None
    return Actor(server_id=server, user_id=user, is_admin=is_admin)


def is_admin_profile(user: dict[str, Any], *, org_wide: bool = False) -> bool:
    """A users.info `user`: an admin or owner of the Enterprise Grid org (`enterprise_user`)
    is an admin everywhere; a workspace admin or owner only of a workspace's own server, not
    of an org-wide install's (`org_wide`), whose leaderboard spans every workspace."""
    grid = user.get("enterprise_user")
    if isinstance(grid, dict) and any(grid.get(f) is True for f in ("is_admin", "is_owner")):
        return True
    return not org_wide and any(user.get(flag) is True for flag in _ADMIN_FLAGS)


def is_org_wide(server: str) -> bool:
    """A server id of an org-wide install (`slack:E...`), not of one workspace."""
    return server.removeprefix("slack:").startswith("E")


class Admins:
    """Admin checks, with users.info answers kept for `ttl` seconds (at most `size` of them;
    expired ones are dropped as new ones come)."""

    def __init__(
        self,
        configured: Iterable[str],
        *,
        ttl: float = 120.0,
        size: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._configured = frozenset(configured)
        self._ttl = ttl
        self._size = size
        self._clock = clock
        self._cache: OrderedDict[tuple[str, str], tuple[float, bool]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._cache)

    @property
    def configured(self) -> frozenset[str]:
        """The user ids `[slack] admins` names."""
        return self._configured

    async def check(self, client: AsyncWebClient, actor: Actor) -> Actor:
        """The same actor, with `is_admin` decided."""
        admin = await self.is_admin(client, actor.server_id, actor.user_id)
        return Actor(actor.server_id, actor.user_id, admin, actor.locale)

    async def is_admin(self, client: AsyncWebClient, server: str, user_id: str) -> bool:
        if user_id in self._configured:
            return True
        key = (server, user_id)
        now = self._clock()
        hit = self._cache.get(key)
        if hit is not None and hit[0] > now:
            return hit[1]
        try:
            response = await client.users_info(user=user_id)
        except SlackApiError as error:
            log.warning("users.info for %s failed: %s", user_id, error.response.get("error"))
            return False
        user = response.get("user")
        admin = isinstance(user, dict) and is_admin_profile(user, org_wide=is_org_wide(server))
        self._cache[key] = (now + self._ttl, admin)
        self._cache.move_to_end(key)  # in order of expiry, as every answer keeps `ttl`
        while self._cache and (
            len(self._cache) > self._size or next(iter(self._cache.values()))[0] <= now
        ):
            self._cache.popitem(last=False)
        return admin
