"""The JSON Schema (draft 2020-12) of a deck file, for editors: `quizbot schema` prints it.

Generated from `format.py`, the description the checker uses too, so the two cannot drift: a text
is a plain string (one-locale decks) or a mapping of locale to string, and a choice is a text or
{text, why}. Rules a schema cannot express (every text has every deck locale, answer within the
choices, ids unique) are left to `quizbot validate`.
"""

from __future__ import annotations

from typing import Any

from bot.decks.format import (
    CHOICE,
    DECK,
    ID_PATTERN,
    LINT,
    LOCALE_PATTERN,
    MAX_CHOICES,
    MAX_ID_LENGTH,
    MAX_SECONDS,
    MIN_CHOICES,
    MIN_SECONDS,
    QUESTION,
    Field,
    Level,
)
from bot.decks.lint import NAMES

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def deck_json_schema() -> dict[str, Any]:
    """A fresh schema dict each call, so callers may change theirs."""
    return {
        "$schema": SCHEMA_DIALECT,
        "title": "quizbot deck",
        "description": DECK.description,
        **_object(DECK),
        "$defs": {
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
            "choice": {"anyOf": [{"$ref": "#/$defs/text"}, _object(CHOICE)]},
            "question": _object(QUESTION),
        },
    }


def _object(level: Level) -> dict[str, Any]:
    return {
        "type": "object",
        "required": list(level.required),
        "additionalProperties": False,
        "properties": {field.name: _property(field) for field in level.fields},
    }


def _property(field: Field) -> dict[str, Any]:
    """The schema of one key; the description goes where it reads best in the printed schema."""
    about = {"description": field.description} if field.description else {}
    match field.kind:
        case "id":
            reserved = {"not": {"enum": sorted(field.reserved)}} if field.reserved else {}
            return {"$ref": "#/$defs/id", **reserved, **about}
        case "text":
            return _text(field)
        case "string":
            return {
                "type": ["string", "number"],
                "pattern": r"\S",
                **({"maxLength": field.max_chars} if field.max_chars else {}),
                **about,
            }
        case "locales":
            return {
                "type": "array",
                **about,
                "minItems": 1,
                "uniqueItems": True,
                "items": {"type": "string", "pattern": _anchored(LOCALE_PATTERN.pattern)},
            }
        case "flag":
            return {"type": "boolean", **about}
        case "questions":
            return {"type": "array", **about, "minItems": 1, "items": {"$ref": "#/$defs/question"}}
        case "choices":
            return {
                "type": "array",
                **about,
                "minItems": MIN_CHOICES,
                "maxItems": MAX_CHOICES,
                "items": {"$ref": "#/$defs/choice"},
            }
        case "answer":
            return {"type": "integer", "minimum": 0, "maximum": MAX_CHOICES - 1, **about}
        case "tags":
            return {"type": "array", **about, "items": {"type": ["string", "number"]}}
        case "lint":
            return {**_object(LINT), **about}
        case "names":
            return {"type": "array", **about, "items": {"enum": list(NAMES)}}
        case "seconds":
            return {"type": "integer", "minimum": MIN_SECONDS, "maximum": MAX_SECONDS, **about}


def _text(field: Field) -> dict[str, Any]:
    """A localized text; the length limit applies per locale, which only validate checks."""
    limit = f" At most {field.max_chars} characters per locale." if field.max_chars else ""
    about = (field.description + limit).strip()
    return {"$ref": "#/$defs/text", **({"description": about} if about else {})}


def _anchored(pattern: str) -> str:
    """JSON Schema patterns search, Python's fullmatch anchors: anchor them to agree."""
    return f"^(?:{pattern})$"
