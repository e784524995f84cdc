"""Aiken, read as Moodle reads it: a question line, choice lines, then `ANSWER: X`.

A choice line is a capital letter, ')' or '.', then the choice (Moodle accepts it with or without
a space). Any other line starts a new question, dropping one left without its ANSWER line. Aiken
is plain text: a '<' in it is a '<', not HTML. It has no feedback, so every explanation is missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.decks.formats.draft import DraftChoice, DraftDeck, DraftQuestion

FORMAT_NAME = "Aiken"

_CHOICE = re.compile(r"^([A-Z])[).][ \t]?(.*)$")
_ANSWER = re.compile(r"^ANSWER:\s*(.*)$")


@dataclass
class _Open:
    line: int
    text: str
    choices: list[tuple[str, str]] = field(default_factory=list)


def read_aiken(text: str, locale: str) -> DraftDeck:
    """Every complete question in an Aiken file; each incomplete one is reported at its line."""
    deck = DraftDeck(locales=[locale])
    current: _Open | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if len(line) < 2:
            continue
        choice, answer = _CHOICE.match(line), _ANSWER.match(line)
        if choice is not None:
            if current is None:
                deck.skip(number, "a choice line with no question line before it")
            else:
                current.choices.append((choice.group(1), choice.group(2).strip()))
        elif answer is not None:
            if current is None:
                deck.skip(number, "an ANSWER line with no question line before it")
            else:
                _finish(current, answer.group(1).strip(), number, locale, deck)
            current = None
        else:
            if current is not None:
                deck.skip(
                    current.line, f"it has no ANSWER line before the next question (line {number})"
                )
            current = _Open(number, line)
    if current is not None:
        deck.skip(current.line, "the file ends before its ANSWER line")
    return deck


def _finish(question: _Open, letter: str, line: int, locale: str, deck: DraftDeck) -> None:
    letters = [label for label, _ in question.choices]
    wanted = letter[:1]
    if wanted not in letters:
        shown = ", ".join(letters) or "none"
        deck.skip(
            question.line, f"ANSWER: {letter or '(empty)'} on line {line} names no choice ({shown})"
        )
        return
    deck.questions.append(
        DraftQuestion(
            line=question.line,
            text={locale: question.text},
            choices=[DraftChoice({locale: text}) for _, text in question.choices],
            answer=letters.index(wanted),
        )
    )
