"""Shapes of question files teams keep (issue 36, findings 10 and 11): each is read, or refused
in one line that names the shape and how to convert it; and the import says what it guessed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.decks.formats import import_file
from tests.unit.formats.conftest import TODAY, Importer, texts

NUMBERED = (
    "1. If \\( n \\) cells each of emf \\( E \\) are connected in parallel, the emf is\n"
    "(a) \\( \\frac{E}{n} \\)\n(b) \\( E \\)\n(c) \\( nE \\)\n(d) \\( \\sum_{i=1}^{n} E \\)\n\n"
    "2. The value of \\( x \\) in \\( \\frac{x}{2} = 4 \\) is\n"
    "(a) 2\n(b) 4\n(c) 8\n(d) 16\n"
)


def test_numbered_questions_with_latex_braces_are_not_read_as_gift(
    tmp_path: Path, run_import: Importer
) -> None:
    # Finding 10: such a file was read as GIFT (141 misleading skip lines), and the import
    # never said what it guessed. Its answers are kept elsewhere: say so, and how to convert.
    source = tmp_path / "physics.txt"
    source.write_text(NUMBERED)
    outcome, deck = run_import(source)
    assert deck is None
    assert outcome.lines == [
        f"{source}: error: this looks like numbered questions with lettered choices but no "
        "answer lines (an answer key kept in another file?), which no format here reads: write "
        "`ANSWER: X` after each question's choices and import it with --format aiken, or save "
        "it as CSV and import it with --columns"
    ]


def test_a_guess_that_skips_as_much_as_it_reads_is_named(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "mostly-essays.gift"
    source.write_text("::a::Essay one{}\n\n::b::Essay two{}\n\n::c::Up?{=yes ~no}\n")
    outcome, deck = run_import(source)
    assert deck is not None
    assert outcome.lines[-2] == (
        f"{source}: note: read as Moodle GIFT, told from its content; if it is another format, "
        "pass --format"
    )


OPENTRIVIAQA = """
#Q Which of these is true about the sleep of zebras?
^ They sleep standing up.
A All of these
B They sleep standing up.
C They would fall asleep every 5 to 6 hours.

#Q Yesterday I heard this in a shop:

Client: How much is one?
Salesman: Twenty cents.

Could it be a real product?
^ Yes
A No
B Yes

#Q Two days ago my son was three and next year he will be 6.
^ True
A False
B True

#Q Which letter comes next?
^ Q
A T
B W
"""


def test_opentriviaqa_text_is_read(tmp_path: Path, run_import: Importer) -> None:
    # Finding 11: OpenTriviaQA's `#Q` files were not read at all.
    source = tmp_path / "brain-teasers"
    source.write_text(OPENTRIVIAQA)
    outcome, deck = run_import(source)
    assert deck is not None, outcome.lines
    assert deck.license == "CC BY-SA 4.0"
    found = list(texts(deck).values())
    assert [q["choices"][q["answer"]] for q in found] == ["They sleep standing up.", "Yes", "True"]
    assert found[1]["text"].startswith("Yesterday I heard this in a shop:\n\nClient:")
    assert found[2]["choices"] == ["True", "False"]
    assert f"{source}:23: skipped: its answer (^ Q) is none of its choices" in outcome.lines


AIKEN_DIALECTS = """NUMBERING: abc
¿Cuál es la capital de España?
a) Madrid
b) Sevilla
RESPUESTA: a

¿Cuántos bits tiene un byte?
1. Cuatro
2. Ocho
Respuesta: 2
"""


def test_aiken_dialects_are_read(tmp_path: Path, run_import: Importer) -> None:
    # Finding 11: `NUMBERING:` lines and a localised answer line.
    source = tmp_path / "preguntas.txt"
    source.write_text(AIKEN_DIALECTS)
    outcome, deck = run_import(source, locale=None)
    assert deck is not None, outcome.lines
    assert deck.locales == ("es",)
    assert [(q.right.text["es"]) for q in deck.questions] == ["Madrid", "Ocho"]
    assert not any(": skipped: " in line for line in outcome.lines)


FORK = (
    "questionname,questiontext,choices,answer\n"
    'q1,Which command shows kernel messages?,"ls;dmesg;pwd",dmesg\n'
    'q2,Which command prints the working folder?,"pwd;cd;ls",pwd\n'
)


def test_a_moodle_csv_fork_is_refused_with_the_columns_that_read_it(
    tmp_path: Path, run_import: Importer
) -> None:
    # Finding 11: qformat_csv forks (`questionname,questiontext,choices,answer`), and CSV with
    # ';'-joined choices and the answer as text.
    source = tmp_path / "fork.csv"
    source.write_text(FORK)
    outcome, deck = run_import(source)
    assert deck is None
    assert outcome.lines == [
        f"{source}:1: error: this is not Moodle's own CSV layout but a fork of it (columns "
        "questionname, questiontext, choices, answer); import it with --format csv "
        "--columns id,text,choices,answer"
    ]
    target = tmp_path / "fork.yaml"
    outcome = import_file(
        source,
        fmt="csv",
        out=target,
        locale="en",
        deck_id="fork",
        today=TODAY,
        columns="id,text,choices,answer",
    )
    assert outcome.status == 0, outcome.lines
    assert outcome.lines[0] == (
        f"{source}:1: warning: the first row is read as the header (its answer names no choice)"
    )
    text = target.read_text(encoding="utf-8")
    assert "  - id: q1\n    text: Which command shows kernel messages?\n" in text
    assert "      - dmesg\n      - pwd\n    answer: 1\n" in text


def test_columns_read_wrong_answers_and_letters_without_a_header(tmp_path: Path) -> None:
    source = tmp_path / "plain.csv"
    source.write_text(
        "Which planet is red?;Mars;Venus;Jupiter;Iron oxide makes it red.\n"
        "Which planet has rings?;Saturn;Mercury;Mars;Ice and rock.\n"
    )
    target = tmp_path / "plain.yaml"
    outcome = import_file(
        source,
        fmt=None,
        out=target,
        locale="en",
        deck_id="plain",
        today=TODAY,
        columns="text,answer,wrong,wrong,explanation",
    )
    assert outcome.status == 0, outcome.lines
    assert "wrote 2 questions" in outcome.lines[-1]
    assert "Iron oxide makes it red." in target.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("columns", "fmt", "message"),
    [
        ("text,choice,answr", None, "--columns: 'answr' is not a column name; use text, choice"),
        ("text,choice,choice", None, "--columns needs answer"),
        ("text,answer", None, "--columns needs choice (or choices, or wrong)"),
        ("text,choice,answer", "gift", "--columns names a CSV file's columns; it cannot read gift"),
    ],
)
def test_bad_columns_are_a_usage_error(
    tmp_path: Path, columns: str, fmt: str | None, message: str
) -> None:
    source = tmp_path / "any.csv"
    source.write_text("a,b,c\n")
    outcome = import_file(
        source, fmt=fmt, out=None, locale="en", deck_id=None, today=TODAY, columns=columns
    )
    assert outcome.status == 2
    assert outcome.lines[0].startswith(f"{source}: error: {message}")
