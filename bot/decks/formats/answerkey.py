"""Answers as quiz JSON files give them: a choice's text, a letter (A-E, or Bengali ক-ঙ),
"Option 3", or a number counted from 0 or from 1, decided once for the whole file from the data
(a 0 means 0-based; an answer equal to the number of choices means 1-based) and said in a
warning."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.decks.foreign import fold_key
from bot.decks.formats.draft import DraftChoice, DraftDeck, Texts

_LETTER = re.compile(
    r"^(?i:option|choice|ans|answer)?\s*\(?([A-Ea-eকখগঘঙ])(?:\s*[).:।]\s*|\s+|$)(.*)$", re.DOTALL
)
_BENGALI_LETTERS = "কখগঘঙ"
_NAMED_NUMBER = re.compile(r"^(?i:option|choice|answer|ans)[\s_-]*(\d{1,3})$")
""""Option 2", "choice_3": named as people count, from 1, whatever the file's numbers do."""
_MAX_DIGITS = 6
"""An answer index longer than this names no choice (and Python refuses ints of 4,300 digits)."""


@dataclass
class Pending:
    """A question read up to its answer, which waits until the file's index base is known.

    Texts are keyed by locale when the file gives one text per language, else by "".
    """

    line: int
    text: Texts
    choices: list[DraftChoice]
    labels: dict[str, int] = field(default_factory=dict)
    answer: int | None = None
    raw: Any = None
    explanation: Texts = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    name: str = ""
    source: str = ""


def plain(value: str | int | float) -> str:
    return value.strip() if isinstance(value, str) else str(value)


def number(raw: Any) -> int | None:
    """An answer given as a number (5, 5.0, "5", "৫"), else None."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str) and raw.strip().isdecimal() and len(raw.strip()) <= _MAX_DIGITS:
        return int(raw.strip())
    return None


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def matches_text(raw: Any, question: Pending) -> int | None:
    """The choice whose text (in any of its languages) is `raw`, if one is."""
    if not isinstance(raw, str | int | float) or isinstance(raw, bool):
        return None
    wanted = _folded(plain(raw))
    for index, choice in enumerate(question.choices):
        if any(_folded(text) == wanted for text in choice.text.values()):
            return index
    return None


def index_base(pending: list[Pending], deck: DraftDeck) -> int:
    """0 or 1: how this file counts numeric answers, decided once from all of them and said."""
    numbers = [
        (found, len(question.choices))
        for question in pending
        if question.answer is None
        and (not isinstance(question.raw, str) or matches_text(question.raw, question) is None)
        and (found := number(question.raw)) is not None
    ]
    if not numbers:
        return 0
    if any(found == 0 for found, _ in numbers):
        base, why = 0, "an answer is 0"
    elif any(found == count for found, count in numbers):
        base, why = 1, "an answer equals its question's number of choices"
    elif len(numbers) >= 8:
        base, why = 1, f"none of {len(numbers)} answers is 0"
    else:
        base, why = 0, "nothing in the file says otherwise; check a few answers"
    first = "0" if base == 0 else "1"
    are = "1 answer is a number" if len(numbers) == 1 else f"{len(numbers)} answers are numbers"
    deck.warn(None, f"{are}, read as {base}-based ({first} is the first choice) because {why}")
    return base


def resolve(question: Pending, base: int) -> tuple[int | None, str]:
    """The index of the right choice, or None and why it names none."""
    raw = question.raw
    if isinstance(raw, list):
        if len(raw) != 1:
            return None, f"it has {len(raw)} right answers; a deck question has one"
        raw = raw[0]
    by_text = matches_text(raw, question)
    if by_text is not None and isinstance(raw, str):
        return by_text, ""  # "8" among "6", "8", "10" is the text; 8 (a number) is an index
    count = len(question.choices)
    found = number(raw)
    if found is not None:
        if base <= found < count + base:
            return found - base, ""
        if by_text is not None:
            return by_text, ""
        return None, f"its answer {found} names no choice ({count} choices, counted from {base})"
    if isinstance(raw, str):
        named = _NAMED_NUMBER.match(raw.strip())
        if named is not None and 1 <= int(named.group(1)) <= count:
            return int(named.group(1)) - 1, ""
        match = _LETTER.match(raw.strip())
        if match is not None:
            letter = match.group(1)
            index = letter_index(letter, question)
            if index is not None and index < count:
                rest = match.group(2).strip()
                if not rest or matches_text(rest, question) in (None, index):
                    return index, ""
        shown = raw.strip() if len(raw.strip()) <= 40 else raw.strip()[:37] + "..."
        return None, f"its answer '{shown}' is not one of its choices, a letter or a number"
    return None, f"its answer is {type(raw).__name__}, not a choice's text, letter or number"


def letter_index(letter: str, question: Pending) -> int | None:
    folded = letter.casefold()
    if question.labels:
        for label, index in question.labels.items():
            if fold_key(label) == folded:
                return index
    if letter in _BENGALI_LETTERS:
        return _BENGALI_LETTERS.index(letter)
    return "abcde".index(folded)
