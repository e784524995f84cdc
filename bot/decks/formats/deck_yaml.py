"""A loaded deck written back as a deck file (`quizbot export --deck ID --format yaml`): the
format the bot loads and `quizbot validate` checks, so a team can keep a deck made in chat
(its approved suggestions) in git beside its other decks.

A text the deck holds in one language only (a suggestion is written in one) is the same in
each of its locales; the file says so in `lint: {ignore: [...]}` for the explanation and the
whys, so `validate --strict` does not ask for a translation nobody wrote.
"""

from __future__ import annotations

from typing import Any

from bot.decks.formats.writer import render_deck
from bot.decks.model import Deck, Localized, Question

COPIED = ["missing-explanation", "missing-why"]


def deck_yaml(deck: Deck, comments: list[str]) -> str:
    """The YAML text of `deck`, after `comments` as # lines."""
    mapping: dict[str, Any] = {"id": deck.id, "title": _texts(deck, deck.title)}
    if deck.description:
        mapping["description"] = _texts(deck, deck.description)
    mapping["locales"] = list(deck.locales)
    if deck.origin:
        mapping["source"] = deck.origin
    if deck.license:
        mapping["license"] = deck.license
    mapping["questions"] = [_question(deck, q) for q in deck.questions]
    return render_deck(mapping, comments)


def _texts(deck: Deck, text: Localized) -> str | dict[str, str]:
    if len(deck.locales) == 1:
        return text[deck.locales[0]]
    return {locale: text[locale] for locale in deck.locales}


def _copied(deck: Deck, question: Question) -> bool:
    """Whether the question is written in one language only (each locale the same)."""
    texts = [question.explanation, *(c.why for c in question.choices if c.why)]
    return len(deck.locales) > 1 and any(len(set(t.values())) == 1 for t in texts)


def _question(deck: Deck, question: Question) -> dict[str, Any]:
    choices: list[Any] = [
        {"text": _texts(deck, c.text), "why": _texts(deck, c.why)}
        if c.why
        else _texts(deck, c.text)
        for c in question.choices
    ]
    found: dict[str, Any] = {
        "id": question.id,
        "text": _texts(deck, question.text),
        "choices": choices,
        "answer": question.answer,
        "explanation": _texts(deck, question.explanation),
    }
    if question.tags:
        found["tags"] = list(question.tags)
    if not question.shuffle:
        found["shuffle"] = False
    if question.seconds is not None:
        found["seconds"] = question.seconds
    if _copied(deck, question):
        found["lint"] = {"ignore": list(COPIED)}
    return found
