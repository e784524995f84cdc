"""Moodle's CSV question import (the qformat_csv plugin by Gopal Sharma).

    questionname,questiontext,A,B,C,D,Answer 1,Answer 2
    Question1,The dmesg command,Shows user logins,Shows the syslog,kernel log messages,...,C,

The plugin reads a header row and one multiple-choice question per row: four options A-D, the
right one's letter in `Answer 1`, and a second right letter in `Answer 2` for a question with
two right answers (half marks each), which a deck cannot hold, so such a row is skipped with
its reason. The extended file adds answernumbering, correctfeedback, partiallycorrectfeedback,
incorrectfeedback and defaultmark, which have no place in a deck; a `generalfeedback` column
(the plugin reads one when present) becomes the explanation. Texts are plain: the plugin
escapes them as it imports. Where the plugin stops at the first bad row, every row here is
imported or reported.
"""

from __future__ import annotations

from bot.decks.formats.columns import suggest_columns
from bot.decks.formats.csv_records import records
from bot.decks.formats.draft import DraftChoice, DraftDeck, DraftQuestion, FormatError

FORMAT_NAME = "Moodle CSV"
LETTERS = ("A", "B", "C", "D")
_REQUIRED = ("questiontext", *LETTERS, "Answer 1")


def read_moodle_csv(text: str, locale: str) -> DraftDeck:
    """Each row after the header as a question, or a skip at its line saying why."""
    rows = records(text)
    first = next(rows, None)
    if first is None:
        raise FormatError("the file is empty; a Moodle CSV file starts with its header row", 1)
    header = {name.strip(): index for index, name in enumerate(first[1]) if name.strip()}
    missing = [name for name in _REQUIRED if name not in header]
    suggested = suggest_columns(first[1]) if missing else None
    if suggested is not None:
        raise FormatError(
            f"this is not Moodle's own CSV layout but a fork of it (columns "
            f"{', '.join(cell.strip() for cell in first[1])}); import it with --format csv "
            f"{suggested}",
            1,
        )
    if missing:
        raise FormatError(
            f"the header has no {', '.join(missing)}; Moodle's CSV import needs "
            "questionname,questiontext,A,B,C,D,Answer 1,Answer 2 (case matters)",
            1,
        )
    deck = DraftDeck(locales=[locale])
    for line, row in rows:
        if any(cell.strip() for cell in row):
            _read_row(header, row, line, locale, deck)
    return deck


def _read_row(
    header: dict[str, int], row: list[str], line: int, locale: str, deck: DraftDeck
) -> None:
    if len(row) > len(header) and any(cell.strip() for cell in row[len(header) :]):
        deck.skip(
            line,
            f"it has {len(row)} cells for {len(header)} columns; put a text holding a comma "
            'in double quotes ("None, of the above")',
        )
        return

    def cell(name: str) -> str:
        index = header.get(name)
        return row[index].strip() if index is not None and index < len(row) else ""

    right = cell("Answer 1").upper()
    second = cell("Answer 2").upper()
    if second and second != right:
        deck.skip(line, f"it has two right answers ({right} and {second}); a deck question has one")
        return
    if right not in LETTERS:
        shown = f"'{cell('Answer 1')}'" if cell("Answer 1") else "empty"
        deck.skip(line, f"Answer 1 is {shown}; it must be A, B, C or D")
        return
    if not cell(right):
        deck.skip(line, f"Answer 1 is {right}, whose option is empty")
        return
    kept = [letter for letter in LETTERS if cell(letter)]
    explanation = cell("generalfeedback")
    deck.questions.append(
        DraftQuestion(
            line=line,
            text={locale: cell("questiontext")},
            choices=[DraftChoice({locale: cell(letter)}) for letter in kept],
            answer=kept.index(right),
            explanation={locale: explanation} if explanation else {},
            name=cell("questionname"),
        )
    )
