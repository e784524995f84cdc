"""Aiken, read as Moodle reads it: a question line, choice lines, then `ANSWER: X`.

A choice line is a capital letter, ')' or '.', then the choice (Moodle accepts it with or without
a space); unlike Moodle, the letters must run A, B, C... in order, so a question line such as
"U.S. presidents..." is a question, not a choice. Any other line starts a new question, and one
left without its ANSWER line is reported. `ANSWER: A,C` (several right answers) is skipped. Aiken
is plain text: a '<' in it is a '<', not HTML. It has no feedback, so every explanation is missing.

Dialects other tools write are read too: the answer line in another language (`RESPUESTA: B`,
`JAWABAN: B`, `VÁLASZ: B`, `উত্তর: B`...), choices lettered a, b, c or numbered 1, 2, 3 (the
answer then names them the same way), and `NUMBERING:` lines, which only say how to label
choices and are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.decks.foreign import ANSWER_WORDS
from bot.decks.formats.draft import DraftChoice, DraftDeck, DraftQuestion, settle_true_false

FORMAT_NAME = "Aiken"

_CHOICE = re.compile(r"^([A-Za-z1-9])[).][ \t]?(.*)$")
_ANSWER = re.compile(
    rf"^(?:{'|'.join([*ANSWER_WORDS, *(word.title() for word in ANSWER_WORDS)])})\s*:\s*(.*)$"
)
_NUMBERING = re.compile(r"^NUMBERING:", re.IGNORECASE)
_SEVERAL = re.compile(r"[A-Za-z1-9](?:\s*(?:(?:[,;/&+]|and)\s*)?[A-Za-z1-9])+")
r"""`ANSWER: A,B,C` (or "A, C", "A and C"): a multiple-response question. One `\s*` per run
of spaces: two in a row would try every split of a long run, quadratic."""
_RUNS = ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", "123456789")


@dataclass
class _Open:
    line: int
    text: str
    choices: list[tuple[str, str]] = field(default_factory=list)


def read_aiken(text: str, locale: str) -> DraftDeck:
    """Every complete question in an Aiken file; each incomplete one is reported at its line."""
    deck = DraftDeck(locales=[locale])
    lines = [(n, raw.strip()) for n, raw in enumerate(text.splitlines(), start=1)]
    lines = [
        (number, line) for number, line in lines if len(line) >= 2 and not _NUMBERING.match(line)
    ]
    current: _Open | None = None
    for index, (number, line) in enumerate(lines):
        following = lines[index + 1][1] if index + 1 < len(lines) else ""
        label = _label(line, current, following)
        answer = _ANSWER.match(line)
        if label is not None:
            if current is None:
                deck.skip(number, "a choice line with no question line before it")
            else:
                current.choices.append((label, line[2:].strip()))
        elif answer is not None:
            if current is None:
                deck.skip(number, "an ANSWER line with no question line before it")
            else:
                _finish(current, answer.group(1).strip(), number, locale, deck)
            current = None
        else:
            if current is not None:
                deck.skip(current.line, _unfinished(current, line, number))
            current = _Open(number, line)
    if current is not None:
        deck.skip(current.line, "the file ends before its ANSWER line")
    return deck


def _label(line: str, current: _Open | None, following: str) -> str | None:
    """The choice label `line` starts with, if it is the next one; None if it is not a choice.

    Moodle takes any "X." or "X)" line for a choice, so a question such as "U.S. presidents..."
    becomes a choice of the one before. Here the labels must run A, B, C... (or a, b, c, or
    1, 2, 3) from the question line, and a line labelled first that is followed by another
    first-labelled line is the question itself.
    """
    match = _CHOICE.match(line)
    if match is None:
        return None
    label = match.group(1)
    expected = _next_label(current, label)
    if label != expected:
        return None
    after = _CHOICE.match(following)
    if expected in "Aa1" and after is not None and after.group(1) == expected:
        return None
    return expected


def _next_label(current: _Open | None, label: str) -> str:
    """The label the next choice must have: the first of `label`'s run, or the one after the
    current question's last."""
    if current is not None and current.choices:
        last = current.choices[-1][0]
        run = next(run for run in _RUNS if last in run)
        index = run.index(last) + 1
        return run[index] if index < len(run) else ""
    return next(run for run in _RUNS if label in run)[0]


def _unfinished(current: _Open, line: str, number: int) -> str:
    reason = f"it has no ANSWER line before the next question (line {number})"
    match = _CHOICE.match(line)
    if match is not None and current.choices:
        expected = _next_label(current, match.group(1))
        reason += f", read as a question since its label {match.group(1)} is not {expected}"
    return reason


def _finish(question: _Open, answer: str, line: int, locale: str, deck: DraftDeck) -> None:
    letters = [label for label, _ in question.choices]
    if _SEVERAL.fullmatch(answer):
        deck.skip(
            question.line,
            f"ANSWER: {answer} on line {line} marks several right answers; "
            f"a deck question has exactly one",
        )
        return
    wanted = answer[:1]
    if wanted not in letters and wanted.swapcase() in letters:
        wanted = wanted.swapcase()  # "ANSWER: B" for choices a), b), c)
    if wanted not in letters:
        shown = ", ".join(letters) or "none"
        deck.skip(
            question.line, f"ANSWER: {answer or '(empty)'} on line {line} names no choice ({shown})"
        )
        return
    draft = DraftQuestion(
        line=question.line,
        text={locale: question.text},
        choices=[DraftChoice({locale: text}) for _, text in question.choices],
        answer=letters.index(wanted),
    )
    settle_true_false(draft, locale)
    deck.questions.append(draft)
