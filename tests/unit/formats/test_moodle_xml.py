"""Moodle XML import against Moodle's own fixtures, and an export Moodle's format can read back."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from bot.decks.formats import export_deck
from tests.unit.formats.conftest import FIXTURES, Importer, load_deck, texts

XML = FIXTURES / "moodle" / "xml"
SEED = Path(__file__).resolve().parents[3] / "questions" / "model-pipeline-parallelism.yaml"


def _notes(lines: list[str], kind: str) -> list[str]:
    found = (re.match(rf"^.*?:(\d+): {kind}: (.*)$", line) for line in lines)
    return [f"{match.group(1)} {match.group(2)}" for match in found if match]


def test_multichoice_greeting_drops_its_images_and_its_audio_link(run_import: Importer) -> None:
    # Moodle imports 1 question (behat: "Importing 1 questions", "Greeting"). Its text links to
    # bonjour.mp3 and each answer shows a flag image, stored in the file: neither is imported.
    outcome, deck = run_import(XML / "multichoice.trimmed.xml")
    assert deck is not None
    assert _notes(outcome.lines, "warning") == [
        "12 image dropped from question greeting",
        "12 linked file dropped from question greeting",
    ]
    assert texts(deck)["greeting"] == {
        "text": "Listen to this greeting:\n\nWhat language is being spoken?",
        "choices": ["English", "French", "German", "Danish"],
        "answer": 1,
        "whys": ["Sorry, listen again.", None, "Sorry, listen again.", "Sorry, listen again."],
        "explanation": "Yes, well done!",
        "tags": ["multichoice"],
    }
    assert deck.title == {"en": "Default for testhead"}


def test_truefalse_imports_both_questions_with_their_feedback(run_import: Importer) -> None:
    # Moodle imports 2 ("Moodle acronym (False)" and "(True)"), showing "Moodle [Moodle logo]
    # is an acronym for ... Education." and "... Environment.".
    outcome, deck = run_import(XML / "truefalse.trimmed.xml")
    assert deck is not None
    assert _notes(outcome.lines, "skipped") == []
    found = texts(deck)
    more = "For further information, see the documentation about Moodle"
    link = "(http://docs.moodle.org/en/About_Moodle)"
    assert found["moodle-acronym-false"] == {
        "text": "Moodle is an acronym for Modular Object-Oriented Dynamic Learning Education.",
        "choices": ["True", "False"],
        "answer": 1,
        "whys": ["Your answer is incorrect.", None],
        "explanation": f"Your answer is correct.\n\n{more} {link}.",
        "tags": ["truefalse"],
    }
    assert found["moodle-acronym-true"]["answer"] == 0
    assert found["moodle-acronym-true"]["whys"] == [None, "Your answer is incorrect."]
    assert found["moodle-acronym-true"]["text"].endswith("Learning Environment.")
    assert _notes(outcome.lines, "warning") == [
        "12 image dropped from question moodle-acronym-false",
        "40 image dropped from question moodle-acronym-true",
    ]


def test_old_image_tag_is_dropped_and_cloze_skipped(run_import: Importer) -> None:
    # Moodle imports 2: the cloze question and "mcq with image" (with its Moodle 1.9 <image>).
    outcome, deck = run_import(XML / "sample_questions_with_old_image_tag.xml")
    assert deck is not None
    assert _notes(outcome.lines, "skipped") == ["16 an embedded-answers (cloze) question"]
    assert _notes(outcome.lines, "warning") == ["36 image dropped from question mcq-with-image"]
    found = texts(deck)["mcq-with-image"]
    assert found["text"] == (
        'This is a multichoice question with an image in the old "image" field that was used '
        "in Moodle 1.9"
    )
    assert (found["choices"], found["answer"]) == (
        ["wrong answer", "another wrong answer", "right answer"],
        2,
    )
    assert deck.questions[0].shuffle is True


def test_nested_categories_title_the_deck_and_tag_the_questions(run_import: Importer) -> None:
    # xmlformat_test::test_import_nested_categories_with_questions: Iota Question in Iota, Kappa
    # Question in Iota/Kappa, Lambda Question in Iota/Kappa/Lambda, Mu Question in Iota/Mu; the
    # essay in Kappa is imported by Moodle, skipped here.
    outcome, deck = run_import(XML / "nested_categories_with_questions.xml")
    assert deck is not None
    assert deck.title == {"en": "Iota"}
    assert _notes(outcome.lines, "skipped") == ["55 an essay question"]
    assert {q.id: list(q.tags) for q in deck.questions} == {
        "iota-question": [],
        "kappa-question": ["kappa"],
        "lambda-question": ["kappa", "lambda"],
        "mu-question": ["mu"],
    }
    assert all(q.answer == 0 for q in deck.questions)


def test_partial_credit_grades_import_nothing(run_import: Importer) -> None:
    # Moodle refuses this file: "invalid grades" (0.33 is not one of its fractions).
    outcome, deck = run_import(XML / "error_invalid_grades.xml")
    assert deck is None and outcome.status == 1
    assert _notes(outcome.lines, "skipped") == [
        "4 answer 2 gives partial credit (33%); a deck question has one answer"
    ]
    assert outcome.lines[-1].endswith(
        "error: no question could be imported: answer 2 gives partial credit (33%); a deck "
        "question has one answer; nothing written"
    )


def test_broken_xml_is_reported_at_its_line(tmp_path: Path, run_import: Importer) -> None:
    broken = tmp_path / "broken.xml"
    broken.write_text('<?xml version="1.0"?>\n<quiz>\n  <question type="multichoice">\n</quiz>\n')
    outcome, deck = run_import(broken)
    assert deck is None
    assert outcome.lines == [f"{broken}:4: error: not well-formed XML: mismatched tag"]
    other = tmp_path / "other.xml"
    other.write_text("<html><body/></html>")
    outcome, _ = run_import(other)
    assert outcome.lines == [
        f"{other}:1: error: the root element is <html>, not <quiz>: not a Moodle XML export"
    ]


def test_elements_nested_too_deep_are_refused_where_they_pass_the_limit(
    tmp_path: Path, run_import: Importer
) -> None:
    # 10 MiB of `<a>` built a 3.5-million-deep tree (1.7 GB at its peak) only to be refused at
    # the end as not well-formed; now the 65th level stops the reading where it stands.
    deep = tmp_path / "deep.xml"
    deep.write_text("<quiz>\n" + "<a>\n" * 100_000)
    outcome, deck = run_import(deep)
    assert deck is None
    assert outcome.lines == [
        f"{deep}:65: error: elements nest more than 64 deep (a Moodle export nests six); "
        "refusing it"
    ]
    fits = tmp_path / "fits.xml"
    fits.write_text("<quiz>" + "<a>" * 63 + "</a>" * 63 + "</quiz>")
    outcome, _ = run_import(fits)
    assert outcome.lines == [  # read to its end: only its missing questions are said
        f"{fits}: error: no question could be imported (0 skipped); nothing written"
    ]


def test_export_is_well_formed_moodle_xml() -> None:
    deck, _ = load_deck(SEED)
    assert deck is not None
    root = ET.fromstring(export_deck(deck, "moodle-xml", "en"))
    questions = root.findall("question")
    assert questions[0].get("type") == "category"
    assert questions[0].findtext("category/text") == "$course$/Model and Pipeline Parallelism Quiz"
    assert len(questions) == len(deck.questions) + 1
    for element, question in zip(questions[1:], deck.questions, strict=True):
        assert element.get("type") == "multichoice"
        assert element.findtext("name/text") == question.id
        assert element.findtext("single") == "true"
        fractions = [answer.get("fraction") for answer in element.findall("answer")]
        assert fractions == ["100" if i == question.answer else "0" for i in range(len(fractions))]
        assert element.findtext("generalfeedback/text") == question.explanation["en"]
        feedback = [
            answer.findtext("feedback/text") or None for answer in element.findall("answer")
        ]
        assert feedback == [(choice.why or {}).get("en") for choice in question.choices]
        assert [tag.text for tag in element.findall("tags/tag/text")] == list(question.tags)


def test_xml_that_declares_latin_1_is_read_as_latin_1(run_import: Importer) -> None:
    # Issue 36 finding 9 (d11): a 63-question Hungarian bank Moodle reads was refused as
    # "not UTF-8".
    outcome, deck = run_import(FIXTURES / "repros" / "d11-xml-declared-latin1.xml", locale=None)
    assert deck is not None, outcome.lines
    assert deck.locales == ("hu",)
    question = deck.questions[0]
    assert question.id == "melyik-fajl"
    assert question.text["hu"] == "Melyik fájl tartalmát kell eltárolnunk?"
    assert question.right.text["hu"] == "authorized_keys"


def test_latin_1_bytes_without_a_declaration_are_still_refused(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "latin.xml"
    source.write_bytes(
        "<quiz><question type='multichoice'>fájl</question></quiz>".encode("latin-1")
    )
    outcome, deck = run_import(source)
    assert deck is None
    assert "not UTF-8 (byte 0xe1" in outcome.lines[0]


def test_a_skip_reason_quotes_latex_as_written(run_import: Importer) -> None:
    # Finding 10 (d9): the reason quoted the text Python-escaped, every backslash doubled.
    source = FIXTURES / "repros" / "d9-repr-in-skip-reason.xml"
    outcome, _ = run_import(source)
    assert outcome.lines[0] == (
        f"{source}:1: skipped: choices 2 and 4 read the same: '\\( \\frac{{n}}{{E}} \\)'"
    )
