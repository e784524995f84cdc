"""CSV files whose columns are named on the command line (`quizbot import FILE --columns ...`):
the general answer to the many CSV layouts in use (forks of Moodle's CSV format, a column of
choices joined by ';' with the answer as text...), instead of one reader per fork.

`--columns` names each column in order: `text` (the question), `choice` (one per choice
column), `choices` (one column holding every choice, separated by '|', ';' or line breaks),
`answer` (a letter A-E, a number 1-5 or a choice's text), `wrong` (a wrong answer, when
`answer` is the right one's text), `explanation`, `tags`, `id`, and `skip` for a column to
leave out. Cells are separated by commas, semicolons or tabs, as the first line shows. The
first row is the header when its answer cell names none of its choices (a header's "answer"
never does), and the import says so; otherwise it is a question.
"""

from __future__ import annotations

import re
import zlib

from bot.decks.foreign import fold_key
from bot.decks.formats.csv_records import records, sniffed_delimiter
from bot.decks.formats.draft import DraftChoice, DraftDeck, DraftQuestion, FormatError

FORMAT_NAME = "CSV with --columns"
ROLES = ("text", "choice", "choices", "answer", "wrong", "explanation", "tags", "id", "skip")
_LETTERS = "ABCDE"
_SPLIT = ("|", ";", "\n")
_BY_HEADER = {
    "text": ("question", "questiontext", "text", "q", "prompt", "stem"),
    "id": ("questionname", "id", "name", "questionid"),
    "choices": ("choices", "options", "alternatives", "answers"),
    "answer": ("answer", "correct", "correctanswer", "rightanswer", "key", "ans", "answerkey"),
    "explanation": ("explanation", "feedback", "generalfeedback", "rationale", "solution"),
    "tags": ("tags", "category", "topic", "subject"),
    "wrong": ("incorrect", "wrong", "wronganswer", "distractor", "incorrectanswer"),
}
_CHOICE_HEADER = re.compile(r"^(?:option|choice|opt)?([a-e1-5])$")


def parse_columns(spec: str) -> list[str]:
    """The roles of `--columns a,b,c`, or a FormatError saying what is wrong with them."""
    roles = [part.strip().lower() for part in spec.split(",")]
    unknown = [role for role in roles if role not in ROLES]
    if unknown:
        raise FormatError(f"--columns: '{unknown[0]}' is not a column name; use {', '.join(ROLES)}")
    missing = [role for role in ("text", "answer") if role not in roles]
    if not any(role in roles for role in ("choice", "choices", "wrong")):
        missing.append("choice (or choices, or wrong)")
    if missing:
        raise FormatError(f"--columns needs {' and '.join(missing)}")
    for once in ("text", "answer", "choices", "explanation", "tags", "id"):
        if roles.count(once) > 1:
            raise FormatError(f"--columns names {once} twice")
    return roles


def suggest_columns(header: list[str]) -> str | None:
    """`--columns ...` for a header whose names say what each column holds, else None."""
    roles: list[str] = []
    for cell in header:
        name = fold_key(cell)
        role = next((role for role, names in _BY_HEADER.items() if name in names), None)
        if role is None and _CHOICE_HEADER.match(name):
            role = "choice"
        roles.append(role or "skip")
    try:
        parse_columns(",".join(roles))
    except FormatError:
        return None
    return "--columns " + ",".join(roles)


def read_columns(text: str, locale: str, roles: list[str]) -> DraftDeck:
    """Every row as a question, its cells read by `roles`; a header row is left out, said."""
    deck = DraftDeck(locales=[locale])
    for line, row in records(text, sniffed_delimiter(text)):
        if not any(cell.strip() for cell in row):
            continue
        question, reason = _question(row, roles, line, locale)
        if question is not None:
            deck.questions.append(question)
        elif line == 1 and not deck.questions:
            deck.warn(1, "the first row is read as the header (its answer names no choice)")
        else:
            deck.skip(line, reason)
    return deck


def _question(
    row: list[str], roles: list[str], line: int, locale: str
) -> tuple[DraftQuestion | None, str]:
    cells: dict[str, list[str]] = {}
    for role, cell in zip(roles, row, strict=False):
        cells.setdefault(role, []).append(cell.strip())
    if len(row) > len(roles) and any(cell.strip() for cell in row[len(roles) :]):
        return None, (
            f"it has {len(row)} cells for the {len(roles)} --columns; put a text holding the "
            "separator in double quotes"
        )
    choices = [cell for cell in cells.get("choice", []) if cell]
    for joined in cells.get("choices", []):
        separator = next((mark for mark in _SPLIT if mark in joined), None)
        parts = joined.split(separator) if separator else [joined]
        choices.extend(part.strip() for part in parts if part.strip())
    text = " ".join(cells.get("text", [])).strip()
    raw = " ".join(cells.get("answer", [])).strip()
    wrong = [cell for cell in cells.get("wrong", []) if cell]
    if wrong and not choices:
        place = zlib.crc32(text.encode()) % (len(wrong) + 1)
        choices = [*wrong[:place], raw, *wrong[place:]]
        answer: int | None = place
    else:
        answer = _answer(raw, choices)
    if answer is None:
        shown = raw or "(empty)"
        return None, f"its answer '{shown}' is no letter, number or text of its choices"
    explanation = " ".join(cells.get("explanation", [])).strip()
    tags = [tag.strip() for cell in cells.get("tags", []) for tag in re.split(r"[,;]", cell)]
    return (
        DraftQuestion(
            line=line,
            text={locale: text},
            choices=[DraftChoice({locale: choice}) for choice in choices],
            answer=answer,
            explanation={locale: explanation} if explanation else {},
            name=" ".join(cells.get("id", [])).strip(),
            tags=[tag for tag in tags if tag],
        ),
        "",
    )


def _answer(raw: str, choices: list[str]) -> int | None:
    folded = [" ".join(choice.split()).casefold() for choice in choices]
    wanted = " ".join(raw.split()).casefold()
    if wanted in folded:
        return folded.index(wanted)
    if len(raw) == 1 and raw.upper() in _LETTERS[: len(choices)]:
        return _LETTERS.index(raw.upper())
    if raw.isdigit() and len(raw) <= 2 and 1 <= int(raw) <= len(choices):
        return int(raw) - 1
    return None
