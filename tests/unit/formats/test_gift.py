"""GIFT import against Moodle's own fixtures and importer tests, and GIFT's escapes both ways."""

from __future__ import annotations

import re
from pathlib import Path

from bot.decks.formats import export_deck
from bot.decks.formats.gift import read_gift
from bot.decks.model import Choice, Deck, Question
from tests.unit.formats.conftest import FIXTURES, Importer, texts

GIFT = FIXTURES / "moodle" / "gift"


def _skipped(lines: list[str]) -> list[str]:
    """'LINE REASON' for each skipped question in an import's output."""
    found = (re.match(r"^.*?:(\d+): skipped: (.*)$", line) for line in lines)
    return [f"{match.group(1)} {match.group(2)}" for match in found if match]


def test_questions_gift_imports_the_multiple_choice_and_true_false_moodle_imports(
    run_import: Importer,
) -> None:
    # Moodle imports 9 questions from this file (its behat test: "Importing 9 questions"):
    # essay Q8, matching "Moodle activities", multichoice Q2, multiple-response "colours",
    # numerical Q5, short answer, and true/false Q1 and "2-08 TSL" twice. A deck holds the
    # single-answer multiple choice and the true/false ones; the rest are skipped, at their line.
    outcome, deck = run_import(GIFT / "questions.gift.txt")
    assert deck is not None and outcome.status == 0
    assert _skipped(outcome.lines) == [
        "2 an essay question (no answers to choose from)",
        "5 a matching question",
        "22 choice 1 gives partial credit (50%); a deck question has one answer",
        "31 a numerical question (no choices to pick from)",
        "34 a short-answer question (typed answers, no choices)",
    ]
    found = texts(deck)
    assert list(found) == ["q2", "q1", "2-08-tsl", "2-08-tsl-2"]
    # giftformat_test::test_import_multichoice: answers yellow/red/blue, fraction 1,0,0,
    # feedback "right; good!", "wrong, it's yellow" twice. The right answer's feedback is the
    # explanation: a deck's `why` is only for wrong choices.
    assert found["q2"] == {
        "text": "What's between orange and green in the spectrum?",
        "choices": ["yellow", "red", "blue"],
        "answer": 0,
        "whys": [None, "wrong, it's yellow", "wrong, it's yellow"],
        "explanation": "right; good!",
        "tags": [],
    }
    # test_import_truefalse: correctanswer 0 (false); feedbacktrue (shown for the wrong
    # choice) "42 is the Ultimate Answer.", feedbackfalse "You gave the right answer.". Here
    # the answers are followed by '";', so Moodle's missing-word rule puts "_____" in the text.
    assert found["q1"] == {
        "text": '42 is the Absolute Answer to everything._____";',
        "choices": ["True", "False"],
        "answer": 1,
        "whys": ["42 is the Ultimate Answer.", None],
        "explanation": "You gave the right answer.\n\n"
        "This is, of course, a Hitchiker's Guide to the Galaxy reference.",
        "tags": [],
    }
    # test_import_truefalse_true_answer1 and 2: {T} and {TRUE}, correctanswer 1 (true).
    for question_id in ("2-08-tsl", "2-08-tsl-2"):
        assert found[question_id]["text"] == "TSL is blablabla."
        assert found[question_id]["answer"] == 0
        assert found[question_id]["explanation"] == "The answer is True."
    assert any("2 of 4 questions came without an explanation" in line for line in outcome.lines)


def test_questions_in_category_takes_its_title_from_the_category(run_import: Importer) -> None:
    # Moodle imports the 4 questions under "$course$/Default for New Features": matching,
    # multichoice "Greeting", short answer "Moodle user" (=%100%Moodler, no ~) and TRUE.
    outcome, deck = run_import(GIFT / "questions_in_category.gift.txt")
    assert deck is not None
    assert deck.title == {"en": "Default for New Features"}
    assert _skipped(outcome.lines) == [
        "5 a matching question",
        "22 a short-answer question (typed answers, no choices)",
    ]
    found = texts(deck)
    assert found["greeting"] == {
        "text": "Listen to this greeting: (http://demo.moodle.net/file.php/5/media/bonjour.mp3)"
        "\n\nWhat language is being spoken?",
        "choices": ["English", "French", "German", "Spanish"],
        "answer": 1,
        "whys": ["Sorry, listen again.", None, "Sorry, listen again.", "Sorry, listen again."],
        "explanation": "Yes, well done!",
        "tags": [],
    }
    assert found["moodle-acronym"]["text"] == (
        "Moodle is an acronym for Modular Object-Oriented Dynamic Learning Environment."
    )
    assert found["moodle-acronym"]["answer"] == 0


