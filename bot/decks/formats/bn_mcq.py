"""Bengali exam text: multiple-choice questions as Bangladeshi question banks write them.

    ১. বাংলাদেশের জাতীয় ফুল কোনটি?
    ক) গোলাপ   খ) শাপলা
    গ) রজনীগন্ধা   ঘ) সূর্যমুখী
    উত্তর: খ
    ব্যাখ্যা: শাপলা বাংলাদেশের জাতীয় ফুল।

A question starts with its number (`১.`, `১।`, `1.`, `প্রশ্ন ১:`), or after a finished question.
Choices are labelled `ক)`, `(ক)`, `ক.` or `ক।`, one or several to a line. The answer
(`উত্তর:` or `উত্তরঃ`, also `সঠিক উত্তর:`) is a label, a label and the text, or the text; or it
comes in an answer key, a line of pairs such as `উত্তরমালা: ১-খ, ২-গ, ৩-ক` (anywhere in the
file, for the questions of those numbers). An explanation (`ব্যাখ্যা:`) runs to the next blank
line or question. The deck is Bengali only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.decks.formats.draft import DraftChoice, DraftDeck, DraftQuestion

FORMAT_NAME = "Bengali exam text"
LOCALE = "bn"
LABELS = "কখগঘঙ"

_SEPARATOR = r"(?:\s*[:ঃ=–-]|ঃ)"
_DIGITS = r"([০-৯0-9]{1,6})(?![০-৯0-9])"
"""A question number: at most six digits, so a line of 10 MiB of digits is no number (and
never reaches `int`, which refuses 4,300 digits)."""
_NUMBER = re.compile(
    rf"^\s*(?:প্রশ্ন\s*[-–]?\s*{_DIGITS}\s*[.)।:ঃ-]?|(?:Q\s*)?{_DIGITS}\s*[.)।:ঃ])\s*(.*)$"
)
_CHOICE = re.compile(r"(?:^|(?<=\s))\(?([কখগঘঙ])\s*[).।]\s*")
_ANSWER = re.compile(rf"^\s*(?:সঠিক\s*)?উত্তর{_SEPARATOR}\s*(.*)$")
_EXPLANATION = re.compile(rf"^\s*ব্যাখ্যা{_SEPARATOR}\s*(.*)$")
_KEY_PAIR = re.compile(rf"(?<![০-৯0-9]){_DIGITS}\s*[.)।:-]\s*\(?([কখগঘঙ])\)?(?![^\s,;।|])")
"""One pair of an answer key: "১-খ", "২. গ", "3:(ক)". It starts only where a run of digits
does: tried inside a long run, `[0-9]+` took each tail of it in turn, quadratic in its length
(a 40 KB line of digits took 18 s)."""
_KEY_HEADING = re.compile(r"^(?:উত্তরমালা|উত্তর\s*সংকেত|উত্তরপত্র)\s*[:ঃ]?$")
_LABEL_ANSWER = re.compile(r"^\(?([কখগঘঙ])\s*(?:[).।]\s*(.*)|$)")


@dataclass
class _Block:
    line: int
    number: int | None
    text: list[str] = field(default_factory=list)
    choices: list[tuple[str, list[str]]] = field(default_factory=list)
    """Each label with the parts of its text (a choice may run over several lines)."""
    answer: str | None = None
    explanation: list[str] = field(default_factory=list)
    in_explanation: bool = False

    def started(self) -> bool:
        return bool(self.choices or self.answer is not None or self.explanation)

    @property
    def numbered(self) -> bool:
        return self.number is not None


def read_bn_mcq(text: str, locale: str) -> DraftDeck:
    """Every question-like block, imported or skipped with its line; always in Bengali."""
    deck = DraftDeck(locales=[LOCALE])
    blocks: list[_Block] = []
    key: dict[int, str] = {}
    current: _Block | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            if current is not None:
                current.in_explanation = False
            continue
        pairs = _KEY_PAIR.findall(line)
        if len(pairs) >= 2 or _KEY_HEADING.match(line):
            key.update((int(question), label) for question, label in pairs)
            continue
        numbered = _NUMBER.match(line)
        if numbered is not None and not _starts_with_choice(line):
            digits = numbered.group(1) or numbered.group(2)
            current = _Block(number, int(digits), [numbered.group(3).strip()])
            blocks.append(current)
            continue
        if current is None or (current.answer is not None and not current.in_explanation):
            if not any(pattern.match(line) for pattern in (_CHOICE, _ANSWER, _EXPLANATION)):
                current = _Block(number, None, [line])
                blocks.append(current)
                continue
            if current is None:
                current = _Block(number, None)
                blocks.append(current)
        _add_line(current, line)
    for position, block in enumerate(blocks):
        if block.answer is None and block.number in key:
            block.answer = key[block.number]
        _finish(block, position, deck)
    return deck


def _starts_with_choice(line: str) -> bool:
    return _CHOICE.match(line) is not None


def _add_line(block: _Block, line: str) -> None:
    answer = _ANSWER.match(line)
    if answer is not None:
        block.answer = answer.group(1).strip()
        block.in_explanation = False
        return
    explanation = _EXPLANATION.match(line)
    if explanation is not None:
        block.explanation.append(explanation.group(1).strip())
        block.in_explanation = True
        return
    if block.in_explanation:
        block.explanation.append(line)
        return
    marks = list(_CHOICE.finditer(line))
    if marks and marks[0].start() == 0:
        for mark, following in zip(marks, [*marks[1:], None], strict=True):
            end = following.start() if following is not None else len(line)
            block.choices.append((mark.group(1), [line[mark.end() : end].strip()]))
        return
    if block.choices:
        block.choices[-1][1].append(line)
    else:
        block.text.append(line)


def _finish(block: _Block, position: int, deck: DraftDeck) -> None:
    text = " ".join(part for part in block.text if part)
    if not block.started():
        if position == 0 and not block.numbered and not deck.title:
            deck.title = {LOCALE: text}
            return
        deck.skip(block.line, "a question with no choices (ক) খ) গ) ঘ)) and no উত্তর line")
        return
    labels = [label for label, _ in block.choices]
    expected = list(LABELS[: len(labels)])
    if labels != expected:
        shown, wanted = " ".join(labels), " ".join(expected)
        deck.skip(block.line, f"its choices are labelled {shown}, not {wanted}")
        return
    if block.answer is None:
        deck.skip(block.line, "it has no উত্তর line and no answer in an answer key")
        return
    choices = [(label, " ".join(part for part in parts if part)) for label, parts in block.choices]
    answer = _answer(block.answer, choices)
    if answer is None:
        deck.skip(block.line, f"its answer '{block.answer}' names none of its choices")
        return
    explanation = " ".join(part for part in block.explanation if part)
    deck.questions.append(
        DraftQuestion(
            line=block.line,
            text={LOCALE: text},
            choices=[DraftChoice({LOCALE: choice}) for _, choice in choices],
            answer=answer,
            explanation={LOCALE: explanation} if explanation else {},
        )
    )


def _answer(value: str, choices: list[tuple[str, str]]) -> int | None:
    """The choice an answer names: by label (with or without its text), or by its text."""
    texts = [" ".join(text.split()).casefold() for _, text in choices]
    wanted = " ".join(value.rstrip("।.").split()).casefold()
    if wanted in texts:
        return texts.index(wanted)
    labelled = _LABEL_ANSWER.match(value)
    if labelled is not None:
        index = LABELS.index(labelled.group(1))
        rest = " ".join((labelled.group(2) or "").rstrip("।.").split()).casefold()
        if index < len(choices) and (not rest or rest == texts[index]):
            return index
    return None
