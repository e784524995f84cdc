"""Which deck a command means: a part of `Quiz` (its base class), like `Runs`, so that post,
game, run, schedules and report all ask one place (`bot.domain.default_deck` has the rule).

A server's own default is read from the store each time a command needs it (another
process may have set it); the last value each server read or set here is kept only for
what must answer from memory (Discord's autocomplete).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum

from bot.decks.model import Deck, DeckLibrary
from bot.domain.actor import Actor
from bot.domain.default_deck import CLEAR, DefaultDeck, default_deck
from bot.domain.errors import QuizError
from bot.domain.team_deck import TEAM, team_deck_id
from bot.service.ports import QuizStore


class Change(Enum):
    SET = "set"
    CLEARED = "cleared"


@dataclass(frozen=True)
class DefaultView:
    """`deck default`: the server's default deck, and what the command just changed."""

    default: DefaultDeck
    locale: str
    change: Change | None = None


@dataclass(frozen=True)
class DeckList:
    """`decks`: the loaded decks and which one is the default (None: no deck is loaded)."""

    decks: list[Deck]
    default: DefaultDeck | None
    locale: str


class DeckChoice:
    """`Quiz`'s choice of deck; `Quiz` provides the store, the decks, the config's default
    and the languages."""

    store: QuizStore
    decks: DeckLibrary
    config_default: str | None
    _known_defaults: dict[str, str | None]

    ui_locale: Callable[[Actor], Awaitable[str]]

    def deck(self, deck_id: str | None) -> Deck:
        """A deck by id; with none, the default of no server in particular (the config's,
        else the first by id: what `quizbot play` offers)."""
        if deck_id:
            deck = self.decks.get(deck_id)
            if deck is None:
                raise QuizError("unknown_deck", deck=deck_id, decks=", ".join(self.decks.ids()))
            return deck
        return self._default(None).deck

    async def deck_for(self, server_id: str, deck_id: str | None) -> Deck:
        """What a command's optional DECK means in a server: the deck named, else the
        server's default deck."""
        if deck_id == TEAM and self.decks.get(TEAM) is None:
            deck_id = team_deck_id(server_id)  # the server's own deck (its approved suggestions)
            if self.decks.get(deck_id) is None:
                raise QuizError("unknown_deck", deck=TEAM, decks=", ".join(self.decks.ids()))
        if deck_id:
            return self.deck(deck_id)
        return (await self.server_default(server_id)).deck

    async def server_default(self, server_id: str) -> DefaultDeck:
        found = await self._read_default(server_id)
        if found is None:
            raise QuizError("no_decks")
        return found

    def known_default(self, server_id: str) -> Deck:
        """The server's default as this process last read or set it, from memory only."""
        return self._default(self._known_defaults.get(server_id)).deck

    async def default_view(self, actor: Actor) -> DefaultView:
        return DefaultView(await self.server_default(actor.server_id), await self.ui_locale(actor))

    async def set_default_deck(self, actor: Actor, typed: str) -> DefaultView:
        """Makes the deck `typed` names the server's default (admins); `none` clears it, back
        to the config's. An unknown deck is refused by name, with the decks there are."""
        if not actor.is_admin:
            raise QuizError("admin_only")
        word = typed.strip().lower()
        if word == CLEAR:
            deck_id = None
        elif word:
            deck_id = self.deck(word).id
        else:
            raise QuizError("unknown_deck", deck=typed, decks=", ".join(self.decks.ids()))
        await self.store.set_server_default_deck(actor.server_id, deck_id)
        self._known_defaults[actor.server_id] = deck_id
        view = await self.default_view(actor)
        change = Change.CLEARED if deck_id is None else Change.SET
        return DefaultView(view.default, view.locale, change)

    async def deck_list(self, actor: Actor) -> DeckList:
        default = await self._read_default(actor.server_id)
        return DeckList(
            self.decks.for_server(actor.server_id), default, await self.ui_locale(actor)
        )

    async def _read_default(self, server_id: str) -> DefaultDeck | None:
        chosen = await self.store.server_default_deck(server_id)
        self._known_defaults[server_id] = chosen
        return default_deck(self.decks, chosen, self.config_default)

    def _default(self, server: str | None) -> DefaultDeck:
        found = default_deck(self.decks, server, self.config_default)
        if found is None:
            raise QuizError("no_decks")
        return found
