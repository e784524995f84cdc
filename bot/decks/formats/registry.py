"""The formats by their command-line names, and a guess at a file's format from its content.

Content decides where it can (`bot.decks.foreign`: a zip is a workbook, JSON is Open Trivia DB
or quiz JSON by what it holds, YAML may be a Red trivia list); the file name decides the rest,
so `--format` is only needed for odd files.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bot.decks.foreign import identify
from bot.decks.formats import (
    aiken,
    bn_mcq,
    columns,
    csvdeck,
    gift,
    kahoot,
    moodle_csv,
    moodle_xml,
    opentdb,
    opentriviaqa,
    quizjson,
    red,
)
from bot.decks.formats.draft import DraftDeck
from bot.decks.formats.source import decode_text, decode_xml
from bot.decks.model import Deck

Reader = Callable[[bytes, str], DraftDeck]
Writer = Callable[[Deck, str], str]


@dataclass(frozen=True)
class Format:
    """A format: its name on the command line and in messages, and how to read and write it."""

    name: str
    title: str
    reader: Reader
    suffix: str
    write: Writer | None = None

    def read(self, data: bytes, locale: str) -> DraftDeck:
        """The file's questions, read with the cyclic garbage collector paused: a 10 MiB file
        makes a million objects, none of them garbage yet, and the collector's passes over
        them were a third to a half of the read."""
        with collector_paused():
            return self.reader(data, locale)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block (reference counting frees as before),
    then on again unless something else had turned it off."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _text_reader(read: Callable[[str, str], DraftDeck], title: str) -> Reader:
    def reader(data: bytes, locale: str) -> DraftDeck:
        return read(decode_text(data, title), locale)

    return reader


def _xml_reader(data: bytes, locale: str) -> DraftDeck:
    return moodle_xml.read_moodle_xml(decode_xml(data, moodle_xml.FORMAT_NAME), locale)


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
    "json": Format(
        "json",
        quizjson.FORMAT_NAME,
        _text_reader(quizjson.read_quiz_json, quizjson.FORMAT_NAME),
        ".json",
    ),
    "red": Format("red", red.FORMAT_NAME, _text_reader(red.read_red, red.FORMAT_NAME), ".yaml"),
    "moodle-csv": Format(
        "moodle-csv",
        moodle_csv.FORMAT_NAME,
        _text_reader(moodle_csv.read_moodle_csv, moodle_csv.FORMAT_NAME),
        ".csv",
    ),
    "bn-mcq": Format(
        "bn-mcq",
        bn_mcq.FORMAT_NAME,
        _text_reader(bn_mcq.read_bn_mcq, bn_mcq.FORMAT_NAME),
        ".txt",
    ),
    "opentriviaqa": Format(
        "opentriviaqa",
        opentriviaqa.FORMAT_NAME,
        _text_reader(opentriviaqa.read_opentriviaqa, opentriviaqa.FORMAT_NAME),
        ".txt",
    ),
}
"""Import formats, by the name `--format` takes; those with `write` can be exported."""

EXPORT_FORMATS = tuple(name for name, found in FORMATS.items() if found.write is not None)

_SUFFIXES = {
    ".gift": "gift",
    ".xml": "moodle-xml",
    ".json": "json",
    ".js": "json",
    ".csv": "csv",
    ".xlsx": "kahoot",
}


def columns_format(roles: list[str]) -> Format:
    """CSV read by the roles `--columns` gave its columns."""

    def read(data: bytes, locale: str) -> DraftDeck:
        return columns.read_columns(decode_text(data, columns.FORMAT_NAME), locale, roles)

    return Format("csv", columns.FORMAT_NAME, read, ".csv")


def guess_format(path: Path, head: bytes) -> str | None:
    """The format name for a file, from its content (or its first KiB) and its name; None if unsure.

    Content decides first (`bot.decks.foreign`): a JSON file is Open Trivia DB or quiz JSON by
    what it holds, a `.yaml` file may be a Red trivia list; the suffix decides what is left.
    """
    if head.startswith(b"PK\x03\x04"):
        return "kahoot"
    text = head.decode("utf-8", errors="ignore")
    found = identify(text, path.suffix)
    if found is not None:
        return found.name
    return _SUFFIXES.get(path.suffix.lower())
