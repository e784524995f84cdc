"""Quiz JSON import on the shapes public question banks use (see fixtures/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.formats.conftest import FIXTURES, Importer, texts

JSON = FIXTURES / "json"


def skipped(outcome_lines: list[str], source: Path) -> list[str]:
    return [line.removeprefix(f"{source}:") for line in outcome_lines if ": skipped: " in line]


def test_an_array_with_answer_indexes_reads_them_from_zero_because_one_is_zero(
    run_import: Importer,
) -> None:
    source = JSON / "devops-questions.json"
    outcome, deck = run_import(source)
    assert deck is not None and outcome.status == 0
    assert outcome.lines[0] == (
        f"{source}: warning: 5 answers are numbers, read as 0-based (0 is the first choice) "
        "because an answer is 0"
    )
    assert skipped(outcome.lines, source) == [
        "44: skipped: its answer 4 names no choice (4 choices, counted from 0)"
    ]
    questions = texts(deck)
    assert list(questions) == ["q1", "q2", "q3", "q4"]
    assert questions["q2"]["choices"][questions["q2"]["answer"]] == "Dockerfile"
    assert questions["q4"]["choices"][questions["q4"]["answer"]] == (
        "Whether the container should be restarted"
    )
    assert questions["q1"]["explanation"].startswith("Continuous Integration merges")
    assert questions["q1"]["tags"] == ["continuous-integration"]


def test_numbers_are_read_from_one_when_an_answer_equals_the_number_of_choices(
    run_import: Importer,
) -> None:
    source = JSON / "one-based.json"
    outcome, deck = run_import(source)
    assert deck is not None
    assert outcome.lines[0] == (
        f"{source}: warning: 3 answers are numbers, read as 1-based (1 is the first choice) "
        "because an answer equals its question's number of choices"
    )
    right = [q["choices"][q["answer"]] for q in texts(deck).values()]
    assert right == ["4", "23", "8"]


def test_a_bengali_bank_with_answers_as_text(run_import: Importer) -> None:
    source = JSON / "bn-bank.json"
    outcome, deck = run_import(source, locale="bn")
    assert deck is not None and deck.locales == ("bn",)
    assert skipped(outcome.lines, source) == [
        "24: skipped: its answer 'অস্ট্রেলিয়া' is not one of its choices, a letter or a number"
    ]
    questions = list(texts(deck, "bn").values())
    assert [q["choices"][q["answer"]] for q in questions] == [
        "শাপলা",
        "১০০°C",
        "ঢাকা",
        "১৬ ডিসেম্বর ১৯৭১",
        "মঙ্গল",
    ]
    assert questions[0]["text"] == "বাংলাদেশের জাতীয় ফুল কী?"
    assert questions[0]["explanation"].startswith("শাপলা বাংলাদেশের জাতীয় ফুল")
    assert questions[1]["explanation"] == "উত্তর হলো ১০০°C।"


def test_options_as_keys_and_answers_as_latin_or_bengali_letters(run_import: Importer) -> None:
    outcome, deck = run_import(JSON / "bn-letters.json", locale="bn")
    assert deck is not None, outcome.lines
    questions = list(texts(deck, "bn").values())
    assert questions[0]["choices"] == ["১৮৬১", "১৮৬৫", "১৮৭১", "১৮৮১"]
    assert [q["choices"][q["answer"]] for q in questions] == [
        "১৮৬১",
        "রবীন্দ্রনাথ ঠাকুর",
        "কাজী নজরুল ইসলাম",
    ]


def test_options_flagged_right_and_a_question_with_two_right_ones(run_import: Importer) -> None:
    source = JSON / "flagged-options.json"
    outcome, deck = run_import(source)
    assert deck is not None
    assert skipped(outcome.lines, source) == [
        "16: skipped: it has 2 right answers; a deck question has one"
    ]
    first, third = texts(deck).values()
    assert (first["choices"][first["answer"]], third["choices"][third["answer"]]) == (
        "DNS",
        "Reliable, ordered delivery",
    )
    assert first["explanation"].startswith("DNS resolves names")
    assert deck.title == {"en": "Networking basics"}
    assert deck.description == {"en": "A short check on how the internet moves packets."}


def test_a_node_module_whose_array_is_json_is_read(run_import: Importer) -> None:
    outcome, deck = run_import(JSON / "questions.js")
    assert deck is not None, outcome.lines
    assert [q["text"] for q in texts(deck).values()] == [
        "বাংলাদেশের জাতীয় ফুল কী?",
        "Which planet is known as the Red Planet?",
    ]


def test_a_javascript_array_that_is_not_json_says_how_to_convert_it(run_import: Importer) -> None:
    source = JSON / "unquoted.js"
    outcome, deck = run_import(source)
    assert deck is None and outcome.status == 1
    [line] = outcome.lines
    assert line.startswith(f"{source}:3: error: this is JavaScript, not JSON: ")
    assert "JSON.stringify" in line


@pytest.mark.parametrize(
    ("document", "found"),
    [
        ({"name": "app", "version": "1.0.0"}, "an object with keys name, version"),
        ([1, 2, 3], "an array of 3 items and no objects"),
        (
            [{"title": "Post", "body": "..."}],
            "an array of 1 items whose objects have keys title, body",
        ),
    ],
)
def test_json_without_questions_is_one_line_saying_what_it_holds(
    tmp_path: Path, run_import: Importer, document: object, found: str
) -> None:
    source = tmp_path / "data.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    outcome, deck = run_import(source)
    assert deck is None
    assert outcome.lines == [
        f"{source}: error: no questions found: this JSON is {found}. A quiz JSON file is an "
        "array of objects each with a question, its choices and the answer (or an object "
        'holding such an array under a key like "questions"); an Open Trivia DB response '
        "takes --format opentdb"
    ]


def test_every_object_is_imported_or_skipped_at_its_line(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "quiz.json"
    source.write_text(
        '{"questions": [\n'
        '  {"question": "Up?", "options": ["yes", "no"], "answer": "yes"},\n'
        '  {"question": "No choices", "answer": "x"},\n'
        '  "a string",\n'
        '  {"prompt": "Which?", "choices": ["a", "b", "c"], "correctAnswer": "C"},\n'
        '  {"question": "Two?", "options": ["a", "b"], "answer": ["a", "b"]},\n'
        '  {"question": "None?", "options": ["a", "b"]},\n'
        '  {"question": "Letter?", "options": ["x", "y"], "answer": "option B"}\n'
        "]}\n",
        encoding="utf-8",
    )
    outcome, deck = run_import(source)
    assert deck is not None
    assert skipped(outcome.lines, source) == [
        "3: skipped: it has no choices (options, choices, answers, or optionA, optionB...)",
        "4: skipped: item 3 is not an object",
        "6: skipped: it has 2 right answers; a deck question has one",
        "7: skipped: it has no answer (answer, correctAnswer, answerIndex...)",
    ]
    right = [q["choices"][q["answer"]] for q in texts(deck).values()]
    assert right == ["yes", "c", "y"]
    assert outcome.lines[-1].endswith(
        "wrote 3 questions from " + f"{source} (quiz JSON), 4 skipped"
    )


def test_category_arrays_become_tags(tmp_path: Path, run_import: Importer) -> None:
    source = tmp_path / "bank.json"
    source.write_text(
        json.dumps(
            {
                "History": [{"question": "Year?", "options": ["1971", "1952"], "answer": 0}],
                "Science": [{"question": "H2O?", "options": ["water", "salt"], "answer": 0}],
            }
        ),
        encoding="utf-8",
    )
    outcome, deck = run_import(source)
    assert deck is not None, outcome.lines
    assert [q["tags"] for q in texts(deck).values()] == [["history"], ["science"]]


def test_the_ways_files_give_choices_and_answers(tmp_path: Path, run_import: Importer) -> None:
    source = tmp_path / "shapes.json"
    questions = [
        {"question": "A?", "correct_answer": "yes", "incorrect_answers": ["no", "maybe"]},
        {
            "question": "B?",
            "answers": [{"answer": "x", "correct": False}, {"answer": "y", "correct": True}],
        },
        {"question": "C?", "options": {"a": "one", "b": "two", "c": "three"}, "answer": "c"},
        {"question": "D?", "options": ["p", "q"], "answer": "(b)"},
        {"question": "E?", "options": ["p", "q", "r"], "answer": "Option 3"},
        {
            "question": "F?",
            "options": [{"text": "r", "explanation": "r is wrong"}, {"text": "s"}],
            "correct_answer": "s",
        },
        {"question": "G?", "options": ["6", "8", "10"], "answer": "8"},
        {"question": "H?", "options": ["Delhi", "Dhaka"], "answer": "Dhaka"},
    ]
    source.write_text(json.dumps({"data": {"questions": questions}}), encoding="utf-8")
    outcome, deck = run_import(source)
    assert deck is not None and outcome.status == 0, outcome.lines
    read = list(texts(deck).values())
    assert [q["choices"][q["answer"]] for q in read] == [
        "yes",
        "y",
        "three",
        "q",
        "r",
        "s",
        "8",  # the text "8", not index 8
        "Dhaka",  # a text starting with a letter is not that letter
    ]
    assert read[5]["whys"] == ["r is wrong", None]
