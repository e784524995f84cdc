"""Aiken import against Moodle's own fixtures and its importer test (aikenformat_test.php)."""

from __future__ import annotations

from pathlib import Path

from bot.decks.formats.aiken import read_aiken
from tests.unit.formats.conftest import FIXTURES, Importer, texts

AIKEN = FIXTURES / "moodle" / "aiken"


def test_questions_aiken_imports_both_questions_as_plain_text(run_import: Importer) -> None:
    # Moodle imports 2 (behat: "Importing 2 questions"); Aiken text is plain, so the HTML-like
    # part of the second question stays as written.
    outcome, deck = run_import(AIKEN / "questions.aiken.txt")
    assert deck is not None and outcome.status == 0
    first, second = texts(deck).values()
    assert (first["text"], first["answer"]) == ("The Moodle project was started by:", 1)
    assert first["choices"] == ["Petr Skoda", "Martin Dougiamas", "Eloy Lafuente", "Tim Hunt"]
    assert second["text"] == (
        "Moodle's abilities include handling user input that includes "
        '<html class="cool"> & images:'
    )
    assert (second["choices"], second["answer"]) == (["True", "False"], 0)
    assert second["explanation"] == "The answer is True."


def test_aiken_errors_imports_the_two_good_questions_and_reports_the_rest(
    run_import: Importer,
) -> None:
    # aikenformat_test::test_readquestions: 2 questions; errors for "too few answers" (line 3
    # in Moodle, where its ANSWER is), "not started" on lines 5 and 7, and "not completed before
    # next question start on line 18". Questions are reported here at the line they start on.
    outcome, deck = run_import(AIKEN / "aiken_errors.txt")
    assert deck is not None
    skipped = [line.split(":", 1)[1] for line in outcome.lines if ": skipped: " in line]
    assert skipped == [
        "1: skipped: it has 1 choice; a deck question has 2 to 5",
        "5: skipped: a choice line with no question line before it",
        "7: skipped: an ANSWER line with no question line before it",
        "14: skipped: it has no ANSWER line before the next question (line 18)",
    ]
    found = texts(deck)
    assert found["a-good-question"]["choices"] == ["Correct", "Incorrect"]
    assert found["a-good-question"]["answer"] == 0
    assert found["a-second-good-question"]["choices"] == [
        "Incorrect (No space)",
        "Correct (No space)",
    ]
    assert found["a-second-good-question"]["answer"] == 1


def test_answer_naming_no_choice_and_a_missing_answer_are_skipped() -> None:
    deck = read_aiken("Q one\nA. x\nB. y\nANSWER: C\n\nQ two\nA) x\nB) y\n", "en")
    assert [(note.line, note.message) for note in deck.notes] == [
        (1, "ANSWER: C on line 4 names no choice (A, B)"),
        (6, "the file ends before its ANSWER line"),
    ]


def test_garbage_imports_nothing_and_says_so(tmp_path: Path, run_import: Importer) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("ANSWER: A\nA) lonely\n")
    outcome, deck = run_import(junk, fmt="aiken")
    assert deck is None and outcome.status == 1
    assert outcome.lines == [
        f"{junk}:1: skipped: an ANSWER line with no question line before it",
        f"{junk}:2: skipped: a choice line with no question line before it",
        f"{junk}: error: no question could be imported (2 skipped); nothing written",
    ]


def test_several_right_answers_are_skipped_not_imported_with_the_first() -> None:
    # Issue 23 D4: `ANSWER: A,B,C` was imported with A as the only right answer.
    deck = read_aiken(
        "Which are primes?\nA) 2\nB) 3\nC) 4\nANSWER: A,B\n\nWhich?\nA) x\nB) y\nANSWER: A and B\n",
        "en",
    )
    assert deck.questions == []
    assert [(note.line, note.message) for note in deck.notes] == [
        (1, "ANSWER: A,B on line 5 marks several right answers; a deck question has exactly one"),
        (
            7,
            "ANSWER: A and B on line 10 marks several right answers; "
            "a deck question has exactly one",
        ),
    ]


def test_a_question_starting_with_a_capital_and_a_period_is_a_question() -> None:
    # Issue 23 D12: "U.S. ..." was read as a choice (as Moodle does); choices run A, B, C.
    deck = read_aiken(
        "Who wrote it?\nA) Jefferson\nB) Adams\nANSWER: A\n"
        "U.S. presidents serve how many years?\nA) 4\nB) 6\nANSWER: A\n"
        "A. Lincoln was born in which state?\nA) Kentucky\nB) Ohio\nANSWER: A\n",
        "en",
    )
    assert deck.notes == []
    assert [(q.line, q.text["en"], [c.text["en"] for c in q.choices]) for q in deck.questions] == [
        (1, "Who wrote it?", ["Jefferson", "Adams"]),
        (5, "U.S. presidents serve how many years?", ["4", "6"]),
        (9, "A. Lincoln was born in which state?", ["Kentucky", "Ohio"]),
    ]


def test_a_choice_letter_out_of_order_starts_a_question_and_is_reported() -> None:
    deck = read_aiken("Which?\nA) x\nC) y\nANSWER: A\n", "en")
    assert deck.questions == []
    assert [(note.line, note.message) for note in deck.notes] == [
        (
            1,
            "it has no ANSWER line before the next question (line 3), "
            "read as a question since its label C is not B",
        ),
        (3, "ANSWER: A on line 4 names no choice (none)"),
    ]
