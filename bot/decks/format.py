"""The deck file format, described once: the keys of a deck, a question and a choice, and limits.

The checker takes its key lists, required keys and limits from here and `schema.py` generates the
JSON Schema from it, so what `quizbot validate` accepts and what editors are told cannot drift.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

MAX_FILE_BYTES = 1024 * 1024
MAX_NODES = 100_000
MAX_DEPTH = 50
MAX_ID_LENGTH = 64
MAX_TITLE_CHARS = 200
MAX_QUESTION_CHARS = 2900
"""Text plus lettered choices: what a Slack section or a Discord embed can show, with room."""
MAX_EXPLANATION_CHARS = 2000
MAX_WHY_CHARS = 1000
MAX_SOURCE_CHARS = 500
MAX_LICENSE_CHARS = 200
MIN_CHOICES = 2
MAX_CHOICES = 5
GAME_SECONDS = 20
"""A live game's time per question unless its starter says otherwise (`bot.domain.game`'s
SECONDS; a test keeps the two equal): the lint warns about questions that take longer to read."""
MIN_SECONDS = 10
MAX_SECONDS = 300
"""A question's own `seconds`: the game's shortest timer, and five minutes."""

ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*")
LOCALE_PATTERN = re.compile(r"[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?")
RESERVED_DECK_IDS = frozenset({"daily", "weekdays"})
"""Words of the schedule command, so no deck may be called one."""

Kind = Literal[
    "id",
    "text",
    "string",
    "locales",
    "flag",
    "questions",
    "choices",
    "answer",
    "tags",
    "lint",
    "names",
    "seconds",
]
"""What a key holds. A text is localized (a string per deck locale); a string is one plain value."""


@dataclass(frozen=True)
class Field:
    """One key a mapping in a deck file may have."""

    name: str
    kind: Kind
    description: str = ""
    required: bool = False
    max_chars: int | None = None
    """For a text, per locale; for a string, in all."""
    reserved: frozenset[str] = frozenset()
    """Values an id may not take."""


@dataclass(frozen=True)
class Level:
    """The keys of one kind of mapping: a deck, a question, or a choice in its {text, why} form."""

    noun: str
    """As in "unknown key 'x'; a deck has id, title, ..."."""
    fields: tuple[Field, ...]
    description: str = ""

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(field.name for field in self.fields)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(field.name for field in self.fields if field.required)

    @property
    def needs(self) -> str:
        """The required keys for messages, e.g. "title, locales and questions"."""
        *first, last = self.required
        return f"{', '.join(first)} and {last}" if first else last

    def field(self, name: str) -> Field:
        return next(field for field in self.fields if field.name == name)


DECK = Level(
    "a deck",
    (
        Field(
            "id",
            "id",
            "Optional; defaults to the file name. Never change it.",
            reserved=RESERVED_DECK_IDS,
        ),
        Field("title", "text", "The deck's name.", required=True, max_chars=MAX_TITLE_CHARS),
        Field("description", "text", "What the deck is about."),
        Field(
            "locales",
            "locales",
            "Every text has these; the first is the deck's default.",
            required=True,
        ),
        Field("shuffle", "flag", "Shuffle choice order per post (default true)."),
        Field("questions", "questions", required=True),
        Field(
            "source",
            "string",
            "Where the questions came from, e.g. "
            '"Imported from quiz.gift (Moodle GIFT) on 2026-12-03".',
            max_chars=MAX_SOURCE_CHARS,
        ),
        Field(
            "license",
            "string",
            'The license of the questions, e.g. "CC BY-SA 4.0".',
            max_chars=MAX_LICENSE_CHARS,
        ),
    ),
    "One deck of quiz questions (questions/*.yaml).",
)

QUESTION = Level(
    "a question",
    (
        Field(
            "id",
            "id",
            "Unique in the deck; answers are stored by it, so never reuse it.",
            required=True,
        ),
        Field("text", "text", required=True),
        Field("choices", "choices", required=True),
        Field(
            "answer",
            "answer",
            "Index of the right choice as written, counting from 0.",
            required=True,
        ),
        Field(
            "explanation",
            "text",
            "Shown after answering; it teaches.",
            required=True,
            max_chars=MAX_EXPLANATION_CHARS,
        ),
        Field("tags", "tags"),
        Field("shuffle", "flag", "Overrides the deck's shuffle."),
        Field("lint", "lint", "What `quizbot validate` should not warn about for this question."),
        Field(
            "seconds",
            "seconds",
            f"The least time this question needs in a game, {MIN_SECONDS} to {MAX_SECONDS} "
            f"seconds (reading, and any arithmetic); a game gives it at least this.",
        ),
    ),
)

LINT = Level(
    "lint",
    (
        Field(
            "ignore",
            "names",
            "Names of warnings to silence for this question, e.g. [length-tell].",
        ),
    ),
)

CHOICE = Level(
    "a choice",
    (
        Field("text", "text", required=True),
        Field("why", "text", "Why this wrong choice is wrong.", max_chars=MAX_WHY_CHARS),
    ),
)
