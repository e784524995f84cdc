"""Kahoot spreadsheets: the reproduced official template, a moved header, and broken workbooks."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook

from bot.decks.formats import kahoot
from tests.formats.conftest import FIXTURES, Importer, texts
from tests.formats.fixtures.kahoot.make_kahoot_template import build

TEMPLATE = FIXTURES / "kahoot" / "kahoot-quiz-template.xlsx"


def test_the_committed_fixture_is_what_the_generator_writes(tmp_path: Path) -> None:
    rebuilt = build(tmp_path / "rebuilt.xlsx")
    with zipfile.ZipFile(TEMPLATE) as committed, zipfile.ZipFile(rebuilt) as fresh:
        assert committed.namelist() == fresh.namelist()
        for name in committed.namelist():
            if name != "docProps/core.xml":  # openpyxl stamps the save time in it
                assert committed.read(name) == fresh.read(name), name


def test_the_template_imports_single_answer_rows(run_import: Importer) -> None:
    outcome, deck = run_import(TEMPLATE)
    assert deck is not None
    assert [line.split(":", 1)[1] for line in outcome.lines if ": skipped: " in line] == [
        "11: skipped: several answers are correct (1,2); a deck question has one",
        "13: skipped: the correct answer '4' names no filled answer column",
        "14: skipped: no correct answer is given (column 'Correct answer(s)')",
    ]
    found = texts(deck)
    assert found["which-planet-is-known-as-the-red-planet"]["answer"] == 1
    assert found["water-boils-at-100-c-at-sea-level"]["choices"] == ["True", "False"]
    hexagon = found["how-many-sides-does-a-hexagon-have"]
    assert (hexagon["choices"], hexagon["answer"]) == (["4", "5", "6", "8"], 2)
    assert hexagon["explanation"] == "The answer is 6."
    assert any("3 of 3 questions came without an explanation" in line for line in outcome.lines)


def test_the_header_row_is_found_wherever_it_is(tmp_path: Path, run_import: Importer) -> None:
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(["My quiz"])
    sheet.append(["#", "Question", "Answer 1", "Answer 2", "Time limit (sec)", "Correct answer(s)"])
    sheet.append([1, "Up or down?", "Up", "Down", 20, "2"])
    path = tmp_path / "moved.xlsx"
    workbook.save(path)
    _, deck = run_import(path)
    assert deck is not None
    assert texts(deck)["up-or-down"]["answer"] == 1
    assert deck.questions[0].id == "up-or-down"


def test_broken_workbooks_are_refused_in_one_line(
    tmp_path: Path, run_import: Importer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "fake.xlsx"
    fake.write_bytes(b"PK\x03\x04 not really a zip")
    assert run_import(fake)[0].lines == [
        f"{fake}: error: not an .xlsx workbook (it is not a zip archive)"
    ]
    other = tmp_path / "other.xlsx"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("word/document.xml", "<w/>")
    assert run_import(other)[0].lines == [
        f"{other}: error: a zip archive, but not an .xlsx workbook (no xl/ folder)"
    ]
    monkeypatch.setattr(kahoot, "MAX_UNPACKED_BYTES", 1000)
    outcome, _ = run_import(TEMPLATE)
    assert outcome.lines[0].startswith(f"{TEMPLATE}: error: the workbook unpacks to ")
    assert outcome.lines[0].endswith(" bytes (at most 0 MiB); refusing it")
    empty = tmp_path / "empty.xlsx"
    Workbook().save(empty)
    monkeypatch.undo()
    assert run_import(empty)[0].lines == [
        f"{empty}: error: no header row with Question, Answer 1, Answer 2 and Correct answer(s) in "
        "the first 50 rows; is this Kahoot's quiz template?"
    ]
