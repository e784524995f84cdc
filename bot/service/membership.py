"""A person's and a server's standing choices: language, privacy, forgetting, new seasons.

What a person chooses for themselves (their language, hiding from the boards, being
forgotten) and what an admin chooses for the server (its language, a new season).
"""

from __future__ import annotations

from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.records import ServerSettings
from bot.service.catalog import Catalog
from bot.service.ports import Servers


class Membership:
    def __init__(self, catalog: Catalog, clock: Clock, servers: Servers) -> None:
        self._catalog = catalog
        self.clock = clock
        self._servers = servers

    async def server(self, actor: Actor) -> ServerSettings:
        return await self._servers.server(actor.server_id)

    async def set_language(self, actor: Actor, locale: str, *, server: bool = False) -> str:
        locale = locale.strip().lower()
        ui_locales = self._catalog.ui_locales
        if locale not in ui_locales:
            raise QuizError("unknown_locale", locale=locale, locales=", ".join(ui_locales))
        if server:
            _require_admin(actor)
            await self._servers.set_server_locale(actor.server_id, locale)
        else:
            await self._servers.set_user_locale(actor.server_id, actor.user_id, locale)
        return locale

    async def saved_language(self, actor: Actor) -> str | None:
        """The language the person chose for themselves, if any."""
        return await self._servers.user_locale(actor.server_id, actor.user_id)

    async def keep_language(self, actor: Actor, locale: str) -> None:
        """Keeps `locale` as the person's choice as it is: `quizbot play --locale` offers
        the decks' languages, checked by the terminal, not only the catalogs' (`set_language`)."""
        await self._servers.set_user_locale(actor.server_id, actor.user_id, locale)

    async def is_hidden(self, actor: Actor) -> bool:
        return bool(await self._servers.hidden_among(actor.server_id, [actor.user_id]))

    async def set_hidden(self, actor: Actor, hidden: bool) -> None:
        """Hides the caller from others on this server's leaderboards (`/quiz privacy`): they
        keep their points and rank, and others see "a hidden player" in their place."""
        await self._servers.set_hidden(actor.server_id, actor.user_id, hidden)

    async def forget_me(self, actor: Actor) -> int:
        """Deletes everything kept about the caller in this server (`/quiz privacy`, after
        its confirm); the number of answers deleted."""
        return await self._servers.forget_user(actor.server_id, actor.user_id)

    async def reset(self, actor: Actor, confirms: int, *, deadline: float | None = None) -> int:
        """Starts season `confirms` + 1, once: the confirm button carries the season it was
        shown for, so a second press, or a button left over from an old reset, changes nothing.
        Nothing is deleted."""
        _require_admin(actor)
        season = await self._servers.new_season(
            actor.server_id, self.clock.now(), after=confirms, deadline=deadline
        )
        if season is None:
            server = await self._servers.server(actor.server_id)
            raise QuizError("reset_stale", season=server.season)
        return season


def _require_admin(actor: Actor) -> None:
    if not actor.is_admin:
        raise QuizError("admin_only")
