"""The JSON Schema (draft 2020-12) of a deck file, for editors: `quizbot schema` prints it.

Hand-written rather than generated, so it says exactly what `bot.core.deckfile` accepts:
a text is a plain string (one-locale decks) or a mapping of locale to string, and a choice
is a text or {text, why}. Rules a schema cannot express (every text has every deck locale,
answer within the choices, ids unique) are left to `quizbot validate`.
"""

from __future__ import annotations

from typing import Any

from bot.core.deck import MAX_CHOICES, MIN_CHOICES, RESERVED_DECK_IDS
from bot.core.deckfile import (
    ID_PATTERN,
    LOCALE_PATTERN,
    MAX_EXPLANATION_CHARS,
    MAX_ID_LENGTH,
    MAX_TITLE_CHARS,
    MAX_WHY_CHARS,
)

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def deck_json_schema() -> dict[str, Any]:
    """A fresh schema dict each call, so callers may change theirs."""
    return {
        "$schema": SCHEMA_DIALECT,
        "title": "quizbot deck",
        "description": "One deck of quiz questions (questions/*.yaml).",
        "type": "object",
        "required": ["title", "locales", "questions"],
        "additionalProperties": False,
        "properties": {
            "id": {
                "$ref": "#/$defs/id",
                "not": {"enum": sorted(RESERVED_DECK_IDS)},
                "description": "Optional; defaults to the file name. Never change it.",
            },
            "title": _text(MAX_TITLE_CHARS, "The deck's name."),
            "description": _text(None, "What the deck is about."),
            "locales": {
                "type": "array",
                "description": "Every text has these; the first is the deck's default.",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"type": "string", "pattern": _anchored(LOCALE_PATTERN.pattern)},
            },
            "shuffle": {
                "type": "boolean",
                "description": "Shuffle choice order per post (default true).",
            },
            "questions": {
                "type": "array",
                "minItems": 1,
                "items": {"$ref": "#/$defs/question"},
            },
        },
        "$defs": _definitions(),
    }


def _definitions() -> dict[str, Any]:
    return {
        "id": {
            "type": "string",
            "pattern": _anchored(ID_PATTERN.pattern),
            "maxLength": MAX_ID_LENGTH,
        },
        "text": {
            "description": "A plain string (one-locale decks) or {locale: string}.",
            "anyOf": [
                {"type": ["string", "number"], "pattern": r"\S"},
                {
                    "type": "object",
                    "minProperties": 1,
                    "propertyNames": {"pattern": _anchored(LOCALE_PATTERN.pattern)},
                    "additionalProperties": {"type": ["string", "number"], "pattern": r"\S"},
                },
            ],
        },
        "choice": {
            "anyOf": [
                {"$ref": "#/$defs/text"},
                {
                    "type": "object",
                    "required": ["text"],
                    "additionalProperties": False,
                    "properties": {
                        "text": {"$ref": "#/$defs/text"},
                        "why": _text(MAX_WHY_CHARS, "Why this wrong choice is wrong."),
                    },
                },
            ],
        },
        "question": _question(),
    }


def _question() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["id", "text", "choices", "answer", "explanation"],
        "additionalProperties": False,
        "properties": {
            "id": {
                "$ref": "#/$defs/id",
                "description": "Unique in the deck; answers are stored by it, so never reuse it.",
            },
            "text": {"$ref": "#/$defs/text"},
            "choices": {
                "type": "array",
                "minItems": MIN_CHOICES,
                "maxItems": MAX_CHOICES,
                "items": {"$ref": "#/$defs/choice"},
            },
            "answer": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CHOICES - 1,
                "description": "Index of the right choice as written, counting from 0.",
            },
            "explanation": _text(MAX_EXPLANATION_CHARS, "Shown after answering; it teaches."),
            "tags": {"type": "array", "items": {"type": ["string", "number"]}},
            "shuffle": {"type": "boolean", "description": "Overrides the deck's shuffle."},
        },
    }


def _text(max_length: int | None, description: str) -> dict[str, Any]:
    """A localized text; the length limit applies per locale, which only validate checks."""
    limit = f" At most {max_length} characters per locale." if max_length else ""
    return {"$ref": "#/$defs/text", "description": description + limit}


def _anchored(pattern: str) -> str:
    """JSON Schema patterns search, Python's fullmatch anchors: anchor them to agree."""
    return f"^(?:{pattern})$"
