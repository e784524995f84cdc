"""`quizbot import`: a question file in, a deck file that validates out, or nothing and why.

Every outcome is lines to print: `FILE:LINE: skipped: WHY` per question left out, warnings
(dropped images, stand-in explanations), then one summary or one error. Bad input never raises.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from bot.decks.foreign import SNIFF_CHARS, looks_numbered
from bot.decks.format import (
    ID_PATTERN,
    LOCALE_PATTERN,
    MAX_FILE_BYTES,
    MAX_ID_LENGTH,
    MAX_TITLE_CHARS,
    RESERVED_DECK_IDS,
)
from bot.decks.formats.assembly import Assembly, count
from bot.decks.formats.columns import parse_columns
from bot.decks.formats.draft import (
    UNDETERMINED,
    DraftDeck,
    FormatError,
    Note,
    Texts,
)
from bot.decks.formats.language import detect_language
from bot.decks.formats.registry import FORMATS, Format, columns_format, guess_format
from bot.decks.formats.slug import slugify
from bot.decks.formats.source import kind_of_binary, read_bytes
from bot.decks.formats.writer import WriteError, render_deck, write_deck, write_decks

EXIT_OK = 0
EXIT_NOTHING_WRITTEN = 1
EXIT_USAGE = 2
DEFAULT_LOCALE = "en"


@dataclass(frozen=True)
class ImportOutcome:
    """What to print, the exit status, and the deck file written (None when nothing was)."""

    lines: list[str]
    status: int
    written: Path | None = None


def import_file(
    path: Path,
    *,
    fmt: str | None,
    out: Path | None,
    locale: str | None,
    deck_id: str | None,
    today: date,
    questions_dir: Path = Path("questions"),
    split: int | None = None,
    columns: str | None = None,
) -> ImportOutcome:
    """Converts `path` to a deck at `out` (default: `questions_dir`/<deck id>.yaml).

    `today` dates the deck's `source`, unless the file names its own (a CSV export does).
    `locale` None means the file's language is found from its script, else taken to be English.
    With `split`, or when one deck file would be over the size limit, the questions become
    several decks `<id>-1`, `<id>-2`... (files `<out stem>-1.yaml`...), all written or none.
    `columns` names a CSV's columns (`--columns text,choice,choice,answer`).
    """
    shown = str(path)
    usage = _usage_problem(fmt, locale, deck_id, split)
    forced: Format | None = None
    if usage is None and columns is not None:
        try:
            forced = _columns(fmt, columns)
        except FormatError as refused:
            usage = refused.message
    if usage is not None:
        return ImportOutcome([f"{shown}: error: {usage}"], EXIT_USAGE)
    try:
        found, draft, language = _read_in_language(path, fmt, locale, forced)
    except FormatError as error:
        line = Note(error.line, "error", error.message).render(shown)
        return ImportOutcome([line], EXIT_NOTHING_WRITTEN)
    locale = draft.locales[0] if draft.locales else locale or DEFAULT_LOCALE
    chosen_id = _deck_id(deck_id, draft.deck_id, path)
    if chosen_id is None:
        message = f"no deck id can be made from the file name '{path.stem}'; pass --id"
        return ImportOutcome([f"{shown}: error: {message}"], EXIT_USAGE)
    deck = Assembly(draft, locale)
    lines = [f"{shown}: {language}"] if language else []
    lines += deck.report(shown)
    if fmt is None and forced is None and deck.skipped >= max(len(deck.questions), 1):
        # as many skipped as read: the guess may be wrong, and a wrong guess reads as a list
        # of misleading skip lines (141 of them for a text file with LaTeX braces read as GIFT)
        lines.append(
            f"{shown}: note: read as {found.title}, told from its content; if it is another "
            f"format, pass --format"
        )
    if not deck.questions:
        lines.append(f"{shown}: error: {_nothing_imported(deck)}; nothing written")
        return ImportOutcome(lines, EXIT_NOTHING_WRITTEN)
    target = out if out is not None else questions_dir / f"{chosen_id}.yaml"
    source = f"Imported from {path.name} ({found.title}) on {today.isoformat()}"
    title = _title(draft, deck.locales, path)
    parts = _parts(deck, chosen_id, title, source, split)
    if len(parts) > 1:
        return _write_parts(parts, deck, target, shown, found, split, lines)
    try:
        write_deck(parts[0].text, target)
    except WriteError as error:
        lines.append(f"{shown}: error: {error}; nothing written")
        return ImportOutcome(lines, EXIT_NOTHING_WRITTEN)
    wrote = count(len(deck.questions), "question")
    lines.append(f"{target}: wrote {wrote} from {shown} ({found.title}), {deck.skipped} skipped")
    return ImportOutcome(lines, EXIT_OK, target)


def _nothing_imported(deck: Assembly) -> str:
    """Why no question could be imported: the one reason every question was skipped for, when
    they share one ("each question has 1 choice": a flashcard bank), else how many were."""
    reasons = {note.message for note in deck.notes if note.kind == "skipped"}
    if deck.skipped == 1 and len(reasons) == 1:
        return f"no question could be imported: {reasons.pop()}"
    if deck.skipped > 1 and len(reasons) == 1:
        reason = reasons.pop()
        for it, each in (("it ", "each question "), ("its ", "each question's ")):
            if reason.startswith(it):
                return f"no question could be imported: {each}{reason.removeprefix(it)}"
        return f"no question could be imported: all {deck.skipped} were skipped as {reason}"
    return f"no question could be imported ({deck.skipped} skipped)"


def _columns(fmt: str | None, columns: str) -> Format:
    """The CSV reader of `--columns`, or a FormatError saying why it cannot be used."""
    if fmt not in (None, "csv"):
        raise FormatError(f"--columns names a CSV file's columns; it cannot read {fmt}")
    return columns_format(parse_columns(columns))


def _read_in_language(
    path: Path, fmt: str | None, locale: str | None, forced: Format | None = None
) -> tuple[Format, DraftDeck, str | None]:
    """The file read once, in `locale`, or, without one, in the language its text shows.

    The third value is the line that says which language was chosen and how to choose another,
    when the user did not; None when they did or the file names its own (CSV `text:bn`).
    """
    found, draft = _read(path, fmt, locale or UNDETERMINED, forced)
    if locale is not None or draft.locales != [UNDETERMINED]:
        return found, draft, None
    texts = (
        text
        for question in draft.questions
        for text in (
            *question.text.values(),
            *(
                value
                for choice in question.choices
                if choice.generated is None
                for value in choice.text.values()
            ),
        )
    )
    language = detect_language(texts)
    draft.relabel(language.locale if language is not None else DEFAULT_LOCALE)
    if language is None:
        line = (
            "note: the questions are taken to be in English (en); if they are not, pass "
            "--locale with their language (es, fr, de, pt, ru...) and import again"
        )
    elif language.script is not None:
        line = (
            f"note: the questions are in {language.script} script, so the deck's language is "
            f"{language.locale}; pass --locale to say otherwise"
        )
    else:
        line = (
            f"note: the questions read as {language.name}, so the deck's language is "
            f"{language.locale}; pass --locale to say otherwise"
        )
    return found, draft, line


@dataclass(frozen=True)
class _Part:
    """One deck of a split import: its questions' range and its rendered text."""

    number: int
    questions: int
    text: str


