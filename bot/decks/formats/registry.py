"""The formats by their command-line names, and a guess at a file's format from its first bytes.

Content decides where it can (a zip is a workbook, '<' is XML, '{' is JSON); the file name and
then the shape of the text decide the rest, so `--format` is only needed for odd files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.decks.formats import aiken, csvdeck, gift, kahoot, moodle_xml, opentdb
from bot.decks.formats.draft import DraftDeck
from bot.decks.formats.source import decode_text
from bot.decks.model import Deck

Reader = Callable[[bytes, str], DraftDeck]
Writer = Callable[[Deck, str], str]


@dataclass(frozen=True)
class Format:
    """A format: its name on the command line and in messages, and how to read and write it."""

    name: str
    title: str
    read: Reader
    suffix: str
    write: Writer | None = None


def _text_reader(read: Callable[[str, str], DraftDeck], title: str) -> Reader:
    def reader(data: bytes, locale: str) -> DraftDeck:
        return read(decode_text(data, title), locale)

    return reader


def _xml_reader(data: bytes, locale: str) -> DraftDeck:
    decode_text(data, moodle_xml.FORMAT_NAME)  # refuses binary and non-UTF-8 files in one line
    return moodle_xml.read_moodle_xml(data, locale)


def _csv_writer(deck: Deck, locale: str) -> str:
    return csvdeck.write_csv(deck)


FORMATS: dict[str, Format] = {
    "gift": Format(
        "gift",
        gift.FORMAT_NAME,
        _text_reader(gift.read_gift, gift.FORMAT_NAME),
        ".gift",
        gift.write_gift,
    ),
    "moodle-xml": Format(
        "moodle-xml", moodle_xml.FORMAT_NAME, _xml_reader, ".xml", moodle_xml.write_moodle_xml
    ),
    "aiken": Format(
        "aiken", aiken.FORMAT_NAME, _text_reader(aiken.read_aiken, aiken.FORMAT_NAME), ".txt"
    ),
    "opentdb": Format(
        "opentdb",
        opentdb.FORMAT_NAME,
        _text_reader(opentdb.read_opentdb, opentdb.FORMAT_NAME),
        ".json",
    ),
    "csv": Format(
        "csv",
        csvdeck.FORMAT_NAME,
        _text_reader(csvdeck.read_csv, csvdeck.FORMAT_NAME),
        ".csv",
        _csv_writer,
    ),
    "kahoot": Format("kahoot", kahoot.FORMAT_NAME, kahoot.read_kahoot, ".xlsx"),
}
"""Import formats, by the name `--format` takes; those with `write` can be exported."""

EXPORT_FORMATS = tuple(name for name, found in FORMATS.items() if found.write is not None)

_SUFFIXES = {
    ".gift": "gift",
    ".xml": "moodle-xml",
    ".json": "opentdb",
    ".csv": "csv",
    ".xlsx": "kahoot",
}
_AIKEN_ANSWER = re.compile(r"^ANSWER:\s*[A-Z]\s*$", re.MULTILINE)
_AIKEN_CHOICE = re.compile(r"^[A-Z][).]", re.MULTILINE)
_GIFT_MARKS = re.compile(
    r"^\s*(::|\$CATEGORY:)|\{\s*(T|F|TRUE|FALSE)\s*\}|\{[^{}]*[=~]", re.MULTILINE
)


def guess_format(path: Path, head: bytes) -> str | None:
    """The format name for a file, from its first few KiB and its name; None if unsure."""
    if head.startswith(b"PK\x03\x04"):
        return "kahoot"
    text = head.decode("utf-8", errors="ignore").lstrip("\ufeff \t\r\n")
    if text.startswith("<"):
        return "moodle-xml"
    if text.startswith(("{", "[")) and ("results" in text or "incorrect_answers" in text):
        return "opentdb"
    by_name = _SUFFIXES.get(path.suffix.lower())
    if by_name is not None:
        return by_name
    if _AIKEN_ANSWER.search(text) and _AIKEN_CHOICE.search(text):
        return "aiken"
    if _GIFT_MARKS.search(text):
        return "gift"
    first = text.splitlines()[0].lower() if text else ""
    if "," in first and "text" in first and "choice1" in first:
        return "csv"
    return None
