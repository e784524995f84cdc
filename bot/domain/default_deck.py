"""Which deck a command that names none uses: DESIGN's rule, written once.

The server's own default (`deck default`, set by an admin) while it is loaded, else the
config's `[questions] default` while it is loaded, else the first deck by id. A default
that names a deck no longer loaded (removed, renamed, a reload) is passed over quietly:
players get the next one, and `decks` says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bot.decks.model import Deck, DeckLibrary

CLEAR = "none"
"""What `deck default` takes to clear a server's own default (back to the config's)."""


class DefaultSource(Enum):
    """Where the default deck comes from, as `decks` tells it."""

    SERVER = "server"
    """Set on this server by an admin."""
    CONFIG = "config"
    """The config's `[questions] default`."""
    FIRST = "first"
    """The first deck by id: nothing else names a loaded deck."""


@dataclass(frozen=True)
class DefaultDeck:
    deck: Deck
    source: DefaultSource
    unloaded: str | None = None
    """The server's own setting when it names a deck that is not loaded."""


def default_deck(decks: DeckLibrary, server: str | None, config: str | None) -> DefaultDeck | None:
    """The deck used where a command names none; None when no deck is loaded."""
    unloaded = server if server is not None and decks.get(server) is None else None
    for source, chosen in ((DefaultSource.SERVER, server), (DefaultSource.CONFIG, config)):
        deck = decks.get(chosen) if chosen else None
        if deck is not None:
            return DefaultDeck(deck, source, unloaded)
    first = decks.first()
    return None if first is None else DefaultDeck(first, DefaultSource.FIRST, unloaded)


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
