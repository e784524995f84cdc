"""OpenTriviaQA's text files (github.com/uberspot/OpenTriviaQA, CC BY-SA 4.0), one per category:

    #Q Which of these is true about the sleep of zebras?
    ^ They sleep standing up.
    A All of these
    B They sleep standing up.

`#Q` starts a question, whose text runs (blank lines and all) to the `^` line holding the right
answer's text; the choices follow, one per line, lettered A, B, C... A question whose `^`
answer is none of its choices, or a letter that names none, is skipped with its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.decks.formats.draft import DraftChoice, DraftDeck, DraftQuestion, settle_true_false

FORMAT_NAME = "OpenTriviaQA text"
LICENSE = "CC BY-SA 4.0"

_CHOICE = re.compile(r"^([A-J])\s+(\S.*)$")


@dataclass
class _Block:
    line: int
    text: list[str]
    answer: str | None = None
    choices: list[tuple[str, list[str]]] = field(default_factory=list)


def read_opentriviaqa(text: str, locale: str) -> DraftDeck:
    """Every `#Q` block, imported or skipped at its line."""
    deck = DraftDeck(locales=[locale], license=LICENSE)
    block: _Block | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#Q"):
            if block is not None:
                _finish(block, locale, deck)
            block = _Block(number, [line[2:].strip()])
        elif block is None:
            if line:
                deck.skip(number, "a line before the first #Q question")
        elif block.answer is None:
            if line.startswith("^"):
                block.answer = line[1:].strip()
            else:
                block.text.append(line)
        elif line:
            match = _CHOICE.match(line)
            if match is not None:
                block.choices.append((match.group(1), [match.group(2).strip()]))
            elif block.choices:
                block.choices[-1][1].append(line)
    if block is not None:
        _finish(block, locale, deck)
    return deck


def _finish(block: _Block, locale: str, deck: DraftDeck) -> None:
    text = "\n".join(block.text).strip()
    if block.answer is None:
        deck.skip(block.line, "it has no ^ line with its answer")
        return
    labels = "".join(label for label, _ in block.choices)
    choices = [" ".join(parts) for _, parts in block.choices]
    if labels != "ABCDEFGHIJ"[: len(labels)]:
        deck.skip(block.line, f"its choices are lettered {' '.join(labels)}, not from A in order")
        return
    texts = [" ".join(choice.split()).casefold() for choice in choices]
    wanted = " ".join(block.answer.split()).casefold()
    if wanted in texts:
        answer = texts.index(wanted)
    elif len(block.answer) == 1 and block.answer in labels:
        answer = labels.index(block.answer)
    else:
        deck.skip(block.line, f"its answer (^ {block.answer}) is none of its choices")
        return
    draft = DraftQuestion(
        line=block.line,
        text={locale: text},
        choices=[DraftChoice({locale: choice}) for choice in choices],
        answer=answer,
    )
    settle_true_false(draft, locale)
    deck.questions.append(draft)