def _parts(
    deck: Assembly, deck_id: str, title: Texts, source: str, split: int | None
) -> list[_Part]:
    """The deck as one part, or as the fewest even parts under the size limit (or `split` each).

    A deck's size is known only once rendered, so the count of parts grows until each fits.
    """
    total = len(deck.questions)
    whole = render_deck(deck.mapping(deck_id, title, source), deck.comments(source))
    size = len(whole.encode("utf-8"))
    if split is None and size <= MAX_FILE_BYTES:
        return [_Part(1, total, whole)]
    count = -(-total // split) if split is not None else -(-size // (MAX_FILE_BYTES * 9 // 10))
    while True:
        count = min(count, total)
        if count <= 1:
            return [_Part(1, total, whole)]
        bounds = [total * index // count for index in range(count + 1)]
        if split is not None:
            bounds = [min(index * split, total) for index in range(count + 1)]
        parts = [
            _Part(
                number,
                end - start,
                deck.part_text(deck_id, title, source, start, end, (number, count)),
            )
            for number, (start, end) in enumerate(itertools.pairwise(bounds), start=1)
        ]
        if split is not None or count == total:
            return parts
        if all(len(part.text.encode("utf-8")) <= MAX_FILE_BYTES for part in parts):
            return parts
        count += 1


def _write_parts(
    parts: list[_Part],
    deck: Assembly,
    target: Path,
    shown: str,
    found: Format,
    split: int | None,
    lines: list[str],
) -> ImportOutcome:
    targets = [target.with_name(f"{target.stem}-{part.number}{target.suffix}") for part in parts]
    try:
        write_decks([(part.text, place) for part, place in zip(parts, targets, strict=True)])
    except WriteError as error:
        lines.append(f"{shown}: error: {error}; nothing written")
        return ImportOutcome(lines, EXIT_NOTHING_WRITTEN)
    for part, place in zip(parts, targets, strict=True):
        wrote = count(part.questions, "question")
        lines.append(
            f"{place}: wrote {wrote} from {shown} ({found.title}), part {part.number} "
            f"of {len(parts)}"
        )
    why = (
        f"--split {split}"
        if split is not None
        else f"one deck file may have at most {MAX_FILE_BYTES // 1048576} MiB"
    )
    total = count(len(deck.questions), "question")
    lines.append(f"{shown}: {total} in {len(parts)} decks ({why}), {deck.skipped} skipped")
    return ImportOutcome(lines, EXIT_OK, targets[0])


def _read(
    path: Path, fmt: str | None, locale: str, forced: Format | None = None
) -> tuple[Format, DraftDeck]:
    data = read_bytes(path)
    name = "csv" if forced is not None else fmt or _guess(path, data)
    if name is None:
        raise FormatError(_unknown(data))
    found = forced or FORMATS[name]
    try:
        return found, found.read(data, locale)
    except FormatError:
        raise
    except Exception as error:  # a reader's bug must still end in one line, not a traceback
        raise FormatError(
            f"could not read it as {found.title} ({type(error).__name__}: {error}); "
            f"please report this with the file"
        ) from error


def _unknown(data: bytes) -> str:
    """Why the format cannot be told, and what to do; with a hint when the shape is known."""
    head = data[:SNIFF_CHARS].decode("utf-8", errors="ignore")
    if looks_numbered(head):
        return (
            "this looks like numbered questions with lettered choices but no answer lines (an "
            "answer key kept in another file?), which no format here reads: write `ANSWER: X` "
            "after each question's choices and import it with --format aiken, or save it as "
            "CSV and import it with --columns"
        )
    return f"cannot tell what format this is; pass --format {'|'.join(FORMATS)}"


def _guess(path: Path, data: bytes) -> str | None:
    """The format a file seems to be in; a binary file other than a workbook is refused."""
    name = guess_format(path, data)
    binary = kind_of_binary(data)
    if binary is not None and name != "kahoot":
        raise FormatError(f"this is {binary}, not a question file")
    return name


def _usage_problem(
    fmt: str | None, locale: str | None, deck_id: str | None, split: int | None
) -> str | None:
    if split is not None and split < 1:
        return f"--split {split}: give how many questions each deck holds (1 or more)"
    if fmt is not None and fmt not in FORMATS:
        return f"unknown format '{fmt}'; use one of {', '.join(FORMATS)}"
    if locale is not None and not LOCALE_PATTERN.fullmatch(locale):
        return f"--locale '{locale}' is not a language code like en, bn or pt-BR"
    if deck_id is not None and not _valid_deck_id(deck_id):
        return (
            f"--id '{deck_id}' must be a-z, 0-9 and '-' (at most {MAX_ID_LENGTH}), "
            f"and not daily or weekdays"
        )
    return None


def _valid_deck_id(deck_id: str) -> bool:
    return (
        bool(ID_PATTERN.fullmatch(deck_id))
        and len(deck_id) <= MAX_ID_LENGTH
        and deck_id not in RESERVED_DECK_IDS
    )


def _deck_id(given: str | None, in_file: str | None, path: Path) -> str | None:
    if given is not None:
        return given
    for candidate in (in_file or "", path.stem):
        chosen = candidate if _valid_deck_id(candidate) else slugify(candidate)
        if chosen and _valid_deck_id(chosen):
            return chosen
    return None


def _title(draft: DraftDeck, locales: list[str], path: Path) -> Texts:
    words = path.stem.replace("_", " ").replace("-", " ").replace(".", " ")
    fallback = " ".join(words.split()) or path.name
    fallback = fallback[:1].upper() + fallback[1:]
    return {
        locale: (draft.title.get(locale) or fallback)[:MAX_TITLE_CHARS].strip()
        for locale in locales
    }
