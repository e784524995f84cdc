"""Moodle CSV import on the qformat_csv plugin's own sample files (fixtures/moodle-csv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.decks.formats.moodle_csv import read_moodle_csv
from tests.unit.formats.conftest import FIXTURES, Importer, texts

CSV = FIXTURES / "moodle-csv"


@pytest.mark.parametrize("name", ["sample.csv", "extended_sample.csv"])
def test_the_plugins_samples_import_but_the_question_with_two_right_answers(
    run_import: Importer, name: str
) -> None:
    # The plugin imports all 10 rows; Question2 has Answer 1 = A and Answer 2 = B (half marks
    # each), which a deck question cannot hold.
    source = CSV / name
    outcome, deck = run_import(source)
    assert deck is not None and outcome.status == 0
    assert [line for line in outcome.lines if ": skipped: " in line] == [
        f"{source}:3: skipped: it has two right answers (A and B); a deck question has one"
    ]
    questions = texts(deck)
    assert len(questions) == 9
    first = questions["question1"]
    assert (first["text"], first["choices"][first["answer"]]) == (
        "The dmesg command",
        "kernel log messages",
    )
    unix = questions["question6"]
    assert unix["choices"] == ["uname -r", "uname -n", "uname -t", "kernel"]
    assert unix["answer"] == 0
    find = questions["question8"]
    assert find["text"] == "Find / -name ‘*’ will"


def test_every_row_is_imported_or_reported() -> None:
    text = (
        "questionname,questiontext,A,B,C,D,Answer 1,Answer 2,generalfeedback\n"
        "Q1,Which is a shell?,bash,vim,,,A,,bash reads commands.\n"
        "Q2,Which prints a file?,cat,ls,pwd,cd,E,,\n"
        "Q3,Which lists files?,cat,ls,pwd,cd,,,\n"
        "Q4,Which changes folder?,cat,ls,pwd,cd,D,,,extra,cells\n"
        "\n"
        'Q5,"Which, of these, copies?",cp,mv,rm,,D,,\n'
        "Q6,Which moves?,cp,mv,rm,ln,B,B,\n"
    )
    deck = read_moodle_csv(text, "en")
    assert [(note.line, note.message) for note in deck.notes] == [
        (3, "Answer 1 is 'E'; it must be A, B, C or D"),
        (4, "Answer 1 is empty; it must be A, B, C or D"),
        (
            5,
            "it has 11 cells for 9 columns; put a text holding a comma in double quotes "
            '("None, of the above")',
        ),
        (7, "Answer 1 is D, whose option is empty"),
    ]
    first, sixth = deck.questions
    assert [c.text["en"] for c in first.choices] == ["bash", "vim"]  # empty C and D dropped
    assert first.explanation == {"en": "bash reads commands."}
    assert (sixth.name, sixth.answer) == ("Q6", 1)  # Answer 2 repeating Answer 1 is one answer


def test_a_header_that_is_not_moodles_is_one_error(tmp_path: Path, run_import: Importer) -> None:
    source = tmp_path / "quiz.csv"
    source.write_text("questionname,questiontext,A,B,Correct\nQ,Up?,yes,no,A\n", encoding="utf-8")
    outcome, deck = run_import(source, fmt="moodle-csv")
    assert deck is None
    # its names say what each column holds, so the refusal gives the --columns that read it
    assert outcome.lines == [
        f"{source}:1: error: this is not Moodle's own CSV layout but a fork of it (columns "
        "questionname, questiontext, A, B, Correct); import it with --format csv "
        "--columns id,text,choice,choice,answer"
    ]
    source.write_text("questionname,questiontext,A,B,Level\nQ,Up?,yes,no,2\n", encoding="utf-8")
    outcome, deck = run_import(source, fmt="moodle-csv", out=tmp_path / "b.yaml")
    assert outcome.lines == [
        f"{source}:1: error: the header has no C, D, Answer 1; Moodle's CSV import needs "
        "questionname,questiontext,A,B,C,D,Answer 1,Answer 2 (case matters)"
    ]
