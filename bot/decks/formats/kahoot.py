"""Kahoot quiz spreadsheets (.xlsx): the layout of Kahoot's official "Quiz template".

The template has a few rows of instructions, then a header row ("Question - max 120
characters", "Answer 1 - max 75 characters" .. "Answer 4", "Time limit (sec)", "Correct
answer(s) - choose at least one"), then one question per row with its number in column A. The
header row is found by its cells, not by its position. Empty answers are left out; a question
with several correct answers is skipped. Kahoot has no explanations, so every one is missing.
The workbook is read with openpyxl (read-only, values only) after its zip directory is checked,
so a zip bomb is refused before anything is decompressed. Only the template's shape is read:
the first 30 columns and 5,000 rows, stopping at the first 500 empty rows in a row. openpyxl
pads every row to the sheet's declared size, so one stray cell at XFD1048576 (a 5 KB file)
would otherwise make a billion empty cells.
"""

from __future__ import annotations

import re
import warnings
import zipfile
from io import BytesIO
from typing import Any

from bot.decks.formats.draft import (
    DraftChoice,
    DraftDeck,
    DraftQuestion,
    FormatError,
    settle_true_false,
)

FORMAT_NAME = "Kahoot spreadsheet"

MAX_UNPACKED_BYTES = 100 * 1024 * 1024
_HEADER_ROWS = 50
MAX_ROWS = 5_000
"""Far more questions than a Kahoot holds; rows past it are not read, and the import says so."""
MAX_COLUMNS = 30
"""The template uses A-H; a header moved a few columns right still fits."""
EMPTY_RUN = 500
"""This many empty rows in a row end the sheet, wherever its declared size says it ends."""
_ANSWER = re.compile(r"^answer\s*(\d+)")


def _check_zip(data: bytes) -> None:
    try:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            entries = archive.infolist()
    except zipfile.BadZipFile:
        raise FormatError("not an .xlsx workbook (it is not a zip archive)") from None
    unpacked = sum(entry.file_size for entry in entries)
    if unpacked > MAX_UNPACKED_BYTES:
        raise FormatError(
            f"the workbook unpacks to {unpacked:,} bytes "
            f"(at most {MAX_UNPACKED_BYTES // 1048576} MiB); refusing it"
        )
    if not any(entry.filename.startswith("xl/") for entry in entries):
        raise FormatError("a zip archive, but not an .xlsx workbook (no xl/ folder)")


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def read_kahoot(data: bytes, locale: str) -> DraftDeck:
    """Every question row of the first sheet, numbered as Excel numbers rows."""
    _check_zip(data)
    from openpyxl import load_workbook  # here: it and numpy are a quarter second of every start

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            workbook = load_workbook(BytesIO(data), read_only=True, data_only=True)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as error:
        raise FormatError(f"not a readable .xlsx workbook ({error})") from None
    try:
        rows = _bounded_rows(workbook.worksheets[0])
    finally:
        workbook.close()
    header_at, columns = _find_header(rows)
    deck = DraftDeck(locales=[locale])
    if len(rows) == MAX_ROWS and any(rows[-1]):
        deck.warn(MAX_ROWS, f"only the first {MAX_ROWS:,} rows are read; split the sheet")
    for number, row in enumerate(rows[header_at:], start=header_at + 1):
        _read_row(row, number, columns, locale, deck)
    return deck


def _bounded_rows(sheet: Any) -> list[list[str]]:
    """The sheet's cells as text, within the template's shape (see the module's docstring)."""
    rows: list[list[str]] = []
    empty = 0
    for row in sheet.iter_rows(max_row=MAX_ROWS, max_col=MAX_COLUMNS, values_only=True):
        cells = [_cell_text(value) for value in row]
        rows.append(cells)
        empty = 0 if any(cells) else empty + 1
        if empty >= EMPTY_RUN:
            break
    return rows


def _find_header(rows: list[list[str]]) -> tuple[int, dict[str, int]]:
    """The 1-based row of the header, and the columns of question, answers and correct answers."""
    for number, row in enumerate(rows[:_HEADER_ROWS], start=1):
        columns: dict[str, int] = {}
        for index, cell in enumerate(row):
            lowered = cell.lower()
            if lowered.startswith("question"):
                columns.setdefault("question", index)
            elif lowered.startswith("correct answer"):
                columns.setdefault("correct", index)
            elif match := _ANSWER.match(lowered):
                columns.setdefault(f"answer{match.group(1)}", index)
        if {"question", "correct", "answer1", "answer2"} <= columns.keys():
            return number, columns
    raise FormatError(
        f"no header row with Question, Answer 1, Answer 2 and Correct answer(s) in the first "
        f"{_HEADER_ROWS} rows; is this Kahoot's quiz template?"
    )


def _read_row(
    row: list[str], number: int, columns: dict[str, int], locale: str, deck: DraftDeck
) -> None:
    def cell(name: str) -> str:
        index = columns.get(name)
        return row[index] if index is not None and index < len(row) else ""

    question = cell("question")
    answer_names = sorted(
        (name for name in columns if name.startswith("answer")), key=lambda n: int(n[6:])
    )
    answers = {int(name[6:]): cell(name) for name in answer_names}
    if not question:
        if any(answers.values()):
            deck.skip(number, "the row has answers but no question")
        return
    correct_text = cell("correct")
    marked = [part.strip() for part in re.split(r"[,;\s]+", correct_text) if part.strip()]
    if not marked:
        deck.skip(number, "no correct answer is given (column 'Correct answer(s)')")
        return
    if len(marked) > 1:
        deck.skip(number, f"several answers are correct ({correct_text}); a deck question has one")
        return
    if not marked[0].isdigit() or not answers.get(int(marked[0])):
        deck.skip(number, f"the correct answer '{marked[0]}' names no filled answer column")
        return
    kept = [(slot, text) for slot, text in answers.items() if text]
    draft = DraftQuestion(
        line=number,
        text={locale: question},
        choices=[DraftChoice({locale: text}) for _, text in kept],
        answer=[slot for slot, _ in kept].index(int(marked[0])),
    )
    settle_true_false(draft, locale)
    deck.questions.append(draft)
