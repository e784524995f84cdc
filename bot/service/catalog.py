"""The loaded decks, which deck a command means, and the language a reply is in.

Every other capability asks here: post, game, run, schedules and report all mean the same
deck by an omitted DECK (`bot.domain.default_deck` has the rule), and every reply is in the
language `bot.domain.language` picks. The decks are replaced as a whole by `reload`, so a
service holding the catalog always sees the running set.

A server's own default is read from the store each time a command needs it (another process
may have set it); the last value each server read or set here is kept only for what must
answer from memory (Discord's autocomplete).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from bot.decks.loading import DeckReport
from bot.decks.model import Deck, DeckLibrary, Question
from bot.domain.actor import Actor
from bot.domain.default_deck import (
    CLEAR,
    Change,
    DeckList,
    DefaultDeck,
    DefaultView,
    default_deck,
)
from bot.domain.errors import QuizError
from bot.domain.language import language
from bot.domain.records import ServerSettings
from bot.domain.review import card_key
from bot.service.ports import Servers

log = logging.getLogger("quizbot")


class Catalog:
    def __init__(
        self,
        servers: Servers,
        decks: DeckLibrary,
        *,
        ui_locales: tuple[str, ...] = ("en", "bn"),
        rng: random.Random | None = None,
        config_default: str | None = None,
        load: Callable[[], DeckReport] | None = None,
    ) -> None:
        """`config_default`: `[questions] default`, the deck where a command names none and
        its server has no default of its own. `load`: reads the decks again (`reload`)."""
        self._servers = servers
        self.decks = decks
        self.ui_locales = ui_locales
        self.rng = rng or random.Random()
        """Shared with `Answering`, so one seed fixes both the question and its order."""
        self.config_default = config_default
        self._load = load
        self._known_defaults: dict[str, str | None] = {}

    # Decks ---------------------------------------------------------------

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
        await self._servers.set_server_default_deck(actor.server_id, deck_id)
        self._known_defaults[actor.server_id] = deck_id
        view = await self.default_view(actor)
        change = Change.CLEARED if deck_id is None else Change.SET
        return DefaultView(view.default, view.locale, change)

    async def deck_list(self, actor: Actor) -> DeckList:
        default = await self._read_default(actor.server_id)
        return DeckList(list(self.decks), default, await self.ui_locale(actor))

    async def _read_default(self, server_id: str) -> DefaultDeck | None:
        chosen = await self._servers.server_default_deck(server_id)
        self._known_defaults[server_id] = chosen
        return default_deck(self.decks, chosen, self.config_default)

    def _default(self, server: str | None) -> DefaultDeck:
        found = default_deck(self.decks, server, self.config_default)
        if found is None:
            raise QuizError("no_decks")
        return found

    def reload(self) -> DeckReport:
        """Loads the decks again; only a valid set replaces the running one.

        Posts and runs of questions that disappeared get a polite "question gone" reply.
        """
        if self._load is None:
            raise RuntimeError("this catalog was built without a way to load decks")
        report = self._load()
        if report.ok:
            self.decks = DeckLibrary(report.decks)
            log.info("decks reloaded: %s", report.summary(), extra={"event": "decks_reloaded"})
        else:
            log.error(
                "deck reload refused, keeping the running decks:\n%s",
                "\n".join(str(p) for p in report.problems),
                extra={"event": "decks_reload_refused", "problems": len(report.problems)},
            )
        return report

    # Questions -----------------------------------------------------------

    def question(self, deck: Deck, ref: str | None) -> Question:
        """The question `ref` names in `deck`; none named, one at random."""
        if ref is None or ref == "":
            return self.rng.choice(deck.questions)
        question = deck.question(ref)
        if question is None:
            raise QuizError("unknown_question", question=ref, deck=deck.id, count=len(deck))
        return question

    def question_by_key(self, key: str) -> tuple[Deck, Question]:
        """The loaded question a button names by `card_key`; stale if none is."""
        for deck in self.decks:
            for question in deck:
                if card_key(deck.id, question.id) == key:
                    return deck, question
        raise QuizError("question_gone")

    def topics(self) -> list[str]:
        """Every tag of the loaded decks, by name."""
        return sorted({tag for deck in self.decks for q in deck for tag in q.tags})

    # Languages -----------------------------------------------------------

    async def reply_locale(self, actor: Actor, deck: Deck) -> str:
        """The language of a reply about `deck` (see `bot.domain.language`)."""
        mine = await self._servers.user_locale(actor.server_id, actor.user_id)
        server = await self._servers.server(actor.server_id)
        return deck_locale(actor, deck, mine, server)

    async def ui_locale(self, actor: Actor) -> str:
        """Language for replies that belong to no deck (help, leaderboard, errors); with no
        setting, English (or the first deck's language when it has no English)."""
        mine = await self._servers.user_locale(actor.server_id, actor.user_id)
        server = await self._servers.server(actor.server_id)
        first = self.decks.first()
        fallback = first.fallback_locale if first is not None else self.ui_locales[0]
        return language(
            self.ui_locales,
            platform=actor.locale,
            mine=mine,
            server=server.locale,
            fallback=fallback if fallback in self.ui_locales else self.ui_locales[0],
        )


def deck_locale(actor: Actor, deck: Deck, mine: str | None, server: ServerSettings) -> str:
    """The language of a reply about `deck`, from what the caller and their server chose."""
    return language(
        deck.locales,
        platform=actor.locale,
        mine=mine,
        server=server.locale,
        fallback=deck.fallback_locale,
    )
