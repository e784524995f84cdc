"""Question files of other quiz tools in and out of decks: GIFT, Moodle XML, Aiken, Open Trivia DB,
CSV, Kahoot spreadsheets, quiz JSON, Red-DiscordBot trivia lists, Moodle CSV and Bengali exam
text (`quizbot import` and `quizbot export --deck`).

Each format's module reads a file into drafts (`draft.py`) and, for GIFT, Moodle XML and CSV,
writes a deck back out; `importer.py` turns drafts into a deck file that validates.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOMES = {
    "EXPORT_FORMATS": "registry",
    "FORMATS": "registry",
    "guess_format": "registry",
    "ExportError": "exporter",
    "export_deck": "exporter",
    "export_file_name": "exporter",
    "ImportOutcome": "importer",
    "import_file": "importer",
}


def __getattr__(name: str) -> Any:
    """The package's names, loaded on first use: the bot and every command import a module or
    two of this package (the phrasebook, the language guess), and loading every reader and
    writer with them was 30-60 ms of each start."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
