"""Checking a deck file's tree against the format, collecting every problem rather than the first.

Authors fix decks from `quizbot validate` output, so each problem points at the offending key or
value. This module checks the deck level and the values every level shares (keys, lists, flags,
ids, texts); `questions.py` checks the questions and their choices.
"""

from __future__ import annotations

import difflib

from bot.decks.format import DECK, ID_PATTERN, LOCALE_PATTERN, MAX_ID_LENGTH, Field, Level
from bot.decks.model import Deck
from bot.decks.places import DeckPlaces
from bot.decks.problem import Problem
from bot.decks.questions import QuestionChecker
from bot.decks.tree import At, Map, Node, Scalar, Seq, is_blank


class DeckChecker:
    """Checks one file's tree, building its `Deck` only if nothing is wrong."""

    def __init__(self, path: str, stem: str) -> None:
        self.path = path
        self.stem = stem
        self.problems: list[Problem] = []
        self.locales: tuple[str, ...] | None = None
        self.deck_id: str | None = None
        self.id_at = (1, 1)
        self.places: DeckPlaces | None = None
        """Where the deck's parts sit, once it is built: what the lint points at."""

    def add(self, at: At, message: str) -> None:
        self.problems.append(Problem(self.path, at.line, at.column, message))

    # The deck

    def empty(self) -> None:
        self.add(At(1, 1), f"the file is empty; a deck needs {DECK.needs}")

    def deck(self, root: Node) -> Deck | None:
        if not isinstance(root, Map):
            kind = "a list" if isinstance(root, Seq) else "a single value"
            self.add(root, f"a deck file must be a mapping with {DECK.needs}, not {kind}")
            return None
        self.check_keys(root, DECK)
        self.check_locales(root.get("locales"))
        deck_id = self.check_deck_id(root.get("id"))
        title = self.field_text(root, DECK.field("title"))
        description = self.field_text(root, DECK.field("description"))
        shuffle = self.flag(root.get("shuffle"), "shuffle", default=True)
        origin = self.field_string(root, DECK.field("source"))
        license = self.field_string(root, DECK.field("license"))
        checker = QuestionChecker(self)
        questions = checker.questions(root.get("questions"), shuffle)
        if self.problems or None in (deck_id, title, questions, self.locales):
            return None
        assert deck_id is not None and title is not None and questions is not None
        assert self.locales is not None
        self.places = DeckPlaces(self.path, root.entries["questions"][0], checker.places)
        return Deck(
            deck_id,
            title,
            self.locales,
            questions,
            description,
            source=self.path,
            origin=origin,
            license=license,
        )

    def check_keys(self, node: Map, level: Level) -> None:
        """Unknown keys, with a guess at the intended one; then missing keys not so guessed."""
        allowed = level.keys
        guessed: set[str] = set()
        for key, (key_node, _) in node.entries.items():
            if key in allowed:
                continue
            match = difflib.get_close_matches(key, allowed, n=1)
            if match:
                guessed.add(match[0])
                self.add(key_node, f"unknown key '{key}' (did you mean '{match[0]}'?)")
            else:
                self.add(key_node, f"unknown key '{key}'; {level.noun} has {', '.join(allowed)}")
        for key in level.required:
            if key not in node.entries and key not in guessed:
                self.add(node, f"missing required key '{key}'")

    def check_locales(self, node: Node | None) -> None:
        """Sets `self.locales` only if they are all valid: texts are checked against them."""
        if node is None:
            return
        items = self.items(node, "locales must be a list, such as [en] or [bn, en]")
        if items is None:
            return
        if not items:
            self.add(node, "locales is empty; list at least one, such as [en]")
            return
        before = len(self.problems)
        found: list[str] = []
        for item in items:
            code = item.text.strip() if isinstance(item, Scalar) and not is_blank(item) else ""
            if not code:
                self.add(item, "a locale must be a language code such as en, bn or pt-BR")
            elif not LOCALE_PATTERN.fullmatch(code):
                self.add(item, f"locale '{code}' is not a language code like en, bn or pt-BR")
            elif code in found:
                self.add(item, f"locale '{code}' is listed twice")
            else:
                found.append(code)
        if len(self.problems) == before:
            self.locales = tuple(found)

    def check_deck_id(self, node: Node | None) -> str | None:
        """The deck id, written or else the file name; remembered for cross-file duplicates."""
        if node is None:
            at: At = At(1, 1)
            deck_id = self.identifier(self.stem, at, "deck id", " (from the file name)")
        elif isinstance(node, Scalar) and not is_blank(node):
            at = node
            deck_id = self.identifier(node.text, node, "deck id")
        else:
            self.add(node, "deck id must be a word such as model-parallelism")
            return None
        if deck_id in DECK.field("id").reserved:
            self.add(at, f"deck id '{deck_id}' is reserved (a word of the schedule command)")
            return None
        if deck_id is not None:
            self.deck_id, self.id_at = deck_id, (at.line, at.column)
        return deck_id

    # Values of any level

    def identifier(self, value: str, at: At, label: str, origin: str = "") -> str | None:
        if not ID_PATTERN.fullmatch(value):
            self.add(
                at,
                f"{label} '{value}'{origin} must use only a-z, 0-9 and '-', and not start with '-'",
            )
        elif len(value) > MAX_ID_LENGTH:
            self.add(at, f"{label}{origin} is {len(value)} characters; at most {MAX_ID_LENGTH}")
        else:
            return value
        return None

    def items(self, node: Node, message: str) -> tuple[Node, ...] | None:
        """A list's items; an empty value counts as an empty list."""
        if isinstance(node, Seq):
            return node.items
        if isinstance(node, Scalar) and node.value is None:
            return ()
        self.add(node, message)
        return None

    def flag(self, node: Node | None, key: str, default: bool) -> bool:
        if node is None:
            return default
        if isinstance(node, Scalar) and isinstance(node.value, bool):
            return node.value
        self.add(node, f"{key} must be true or false")
        return default

    def field_string(self, mapping: Map, field: Field) -> str | None:
        """A plain string (the same in every locale), if the mapping has the field."""
        node = mapping.get(field.name)
        if node is None:
            return None
        if not isinstance(node, Scalar):
            self.add(node, f"{field.name} must be a string")
            return None
        if is_blank(node):
            self.add(node, f"{field.name} is empty")
            return None
        value = node.text.strip()
        if field.max_chars is not None and len(value) > field.max_chars:
            self.add(node, f"{field.name} is {len(value)} characters; at most {field.max_chars}")
            return None
        return value

    # Texts

    def field_text(self, mapping: Map, field: Field, label: str = "") -> dict[str, str] | None:
        """The text of the field, if the mapping has it, within the field's limit per locale."""
        node = mapping.get(field.name)
        return None if node is None else self.text(node, label or field.name, field.max_chars)

    def text(self, node: Node, label: str, limit: int | None = None) -> dict[str, str] | None:
        """A text in every deck locale; a plain string only in a one-locale deck."""
        before = len(self.problems)
        if isinstance(node, Map):
            found = self.localized(node, label)
        elif isinstance(node, Scalar):
            found = self.plain(node, label)
        else:
            self.add(node, f"{label} must be a string or a mapping of locale to string")
            return None
        if found is None:
            return None
        texts, places = found
        self.check_lengths(texts, places, label, limit)
        if len(self.problems) > before or self.locales is None:
            return None
        return {locale: texts[locale] for locale in self.locales}

    def plain(self, node: Scalar, label: str) -> tuple[dict[str, str], dict[str, At]] | None:
        if is_blank(node):
            self.add(node, f"{label} is empty")
            return None
        if self.locales is None:
            return None
        if len(self.locales) > 1:
            shape = ", ".join(f"{locale}: ..." for locale in self.locales)
            self.add(
                node,
                f"{label} is a plain string, but the deck has locales "
                f"{', '.join(self.locales)}: write {{{shape}}}",
            )
            return None
        return {self.locales[0]: node.text.strip()}, {self.locales[0]: node}

    def localized(self, node: Map, label: str) -> tuple[dict[str, str], dict[str, At]] | None:
        if not node.entries:
            self.add(node, f"{label} is empty")
            return None
        missing = [loc for loc in self.locales or () if loc not in node.entries]
        guessed: set[str] = set()
        texts: dict[str, str] = {}
        places: dict[str, At] = {}
        for locale, (key, value) in node.entries.items():
            if self.locales is not None and locale not in self.locales:
                guessed.update(self.unknown_locale(key, label, missing))
            elif not isinstance(value, Scalar):
                self.add(value, f"{label} in '{locale}' must be a string")
            elif is_blank(value):
                self.add(value, f"{label} in '{locale}' is empty")
            else:
                texts[locale], places[locale] = value.text.strip(), value
        for locale in missing:
            if locale not in guessed:
                self.add(node, f"{label} is missing locale '{locale}'")
        return texts, places

    def unknown_locale(self, key: Scalar, label: str, missing: list[str]) -> list[str]:
        """Reports a locale the deck lacks, guessing among the missing ones; returns the guess."""
        assert self.locales is not None
        message = (
            f"{label} has locale '{key.text}', which is not one of the deck's locales "
            f"({', '.join(self.locales)})"
        )
        match = difflib.get_close_matches(key.text, missing, n=1)
        self.add(key, f"{message}; did you mean '{match[0]}'?" if match else message)
        return match

    def check_lengths(
        self, texts: dict[str, str], places: dict[str, At], label: str, limit: int | None
    ) -> None:
        for locale, text in texts.items():
            if limit is not None and len(text) > limit:
                self.add(
                    places[locale],
                    f"{label} in '{locale}' is {len(text)} characters; at most {limit}",
                )
