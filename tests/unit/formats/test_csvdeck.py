"""CSV decks: the documented header, every locale, BOM, quoted lines, and errors at their line."""

from __future__ import annotations

from pathlib import Path

from bot.decks.formats.csvdeck import read_csv
from tests.unit.formats.conftest import Importer, texts

HEADER = "id,answer,tags,shuffle,text:en,choice1:en,why1:en,choice2:en,why2:en,explanation:en"


def test_a_hand_written_csv_imports_with_its_deck_columns(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "capitals.csv"
    source.write_text(
        "\ufeffid,answer,tags,text,choice1,choice2,choice3,why2,explanation,"
        "deck_title,deck_shuffle\n"
        'france,B,geo; europe,"Capital of\nFrance?",Lyon,Paris,Nice,,It is Paris.,Capitals,false\n'
        ",1,,Capital of Peru?,Lima,Cusco,,Cusco was the Inca capital.,,,\n",
        encoding="utf-8",
    )
    outcome, deck = run_import(source)
    assert deck is not None, outcome.lines
    assert deck.id == "capitals" and deck.title == {"en": "Capitals"}
    found = texts(deck)
    assert found["france"] == {
        "text": "Capital of\nFrance?",
        "choices": ["Lyon", "Paris", "Nice"],
        "answer": 1,
        "whys": [None, None, None],
        "explanation": "It is Paris.",
        "tags": ["geo", "europe"],
    }
    assert found["capital-of-peru"]["whys"] == [None, "Cusco was the Inca capital."]
    assert all(question.shuffle is False for question in deck.questions)


def test_bad_rows_are_skipped_at_the_line_they_start_on() -> None:
    deck = read_csv(
        HEADER + '\na,C,,,"Two\nlines",x,,y,,e\nb,A,,maybe,Q,x,,y,,e\nc,B,,,Q,x,,x,,e\n',
        "en",
    )
    assert [(note.line, note.message) for note in deck.notes] == [
        (4, "shuffle 'maybe' is not true or false"),
    ]
    assert [(q.line, q.name) for q in deck.questions] == [(2, "a"), (5, "c")]


def test_a_csv_without_the_needed_columns_is_refused_at_line_1(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "list.csv"
    source.write_text("question,answer\nWhat?,yes\n")
    outcome, deck = run_import(source)
    assert deck is None
    assert outcome.lines[-1] == (
        f"{source}:1: error: the header has no text, choice1, choice2 column; a deck CSV needs at "
        "least answer, text:<locale>, choice1:<locale> and choice2:<locale>"
    )


def test_missing_locales_and_answers_out_of_range_are_skipped(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "mixed.csv"
    columns = ["id", "answer", "text:en", "text:bn"]
    columns += [f"choice{n}:{locale}" for n in (1, 2, 3) for locale in ("en", "bn")]
    header = ",".join(columns)
    source.write_text(
        header + "\n"
        "ok,A,Q?,প্রশ্ন?,a,ক,b,খ,,\n"
        "c-out,C,Q?,প্রশ্ন?,a,ক,b,খ,,\n"
        "no-bn,A,Q?,,a,ক,b,খ,,\n"
        "bad,Z,Q?,প্রশ্ন?,a,ক,b,খ,,\n",
        encoding="utf-8",
    )
    outcome, deck = run_import(source)
    assert deck is not None
    assert deck.locales == ("en", "bn")
    assert [q.id for q in deck.questions] == ["ok"]
    assert [line.split(":", 1)[1] for line in outcome.lines if ": skipped: " in line] == [
        "3: skipped: its answer names no choice",
        "4: skipped: its text is empty in 'bn'",
        "5: skipped: answer Z is not a choice letter A-E or number 1-5",
    ]


def test_six_choices_are_more_than_a_deck_question_holds(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "six.csv"
    header = ",".join(["answer", "text", *(f"choice{n}" for n in range(1, 7))])
    source.write_text(f"{header}\nA,Six?,1,2,3,4,5,6\nA,Two?,1,2,,,,\n")
    outcome, deck = run_import(source)
    assert deck is not None
    assert [q.id for q in deck.questions] == ["two"]
    assert f"{source}:2: skipped: it has 6 choices; a deck question has 2 to 5" in outcome.lines


def test_semicolons_as_excel_writes_them_in_many_locales(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "semi.csv"
    source.write_text("answer;text;choice1;choice2\nB;Largest planet?;Mars;Jupiter, the giant\n")
    _, deck = run_import(source)
    assert deck is not None
    assert texts(deck)["largest-planet"]["choices"] == ["Mars", "Jupiter, the giant"]


def test_a_description_missing_a_locale_is_left_out(tmp_path: Path, run_import: Importer) -> None:
    source = tmp_path / "two.csv"
    source.write_text(
        "answer,text:en,text:bn,choice1:en,choice1:bn,choice2:en,choice2:bn,deck_description:en\n"
        "A,Yes?,হ্যাঁ?,yes,হ্যাঁ,no,না,English only\n",
        encoding="utf-8",
    )
    outcome, deck = run_import(source)
    assert deck is not None and deck.description is None
    assert outcome.lines[0] == f"{source}: warning: the description has no bn; left out"


def test_a_non_utf8_csv_is_refused_with_its_line(tmp_path: Path, run_import: Importer) -> None:
    source = tmp_path / "excel.csv"
    source.write_bytes((HEADER + "\nq,A,,,Caf\xe9?,a,,b,,e\n").encode("cp1252"))
    outcome, _ = run_import(source)
    assert outcome.lines == [
        f"{source}:2: error: not UTF-8 (byte 0xe9, column 10); save the file as UTF-8"
    ]


def test_a_questions_own_game_time_is_read_and_a_bad_one_skipped(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "timed.csv"
    source.write_text(
        "id,answer,seconds,text,choice1,choice2,choice3,explanation\n"
        "slow,A,45,How long does a ring all-reduce take?,2S,S,4S,It moves 2S.\n"
        "quick,B,,Which is larger?,1,2,0,Two.\n"
        "bad,A,5,Too quick?,yes,no,maybe,No.\n"
        "worse,A,²,Superscript?,yes,no,maybe,No.\n",
        encoding="utf-8",
    )
    outcome, deck = run_import(source)
    assert deck is not None, outcome.lines
    assert {q.id: q.seconds for q in deck.questions} == {"slow": 45, "quick": None}
    skipped = [line for line in outcome.lines if ": skipped: " in line]
    assert [line.split(": ", 1)[1] for line in skipped] == [
        "skipped: seconds '5' is not a whole number of seconds from 10 to 300",
        "skipped: seconds '²' is not a whole number of seconds from 10 to 300",
    ]
