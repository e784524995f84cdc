"""Kahoot spreadsheets: the reproduced official template, a moved header, and broken workbooks."""

from __future__ import annotations

import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from bot.decks.formats import kahoot
from tests.unit.formats.conftest import FIXTURES, Importer, texts
from tests.unit.formats.fixtures.kahoot.make_kahoot_template import build

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


def test_a_stray_far_cell_is_read_in_bounded_time_and_memory(
    tmp_path: Path, run_import: Importer
) -> None:
    # Issue 22 finding 5: one cell at XFD1048576 in a 5 KB workbook made openpyxl pad every row
    # to 16,384 cells for 1,048,576 rows, exhausting memory. Only the template's shape is read.
    path = build(tmp_path / "far.xlsx")
    workbook = load_workbook(path)
    sheet = workbook.active
    assert sheet is not None
    sheet["XFD1048576"] = "far away"
    workbook.save(path)
    assert path.stat().st_size < 10_000
    tracemalloc.start()
    started = time.perf_counter()
    try:
        outcome, deck = run_import(path)
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert deck is not None, outcome.lines
    assert len(deck.questions) == 3  # as from the template itself
    assert peak < 50 * 1024 * 1024, peak
    assert elapsed < 10, elapsed  # generous: about a second under tracemalloc on a loaded machine


def test_rows_past_the_cap_are_not_read_and_the_import_says_so(
    tmp_path: Path, run_import: Importer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kahoot, "MAX_ROWS", 10)
    path = build(tmp_path / "long.xlsx")
    outcome, deck = run_import(path)
    assert deck is not None
    assert f"{path}:10: warning: only the first 10 rows are read; split the sheet" in outcome.lines
