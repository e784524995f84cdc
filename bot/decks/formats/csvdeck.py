"""Decks as CSV: one row per question, one group of columns per locale, so every locale survives.

The header names the columns; their order is free and names are case-insensitive:

    id            the question id (kept as it is when it is a valid id)
    answer        the right choice: a letter A-E or a number 1-5
    tags          tags separated by commas or semicolons
    shuffle       true or false to override the deck for this question; empty inherits
    seconds       the least time the question needs in a game (10 to 300); empty: the game's
    text:<L>  choice1:<L> .. choice5:<L>  why1:<L> .. why5:<L>  explanation:<L>
                  one group per locale L, e.g. text:en, text:bn; `text` alone means --locale
    deck_id  deck_shuffle  deck_source  deck_license  deck_title:<L>  deck_description:<L>
                  deck-level values, read from the first row that has them (an export fills
                  the first row only); later rows may leave them empty

Files are UTF-8, with or without the byte-order mark Excel writes (exports write one, so Excel
shows Bengali correctly); cells are separated by commas, or by the semicolons or tabs a header
row uses instead. An explanation left empty gets a stand-in, as in other formats.
A cell a spreadsheet would run as a formula (=, +, -, @, tab or carriage return first) is
written with a quote before it, and the quote is dropped again on import
(`bot.decks.spreadsheet`).
Exporting a deck to CSV and importing the file gives the same deck back: ids, texts in every
locale, choices, whys, answers, explanations, tags, per-question shuffle and seconds, title,
description, source and license.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from bot.decks.format import LOCALE_PATTERN, MAX_CHOICES, MAX_SECONDS, MIN_SECONDS
from bot.decks.formats.columns import suggest_columns
from bot.decks.formats.csv_records import records, sniffed_delimiter
from bot.decks.formats.draft import DraftChoice, DraftDeck, DraftQuestion, FormatError, Texts
from bot.decks.model import Deck, Question
from bot.decks.spreadsheet import neutralise, restore

FORMAT_NAME = "CSV"

_PLAIN_FIELDS = frozenset(
    {
        "id",
        "answer",
        "tags",
        "shuffle",
        "seconds",
        "deck_id",
        "deck_shuffle",
        "deck_source",
        "deck_license",
    }
)
_LOCALIZED = re.compile(r"^(text|explanation|deck_title|deck_description|choice[1-9]|why[1-9])$")
_LETTERS = "ABCDE"
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})


@dataclass
class _Header:
    plain: dict[str, int] = field(default_factory=dict)
    localized: dict[tuple[str, str], int] = field(default_factory=dict)
    locales: list[str] = field(default_factory=list)
    widest: int = 0

    def cell(self, row: list[str], name: str, locale: str | None = None) -> str:
        index = self.plain.get(name) if locale is None else self.localized.get((name, locale))
        return restore(row[index].strip()) if index is not None and index < len(row) else ""

    def texts(self, row: list[str], name: str) -> Texts:
        found = {locale: self.cell(row, name, locale) for locale in self.locales}
        return {locale: text for locale, text in found.items() if text}


def _header(names: list[str], locale: str, deck: DraftDeck) -> _Header:
    header = _Header()
    for index, raw in enumerate(names):
        name, _, column_locale = raw.strip().partition(":")
        name, column_locale = name.strip().lower(), column_locale.strip() or locale
        if name in _PLAIN_FIELDS:
            header.plain[name] = index
        elif _LOCALIZED.match(name):
            if not LOCALE_PATTERN.fullmatch(column_locale):
                raise FormatError(
                    f"column '{raw}' names '{column_locale}', not a locale like en or pt-BR", 1
                )
            header.localized[(name, column_locale)] = index
            if column_locale not in header.locales:
                header.locales.append(column_locale)
            if name.startswith("choice"):
                header.widest = max(header.widest, int(name[6:]))
        elif raw.strip():
            deck.warn(1, f"column '{raw.strip()}' is not a deck column; it is ignored")
    missing = [name for name in ("answer", "text", "choice1", "choice2") if not _has(header, name)]
    suggested = suggest_columns(names) if missing else None
    if suggested is not None:
        raise FormatError(
            f"the header ({', '.join(name.strip() for name in names)}) is not quizbot's CSV "
            f"layout; its names say what each column holds, so import it with {suggested}",
            1,
        )
    if missing:
        raise FormatError(
            f"the header has no {', '.join(missing)} column; a deck CSV needs at least "
            f"answer, text:<locale>, choice1:<locale> and choice2:<locale>",
            1,
        )
    return header


def _has(header: _Header, name: str) -> bool:
    return name in header.plain or any(key == name for key, _ in header.localized)


def read_csv(text: str, locale: str) -> DraftDeck:
    """Every row of a deck CSV as a question; deck-level columns fill the deck."""
    deck = DraftDeck()
    rows = records(text, sniffed_delimiter(text))
    first = next(rows, None)
    if first is None:
        raise FormatError("the file is empty; a deck CSV starts with a header row", 1)
    header = _header(first[1], locale, deck)
    deck.locales = header.locales
    for line, row in rows:
        if any(cell.strip() for cell in row):
            _deck_fields(header, row, line, deck)
            _read_row(header, row, line, deck)
    return deck


def _deck_fields(header: _Header, row: list[str], line: int, deck: DraftDeck) -> None:
    for name, held in (("deck_title", deck.title), ("deck_description", deck.description)):
        found = header.texts(row, name)
        if found and held and found != held:
            deck.warn(line, f"{name} differs from an earlier row's; the first is kept")
        elif found:
            held.update(found)
    deck_id = header.cell(row, "deck_id")
    if deck_id and deck.deck_id is None:
        deck.deck_id = deck_id
    deck.origin = deck.origin or header.cell(row, "deck_source") or None
    deck.license = deck.license or header.cell(row, "deck_license") or None
    shuffle = _flag(header.cell(row, "deck_shuffle"))
    if shuffle is not None and deck.shuffle is None:
        deck.shuffle = shuffle


def _flag(value: str) -> bool | None:
    lowered = value.lower()
    return True if lowered in _TRUE else False if lowered in _FALSE else None


def _read_row(header: _Header, row: list[str], line: int, deck: DraftDeck) -> None:
    answer = _answer(header.cell(row, "answer"))
    if answer is None:
        raw = header.cell(row, "answer") or "(empty)"
        deck.skip(
            line, f"answer {raw} is not a choice letter A-{_LETTERS[-1]} or number 1-{MAX_CHOICES}"
        )
        return
    shuffle_text = header.cell(row, "shuffle")
    shuffle = _flag(shuffle_text)
    if shuffle_text and shuffle is None:
        deck.skip(line, f"shuffle '{shuffle_text}' is not true or false")
        return
    seconds_text = header.cell(row, "seconds").strip()
    seconds = int(seconds_text) if seconds_text.isdecimal() and len(seconds_text) <= 3 else None
    if seconds_text and (seconds is None or not MIN_SECONDS <= seconds <= MAX_SECONDS):
        deck.skip(
            line,
            f"seconds '{seconds_text}' is not a whole number of seconds from {MIN_SECONDS} "
            f"to {MAX_SECONDS}",
        )
        return
    choices = [
        DraftChoice(header.texts(row, f"choice{number}"), header.texts(row, f"why{number}"))
        for number in range(1, header.widest + 1)
    ]
    while choices and not choices[-1].text:
        choices.pop()
    tags = [tag.strip() for tag in re.split(r"[,;]", header.cell(row, "tags")) if tag.strip()]
    deck.questions.append(
        DraftQuestion(
            line=line,
            text=header.texts(row, "text"),
            choices=choices,
            answer=answer,
            explanation=header.texts(row, "explanation"),
            name=header.cell(row, "id"),
            tags=tags,
            shuffle=shuffle,
            seconds=seconds,
        )
    )


def _answer(value: str) -> int | None:
    value = value.strip().upper()
    if len(value) == 1 and value in _LETTERS:
        return _LETTERS.index(value)
    if value.isdigit() and 1 <= int(value) <= MAX_CHOICES:
        return int(value) - 1
    return None


# Writing ---------------------------------------------------------------------------------------


def write_csv(deck: Deck) -> str:
    """The deck as CSV text in every locale, starting with a byte-order mark for Excel."""
    widest = max(len(question.choices) for question in deck.questions)
    deck_shuffle = any(question.shuffle for question in deck.questions)
    header = ["id", "answer", "tags", "shuffle", "seconds"]
    for locale in deck.locales:
        header.append(f"text:{locale}")
        for number in range(1, widest + 1):
            header += [f"choice{number}:{locale}", f"why{number}:{locale}"]
        header.append(f"explanation:{locale}")
    header += ["deck_id", "deck_shuffle", "deck_source", "deck_license"]
    header += [f"deck_title:{locale}" for locale in deck.locales]
    header += [f"deck_description:{locale}" for locale in deck.locales]
    buffer = io.StringIO()
    buffer.write("\ufeff")
    writer = csv.writer(buffer)
    writer.writerow(header)  # column names never start like a formula
    for index, question in enumerate(deck.questions):
        row = _question_cells(question, deck.locales, widest, deck_shuffle)
        if index == 0:
            description = deck.description or {}
            row += [deck.id, "true" if deck_shuffle else "false"]
            row += [deck.origin or "", deck.license or ""]
            row += [deck.title[locale] for locale in deck.locales]
            row += [description.get(locale, "") for locale in deck.locales]
        else:
            row += [""] * (4 + 2 * len(deck.locales))
        writer.writerow([neutralise(value) for value in row])
    return buffer.getvalue()


def _question_cells(
    question: Question, locales: tuple[str, ...], widest: int, deck_shuffle: bool
) -> list[str]:
    shuffle = "" if question.shuffle == deck_shuffle else ("true" if question.shuffle else "false")
    seconds = "" if question.seconds is None else str(question.seconds)
    cells = [question.id, _LETTERS[question.answer], ", ".join(question.tags), shuffle, seconds]
    for locale in locales:
        cells.append(question.text[locale])
        for number in range(widest):
            if number < len(question.choices):
                choice = question.choices[number]
                why = choice.why.get(locale, "") if choice.why is not None else ""
                cells += [choice.text[locale], why]
            else:
                cells += ["", ""]
        cells.append(question.explanation[locale])
    return cells
