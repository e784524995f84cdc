"""Decks and questions as the engine sees them: validated, immutable, every text in every locale.

Reading and checking deck files lives in `bot.decks.loading`; this module is only the shape.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from bot.decks.numerals import number

Localized = Mapping[str, str]
"""A text in each of the deck's locales, e.g. {"bn": "...", "en": "..."}."""


def pick(text: Localized, locale: str) -> str:
    """The text in `locale`, else in the first locale it has (decks are validated, so rare)."""
    if locale in text:
        return text[locale]
    return next(iter(text.values()))


@dataclass(frozen=True)
class Choice:
    text: Localized
    why: Localized | None = None


@dataclass(frozen=True)
class Question:
    id: str
    text: Localized
    choices: tuple[Choice, ...]
    answer: int
    explanation: Localized
    tags: tuple[str, ...] = ()
    shuffle: bool = True
    position: int = 1
    """1-based position in its deck: "question n of N"."""
    seconds: int | None = field(default=None, repr=False)
    """The least time the question needs in a game (the deck's `seconds:`), or None: the
    game's own time. Left out of the repr, so a deck's `version` of questions without it
    stays as it was before the key existed."""
    credit: str | None = field(default=None, repr=False, compare=False)
    """Who wrote it, as its reveal credits them ("Question by @name"): a question a member
    suggested and an admin approved (`bot.domain.team_deck`); None for a deck file's."""

    @property
    def right(self) -> Choice:
        return self.choices[self.answer]


@dataclass(frozen=True)
class Deck:
    id: str
    title: Localized
    locales: tuple[str, ...]
    questions: tuple[Question, ...]
    description: Localized | None = None
    source: str = ""
    """Where it was loaded from (a path), for messages."""
    origin: str | None = None
    """Where its questions came from, as the file's `source` key says (e.g. an import)."""
    license: str | None = None
    """The file's `license` key, e.g. "CC BY-SA 4.0"."""
    _by_id: Mapping[str, Question] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {q.id: q for q in self.questions})

    @cached_property
    def version(self) -> str:
        """A short hash of the questions as loaded: a problem report names it, so an author
        can tell a report about text since changed from one about the text as it is."""
        timed = [(q.id, q.seconds) for q in self.questions if q.seconds is not None]
        said = repr(self.questions) + (repr(timed) if timed else "")
        return hashlib.blake2s(said.encode(), digest_size=5).hexdigest()

    @property
    def default_locale(self) -> str:
        return self.locales[0]

    def __len__(self) -> int:
        return len(self.questions)

    def __iter__(self) -> Iterator[Question]:
        return iter(self.questions)

    def question(self, ref: str) -> Question | None:
        """A question by id, or by its 1-based position (ASCII or Bengali digits)."""
        if ref in self._by_id:
            return self._by_id[ref]
        position = number(ref)
        if position is not None and 1 <= position <= len(self.questions):
            return self.questions[position - 1]
        return None

    @property
    def fallback_locale(self) -> str:
        """The language for a reader who asked for none of the deck's: English when the deck
        has it, else its first (DESIGN.md's language rule, one for the bot and the CLI)."""
        return "en" if "en" in self.locales else self.default_locale

    def locale_or_default(self, locale: str | None) -> str:
        return locale if locale in self.locales else self.fallback_locale

    def other_locale(self, locale: str) -> str | None:
        """The locale a reply's "show in the other language" button switches to."""
        others = [loc for loc in self.locales if loc != locale]
        return others[0] if others else None


class OwnDecks:
    """The servers' own decks (their approved suggestions), kept up to date by the
    suggestions service: one per server, found by id like any deck, listed only to their
    server. Shared by the libraries a reload makes, so a reload keeps them."""

    def __init__(self) -> None:
        self._by_server: dict[str, Deck] = {}
        self._by_id: dict[str, Deck] = {}

    def replace(self, by_server: Mapping[str, Deck]) -> None:
        """Every server's own deck, as the database has them now."""
        self._by_server = dict(by_server)
        self._by_id = {d.id: d for d in by_server.values()}

    def get(self, deck_id: str) -> Deck | None:
        return self._by_id.get(deck_id)

    def of(self, server_id: str) -> Deck | None:
        return self._by_server.get(server_id)


class DeckLibrary:
    """The loaded decks, by id, in a stable order (by id); and the servers' own decks
    (`own`), which `get` finds but iteration leaves out (each is one server's)."""

    def __init__(self, decks: Sequence[Deck], own: OwnDecks | None = None) -> None:
        self._decks = {d.id: d for d in sorted(decks, key=lambda d: d.id)}
        self.own = own if own is not None else OwnDecks()

    def __len__(self) -> int:
        return len(self._decks)

    def __iter__(self) -> Iterator[Deck]:
        return iter(self._decks.values())

    def get(self, deck_id: str) -> Deck | None:
        return self._decks.get(deck_id) or self.own.get(deck_id)

    def for_server(self, server_id: str) -> list[Deck]:
        """The decks a server sees: the loaded ones, then its own, if it has one."""
        own = self.own.of(server_id)
        return [*self._decks.values(), *([own] if own and own.id not in self._decks else [])]

    def ids(self) -> list[str]:
        return list(self._decks)

    def first(self) -> Deck | None:
        return next(iter(self._decks.values()), None)
