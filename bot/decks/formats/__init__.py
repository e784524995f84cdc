"""Question files of other quiz tools in and out of decks: GIFT, Moodle XML, Aiken, Open Trivia DB,
CSV, Kahoot spreadsheets, quiz JSON, Red-DiscordBot trivia lists, Moodle CSV and Bengali exam
text (`quizbot import` and `quizbot export --deck`).

Each format's module reads a file into drafts (`draft.py`) and, for GIFT, Moodle XML and CSV,
writes a deck back out; `importer.py` turns drafts into a deck file that validates.
"""

from __future__ import annotations

from bot.decks.formats.exporter import ExportError, export_deck, export_file_name
from bot.decks.formats.importer import ImportOutcome, import_file
from bot.decks.formats.registry import EXPORT_FORMATS, FORMATS, guess_format

__all__ = [
    "EXPORT_FORMATS",
    "FORMATS",
    "ExportError",
    "ImportOutcome",
    "export_deck",
    "export_file_name",
    "guess_format",
    "import_file",
]
