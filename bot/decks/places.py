"""Where each part of a loaded deck sits in its file, and what its author told the lint to ignore.

The engine's `Deck` carries no positions (players never need them); the lint does, to point a
warning at the question, choice or text it is about, as problems do. The checker records these
as it builds each question.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.decks.tree import At, Map, Node


@dataclass(frozen=True)
class TextPlace:
    """A localized text's place: the value as a whole, and each locale's string."""

    at: At
    locales: Mapping[str, At] = field(default_factory=dict)

    def of(self, locale: str) -> At:
        return self.locales.get(locale, self.at)


def text_place(node: Node) -> TextPlace:
    if isinstance(node, Map):
        return TextPlace(node, {locale: value for locale, (_, value) in node.entries.items()})
    return TextPlace(node)


@dataclass(frozen=True)
class ChoicePlace:
    text: TextPlace
    why: TextPlace | None = None


@dataclass(frozen=True)
class QuestionPlace:
    at: At
    text: TextPlace
    choices_key: At
    choices: tuple[ChoicePlace, ...]
    explanation: TextPlace
    ignore: tuple[tuple[str, At], ...] = ()
    """The warning names of `lint: {ignore: [...]}`, each with its place."""

    @property
    def ignored(self) -> frozenset[str]:
        return frozenset(name for name, _ in self.ignore)


@dataclass(frozen=True)
class DeckPlaces:
    path: str
    questions_key: At
    questions: Mapping[str, QuestionPlace]
    """By question id."""