def _one(text: str) -> tuple[list[str], dict[str, object] | None]:
    deck = read_gift(text, "en")
    notes = [f"{note.line} {note.kind}: {note.message}" for note in deck.notes]
    if not deck.questions:
        return notes, None
    question = deck.questions[0]
    return notes, {
        "name": question.name,
        "text": question.text["en"],
        "choices": [choice.text["en"] for choice in question.choices],
        "whys": [choice.why.get("en") for choice in question.choices],
        "answer": question.answer,
        "explanation": question.explanation.get("en"),
        "tags": question.tags,
        "dropped": question.dropped,
    }


def test_escapes_are_read_as_the_characters_they_stand_for() -> None:
    notes, found = _one(
        "::a\\:b::Is 1 \\= 1 \\{really\\} \\~ \\#1?\\nYes\\\\no{=yes\\#1#so \\= ~no}"
    )
    assert notes == []
    assert found is not None
    assert found["name"] == "a:b"
    assert found["text"] == "Is 1 = 1 {really} ~ #1?\nYes\\no"
    assert found["choices"] == ["yes#1", "no"]
    assert found["whys"] == ["so =", None]


def test_weights_one_full_answer_imports_partial_or_several_right_skip() -> None:
    assert _one("Q {~%100%a ~%0%b ~%-50%c}")[1] == {
        "name": "",
        "text": "Q",
        "choices": ["a", "b", "c"],
        "whys": [None, None, None],
        "answer": 0,
        "explanation": None,
        "tags": [],
        "dropped": [],
    }
    assert _one("Q {~%100%a ~%100%b ~c}")[0] == [
        "1 skipped: 2 choices are marked right; a deck question has exactly one"
    ]
    assert _one("Q {=a =b ~c}")[0] == [
        "1 skipped: 2 choices are marked right; a deck question has exactly one"
    ]
    assert _one("Q {~%33.3%a ~b}")[0] == [
        "1 skipped: choice 1 gives partial credit (33.3%); a deck question has one answer"
    ]
    assert _one("Q {~a ~b}")[0] == ["1 skipped: no choice is marked right (with = or ~%100%)"]


def test_categories_comments_tags_and_line_numbers() -> None:
    deck = read_gift(
        "// a comment\n$CATEGORY: $course$/top/Biology/Cells\n\n\n"
        "// [tag:cells] [tag: mitosis ]\n::m::Which phase?{=M ~S}\n\nNo braces here\n\n"
        "Unbalanced { =a ~b\n",
        "en",
    )
    assert deck.title == {"en": "Biology"}
    assert [(q.line, q.name, q.tags) for q in deck.questions] == [
        (6, "m", ["cells", "cells", "mitosis"])
    ]
    assert [(note.line, note.message) for note in deck.notes] == [
        (8, "a description (no answers in braces), not a question"),
        (
            10,
            "its '{' is never closed: end its answers with '}' (or write \\{ for a literal brace)",
        ),
    ]


def test_text_formats_html_is_converted_plain_and_markdown_are_kept() -> None:
    _, html = _one('[html]<p>Pick <img src="x.png"> one</p>{=<b>A</b> ~B}')
    assert html is not None
    assert (html["text"], html["choices"], html["dropped"]) == ("Pick one", ["A", "B"], ["image"])
    _, plain = _one("[plain]a <b> & c{=x ~y}")
    assert plain is not None and plain["text"] == "a <b> & c"
    _, markdown = _one("[markdown]**bold** <i>{=x ~y}")
    assert markdown is not None and markdown["text"] == "**bold** <i>"
    _, moodle = _one("Line one\nline &amp; two{=x ~y}")
    assert moodle is not None and moodle["text"] == "Line one\nline & two"


def _tricky_deck() -> Deck:
    texts_ = [
        "Braces {x}, equals = tilde ~ hash # colon: and a backslash \\ end",
        "[html] is not a format here",
        "%50% is not a weight here",
        "Two\nlines",
    ]
    questions = tuple(
        Question(
            id=f"q-{index}",
            text={"en": text},
            choices=(
                Choice({"en": text + " right"}),
                Choice({"en": "// not a comment"}, {"en": text + " why"}),
            ),
            answer=0,
            explanation={"en": text + " explained ####"},
            tags=("a-tag",),
            position=index + 1,
        )
        for index, text in enumerate(texts_)
    )
    return Deck("tricky", {"en": "Tricky / deck"}, ("en",), questions)


