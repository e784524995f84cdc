"""Export then import gives the deck back: every shipped deck, through CSV (all locales) and
through GIFT and Moodle XML (one locale at a time)."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path

import pytest

from bot.decks.formats import export_deck
from bot.decks.model import Choice, Deck, Question
from bot.decks.spreadsheet import FORMULA_STARTS, neutralise, restore
from tests.unit.formats.conftest import Importer, load_deck, texts

QUESTIONS = Path(__file__).resolve().parents[3] / "questions"
DECK_FILES = sorted(QUESTIONS.glob("*.yaml"))


def _deck(path: Path) -> Deck:
    deck, problems = load_deck(path)
    assert deck is not None, problems
    return deck


def test_there_are_shipped_decks_to_round_trip() -> None:
    assert DECK_FILES


@pytest.mark.parametrize("path", DECK_FILES, ids=lambda path: path.stem)
def test_csv_gives_the_same_deck_back(path: Path, tmp_path: Path, run_import: Importer) -> None:
    deck = _deck(path)
    exported = tmp_path / "exported.csv"
    exported.write_text(export_deck(deck, "csv"), encoding="utf-8")
    outcome, back = run_import(exported)
    assert back is not None, outcome.lines
    origin = deck.origin or "Imported from exported.csv (CSV) on 2026-12-03"
    assert replace(back, source="") == replace(deck, source="", origin=origin)


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml"])
@pytest.mark.parametrize("path", DECK_FILES, ids=lambda path: path.stem)
def test_gift_and_moodle_xml_give_the_same_questions_in_each_locale(
    path: Path, fmt: str, tmp_path: Path, run_import: Importer
) -> None:
    deck = _deck(path)
    for locale in deck.locales:
        exported = tmp_path / f"{locale}.{fmt}"
        exported.write_text(export_deck(deck, fmt, locale), encoding="utf-8")
        outcome, back = run_import(exported, fmt=fmt, locale=locale, deck_id=deck.id)
        assert back is not None, outcome.lines
        assert back.title == {locale: deck.title[locale]}
        assert texts(back, locale) == texts(deck, locale)
        if fmt == "moodle-xml":
            assert [q.shuffle for q in back.questions] == [q.shuffle for q in deck.questions]


def test_csv_keeps_mixed_shuffles_choice_counts_and_a_missing_description(
    tmp_path: Path, run_import: Importer
) -> None:
    def texts_in(en: str, bn: str) -> dict[str, str]:
        return {"en": en, "bn": bn}

    two = Question(
        id="two",
        text=texts_in("Two, choices?", "দুই?"),
        choices=(
            Choice(texts_in("yes", "হ্যাঁ")),
            Choice(texts_in("no", "না"), texts_in('"No", because\nit is yes', "কারণ")),
        ),
        answer=0,
        explanation=texts_in("Because.", "কারণ।"),
        shuffle=False,
        position=1,
    )
    five = Question(
        id="five",
        text=texts_in("Five?", "পাঁচ?"),
        choices=tuple(Choice(texts_in(f"c{n}", f"চ{n}")) for n in range(5)),
        answer=4,
        explanation=texts_in("The last.", "শেষটি।"),
        tags=("a", "b c"),
        position=2,
    )
    deck = Deck("mixed", texts_in("Mixed", "মিশ্র"), ("en", "bn"), (two, five))
    exported = tmp_path / "whatever-name.csv"
    exported.write_text(export_deck(deck, "csv"), encoding="utf-8")
    _, back = run_import(exported)
    assert back is not None
    origin = "Imported from whatever-name.csv (CSV) on 2026-12-03"
    assert replace(back, source="") == replace(deck, origin=origin)


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised_and_read_back(
    tmp_path: Path, run_import: Importer
) -> None:
    # Issue 22 finding 7: `quizbot export --deck --format csv` wrote formulas raw, which the
    # server export already neutralises (the same code does both now).
    hostile = [
        '=HYPERLINK("https://evil.example","Click")',
        "+1+cmd|' /C calc'!A0",
        "@SUM(1+1)*cmd|' /C calc'!A0",
        "-2+3",
        "=1+1",
        "'=already quoted",
    ]
    question = Question(
        id="formulas",
        text={"en": hostile[0]},
        choices=tuple(Choice({"en": text}) for text in hostile[1:]),
        answer=0,
        explanation={"en": hostile[-1]},
        position=1,
    )
    deck = Deck("formulas", {"en": "@Formulas"}, ("en",), (question,))
    written = export_deck(deck, "csv")
    cells = [cell for row in csv.reader(io.StringIO(written.lstrip("\ufeff"))) for cell in row]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)]
    assert "'" + hostile[0] in cells and "''=already quoted" in cells
    assert "'@Formulas" in cells
    for text in ("\tTab", "\rReturn", "plain", "'quoted", "''=twice"):  # a deck strips \t and \r
        assert restore(neutralise(text)) == text
    assert neutralise("\tTab") == "'\tTab" and neutralise("'quoted") == "'quoted"
    exported = tmp_path / "formulas.csv"
    exported.write_text(written, encoding="utf-8")
    outcome, back = run_import(exported)
    assert back is not None, outcome.lines
    origin = "Imported from formulas.csv (CSV) on 2026-12-03"
    assert replace(back, source="") == replace(deck, origin=origin)
