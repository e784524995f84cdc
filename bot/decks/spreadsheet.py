"""Text cells a spreadsheet opens as text, never as a formula, and read back as written.

Excel and LibreOffice run a CSV cell starting with =, +, -, @, a tab or a carriage return as a
formula (`=HYPERLINK(...)`, `+cmd|...`), so every CSV quizbot writes (the server export, a deck
export) prefixes such a cell with a quote, which the spreadsheet shows as text. A deck CSV is
also read back: a spreadsheet saves a quote it showed as text without the quote, so a cell that
still starts with one before such a character was written this way, and the quote is dropped.
A text that itself starts with quotes before such a character gets one more, so the round trip
gives back exactly what was written.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _quoted_formula(text: str) -> bool:
    return text.startswith("'") and text.lstrip("'").startswith(FORMULA_STARTS)


def neutralise(text: str) -> str:
    """`text` as a cell no spreadsheet runs: a quote before a formula's first character."""
    if text.startswith(FORMULA_STARTS) or _quoted_formula(text):
        return "'" + text
    return text


def restore(cell: str) -> str:
    """The text `neutralise` was given, from the cell it made (other cells are unchanged)."""
    return cell[1:] if _quoted_formula(cell) else cell
