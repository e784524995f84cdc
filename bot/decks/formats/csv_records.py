"""Reading a CSV file record by record, each with the line it starts on: what every CSV
format (`csvdeck`, `moodle_csv`, `columns`) reads its rows with."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from bot.decks.formats.draft import FormatError


def sniffed_delimiter(text: str) -> str:
    """',' unless the header row is split by ';' or tabs (Excel in many locales writes ';')."""
    first = text.split("\n", 1)[0]
    return max((",", ";", "\t"), key=first.count) if first else ","


def records(text: str, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """Each record with the line it starts on (a quoted cell may span lines); a file that is
    not CSV is a `FormatError` at the line it breaks on."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    last = 0
    try:
        for row in reader:
            yield last + 1, row
            last = reader.line_num
    except csv.Error as error:
        raise FormatError(f"not valid CSV: {error}", last + 1) from None