def test_gift_export_escapes_every_special_character(tmp_path: Path, run_import: Importer) -> None:
    deck = _tricky_deck()
    source = tmp_path / "tricky.gift"
    source.write_text(export_deck(deck, "gift", "en"), encoding="utf-8")
    outcome, back = run_import(source)
    assert back is not None, outcome.lines
    assert back.title == {"en": "Tricky / deck"}
    assert texts(back) == texts(deck)


def test_tilde_equals_marks_the_right_answer_as_moodle_reads_it() -> None:
    # Issue 23 D1: a course bank writes `~=` on 182 lines; Moodle takes `~=X` as the right X.
    notes, found = _one("She {~=have been ~was ~ =had been} here for years.")
    assert notes == ["1 skipped: 2 choices are marked right; a deck question has exactly one"]
    notes, found = _one("She {~=have been~was} here for years.")
    assert notes == []
    assert found is not None
    assert (found["text"], found["choices"], found["answer"]) == (
        "She _____ here for years.",
        ["have been", "was"],
        0,
    )


def test_questions_without_blank_lines_between_them_are_all_read() -> None:
    # Issue 23 D2: a `$CATEGORY:` line followed at once by a question made the question the
    # deck's title, and two questions in one block became one (52 questions kept 14, silently).
    deck = read_gift(
        "$CATEGORY: $course$/Physics\n"
        "::one::Unit of force?{=newton ~joule}\n"
        "// [tag:energy]\n"
        "::two::Unit of energy?{\n"
        "  =joule\n"
        "  ~watt\n"
        "}\n"
        "Unit of power?{=watt ~volt}\n"
        "Grant is {~buried =entombed ~living}\n"
        "in Grant's tomb.\n"
        "::three:: A note, no answers\n",
        "en",
    )
    assert deck.title == {"en": "Physics"}
    assert [(q.line, q.name, q.text["en"], q.tags) for q in deck.questions] == [
        (2, "one", "Unit of force?", []),
        (4, "two", "Unit of energy?", ["energy"]),
        (8, "", "Unit of power?", []),
        (9, "", "Grant is _____\nin Grant's tomb.", []),
    ]
    assert [(note.line, note.message) for note in deck.notes] == [
        (11, "a description (no answers in braces), not a question"),
    ]


def test_a_blank_line_inside_braces_is_one_question_with_a_warning() -> None:
    # Issue 23 D11: it counted as two skipped questions with a brace message and no hint.
    deck = read_gift("::q::Pick one{\n=a\n\n~b\n}\n\n::r::Open {=x ~y\n\n::s::Next?{=1 ~2}\n", "en")
    assert [(q.name, [c.text["en"] for c in q.choices]) for q in deck.questions] == [
        ("q", ["a", "b"]),
        ("s", ["1", "2"]),
    ]
    assert [(note.line, note.kind, note.message) for note in deck.notes] == [
        (
            1,
            "warning",
            "blank line 3 inside its { } was read as part of the question; "
            "Moodle would reject it there: remove the blank line",
        ),
        (
            7,
            "skipped",
            "its '{' is never closed: end its answers with '}' (or write \\{ for a literal brace)",
        ),
    ]


def test_text_shaped_like_a_tag_is_kept_and_a_lone_tag_choice_is_the_tag(
    run_import: Importer,
) -> None:
    # Issue 36 finding 8 (d4): `List<String>` became `List`, and a `<br>` choice became empty
    # with no hint why.
    outcome, deck = run_import(FIXTURES / "repros" / "d4-gift-angle-brackets.gift")
    assert deck is not None, outcome.lines
    found = texts(deck)
    assert found["generic"]["text"] == "In Java, what does List<String> declare?"
    assert found["br"]["choices"] == ["<br>", "<hr>", "<p>"]
    assert found["br"]["answer"] == 0


def test_an_unescaped_equals_sign_is_named_as_the_cause(run_import: Importer) -> None:
    # Finding 10 (d10): "2 choices are marked right" when the cause is `header=True`.
    source = FIXTURES / "repros" / "d10-gift-unescaped-equals.gift"
    outcome, deck = run_import(source)
    assert deck is None
    assert next(line for line in outcome.lines if ": skipped: " in line) == (
        f"{source}:1: skipped: an '=' inside a choice ('...e option `header=True` when read...') "
        "starts another right answer; write it as \\= to keep it in the choice's text"
    )


def test_a_tag_comment_of_a_megabyte_of_spaces_is_read_in_linear_time(
    tmp_path: Path, run_import: Importer
) -> None:
    source = tmp_path / "tags.gift"
    source.write_text("// [tag:" + " " * 1_000_000 + "\n::q::Up?{=yes ~no}\n")
    outcome, deck = run_import(source)
    assert deck is not None, outcome.lines
