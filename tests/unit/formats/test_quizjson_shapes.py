"""Quiz JSON shapes of real banks (issue 36): nothing a question needs is dropped, and a file
that cannot be a deck says why in its own terms."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.formats.conftest import FIXTURES, Importer, texts

REPROS = FIXTURES / "repros"


def test_a_bengali_exam_question_keeps_its_statements_and_its_passage(
    run_import: Importer,
) -> None:
    # Finding 1 (d13): "i and ii" cannot be answered without the statements i, ii and iii, nor
    # a question about Soumitra without the passage about him.
    source = REPROS / "d13-bn-statements-context-dropped.json"
    outcome, deck = run_import(source, locale=None)
    assert deck is not None, outcome.lines
    statements, passage = (question.text["bn"] for question in deck.questions)
    assert statements == (
        "স্প্রেডশিট বিশ্লেষণ ব্যবহার করে\ni. লেখালেখি করা সহজ\nii. সূত্র ব্যবহার করা যায়\niii. উপাত্ত বিন্যাস করা যায়"
    )
    assert passage.startswith("সৌমিত্র শখের বশে প্রকৃতি নিয়ে পত্রিকায় লেখালেখি করে।")
    assert passage.endswith("\n\nসৌমিত্রকে তার শখের কাজে কোন সফটওয়্যার ব্যবহার করতে হয়?")
    assert (
        f"{source}: warning: keys not imported, since a deck has no place for them: "
        "type (2 questions)"
    ) in outcome.lines


def test_statements_that_carry_their_own_labels_keep_them(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "labelled.json"
    source.write_text(
        json.dumps(
            [
                {
                    "question": "Which are true?",
                    "statements": ["(i) TCP is reliable", "(ii) UDP is reliable"],
                    "options": ["i only", "ii only", "i and ii"],
                    "answer": "i only",
                    "explanation": "UDP does not retransmit.",
                }
            ]
        )
    )
    _, deck = run_import(source)
    assert deck is not None
    assert deck.questions[0].text["en"] == (
        "Which are true?\n(i) TCP is reliable\n(ii) UDP is reliable"
    )


def test_a_question_given_as_an_object_is_read(run_import: Importer) -> None:
    # Finding 3 (d1): The Trivia API v2's {"question": {"text": ...}} refused the whole file.
    outcome, deck = run_import(REPROS / "d1-question-object-triviaapi.json")
    assert deck is not None, outcome.lines
    (question,) = texts(deck).values()
    assert question["text"] == "Which planet is called the Red Planet?"
    assert sorted(question["choices"]) == ["Jupiter", "Mars", "Saturn", "Venus"]
    assert question["choices"][question["answer"]] == "Mars"


def test_one_text_per_language_makes_a_deck_in_those_languages(
    tmp_path: Path, run_import: Importer
) -> None:
    # Finding 3 (d1): {"en": ..., "de": ...} named the keys it then said it needed.
    source = REPROS / "d1-question-object-multilingual.json"
    outcome, deck = run_import(source, locale=None)
    assert deck is not None, outcome.lines
    assert deck.locales == ("en", "de")
    question = deck.questions[0]
    assert question.text == {
        "en": "What is the capital of France?",
        "de": "Was ist die Hauptstadt von Frankreich?",
    }
    assert question.right.text == {"en": "Paris", "de": "Paris"}
    assert question.explanation == {"en": "The answer is Paris.", "de": "Paris"}
    outcome, deck = run_import(source, locale="de", out=tmp_path / "de.yaml")
    assert deck is not None and deck.locales == ("de",)
    assert deck.questions[0].text["de"] == "Was ist die Hauptstadt von Frankreich?"
    outcome, deck = run_import(source, locale="fr", out=tmp_path / "fr.yaml")
    assert deck is None
    assert outcome.lines == [
        f"{source}: error: the questions are written in en, de; --locale fr names none of them"
    ]


def test_per_choice_feedback_theme_and_source_are_kept(
    tmp_path: Path, run_import: Importer
) -> None:
    # Finding 4 (d3): 390 explanations in a `wrong_answers` map and the `theme` were dropped
    # without a word, as were `source` citations.
    outcome, deck = run_import(REPROS / "d3-wrong-answer-feedback.json")
    assert deck is not None, outcome.lines
    assert deck.title["en"] == "Linux"
    assert texts(deck)["q-1"] == {
        "text": "Which command sets the hardware clock from the system clock?",
        "choices": ["date --sync", "hwclock --systohc", "ntpdate -u"],
        "answer": 1,
        "whys": ["date has no --sync option.", None, "ntpdate syncs from a remote NTP server."],
        "explanation": "hwclock --systohc writes the system time to the hardware clock.",
        "tags": ["installation"],
    }
    assert not any("warning" in line for line in outcome.lines)
    cited = tmp_path / "cited.json"
    cited.write_text(
        json.dumps(
            [
                {
                    "question": "Which signal cannot be caught?",
                    "options": ["SIGTERM", "SIGKILL"],
                    "answer": "SIGKILL",
                    "explanation": "The kernel ends the process at once.",
                    "source": "man 7 signal",
                    "wrong_answers": {"SIGSTOP": "not a choice"},
                }
            ]
        )
    )
    outcome, deck = run_import(cited)
    assert deck is not None
    assert deck.questions[0].explanation["en"] == (
        "The kernel ends the process at once.\n\nman 7 signal"
    )
    assert (
        f"{cited}:1: warning: wrong_answers names 'SIGSTOP', which is none of its choices; "
        "that feedback is left out"
    ) in outcome.lines


def test_a_file_of_one_choice_questions_says_so(run_import: Importer) -> None:
    # Finding 5 (d2): a 3,317-question flashcard bank was refused as "no questions found".
    source = REPROS / "d2-all-one-choice.json"
    outcome, deck = run_import(source)
    assert deck is None
    assert outcome.lines[-3:] == [
        f"{source}:1: skipped: it has 1 choice; a deck question has 2 to 5",
        f"{source}: note: read as quiz JSON, told from its content; if it is another format, "
        "pass --format",
        f"{source}: error: no question could be imported: it has 1 choice; a deck question "
        "has 2 to 5; nothing written",
    ]
    outcome, deck = run_import(REPROS / "d2-mixed-one-choice.json")
    assert deck is not None and len(deck.questions) == 1


def test_a_bank_of_many_one_choice_questions_is_refused_in_one_reason(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "cards.json"
    source.write_text(
        json.dumps(
            [{"question": f"Card {n}?", "answer": 0, "answers": [f"back {n}"]} for n in range(50)]
        )
    )
    outcome, deck = run_import(source)
    assert deck is None
    assert outcome.lines[-1] == (
        f"{source}: error: no question could be imported: each question has 1 choice; a deck "
        "question has 2 to 5; nothing written"
    )


def test_no_flag_true_is_not_called_no_answer(run_import: Importer) -> None:
    # Finding 10 (d12): "it has no answer (answer, correctAnswer...)" when every isCorrect is
    # false.
    source = REPROS / "d12-iscorrect-none-true.json"
    outcome, deck = run_import(source)
    assert deck is not None and len(deck.questions) == 1
    assert (
        f"{source}:1: skipped: none of its choices is marked right (isCorrect is false for "
        "every one)"
    ) in outcome.lines


def test_answer_option_in_the_singular_is_read(tmp_path: Path, run_import: Importer) -> None:
    # Finding 11: the React tutorial's `answerOption`.
    source = tmp_path / "react.json"
    source.write_text(
        json.dumps(
            [
                {
                    "questionText": "Who is CEO of Tesla?",
                    "answerOption": [
                        {"answerText": "Jeff Bezos", "isCorrect": False},
                        {"answerText": "Elon Musk", "isCorrect": True},
                    ],
                }
            ]
        )
    )
    outcome, deck = run_import(source)
    assert deck is not None, outcome.lines
    assert texts(deck)["who-is-ceo-of-tesla"]["answer"] == 1
