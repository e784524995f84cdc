"""Bengali exam text (fixtures/bn-mcq/exam.txt, written here in the shape Bangladeshi banks use)."""

from __future__ import annotations

from bot.decks.formats.bn_mcq import read_bn_mcq
from tests.unit.formats.conftest import FIXTURES, Importer, texts

EXAM = FIXTURES / "bn-mcq" / "exam.txt"


def test_the_exam_imports_every_numbered_question_or_reports_it(run_import: Importer) -> None:
    outcome, deck = run_import(EXAM)  # no --locale: the format is Bengali
    assert deck is not None and outcome.status == 0
    assert deck.locales == ("bn",)
    assert deck.title == {"bn": "সাধারণ জ্ঞান: বাংলাদেশ (মডেল টেস্ট)"}
    assert [line.removeprefix(f"{EXAM}:") for line in outcome.lines if ": skipped: " in line] == [
        "25: skipped: it has no উত্তর line and no answer in an answer key",
        "31: skipped: its answer 'ঙ' names none of its choices",
        "41: skipped: its choices are labelled ক খ ঘ, not ক খ গ",
    ]
    questions = list(texts(deck, "bn").values())
    assert [(q["text"], q["choices"][q["answer"]]) for q in questions] == [
        ("বাংলাদেশের জাতীয় ফুল কোনটি?", "শাপলা"),  # ক) খ) two to a line, উত্তর: খ
        ("বাংলাদেশের স্বাধীনতা দিবস কবে?", "২৬ মার্চ"),  # (ক), উত্তরঃ (গ) and the text
        ("পদ্মা সেতুর দৈর্ঘ্য কত কিলোমিটার?", "৬.১৫"),  # ক. labels, সঠিক উত্তর: the text
        ("বাংলা ভাষা আন্দোলন কোন সালে হয়?", "১৯৫২"),  # four choices on one line
    ]
    assert questions[0]["choices"] == ["গোলাপ", "শাপলা", "রজনীগন্ধা", "সূর্যমুখী"]
    assert questions[2]["explanation"] == (
        "পদ্মা বহুমুখী সেতুর দৈর্ঘ্য ৬.১৫ কিলোমিটার। সেতুটি ২০২২ সালে চালু হয়।"
    )
    assert questions[1]["explanation"] == "উত্তর হলো ২৬ মার্চ।"


def test_unnumbered_questions_follow_each_other_and_stray_text_is_reported() -> None:
    text = (
        "কোনটি ফল?\n"
        "ক) আম\n"
        "খ) ইট\n"
        "উত্তর: ক\n"
        "কোনটি রং?\n"
        "ক) লাল\n"
        "খ) পাথর\n"
        "উত্তর: লাল\n"
        "ব্যাখ্যা: লাল একটি রং।\n"
        "\n"
        "এই লাইনটি প্রশ্ন নয়\n"
    )
    deck = read_bn_mcq(text, "en")
    assert [(q.line, q.text["bn"], q.answer) for q in deck.questions] == [
        (1, "কোনটি ফল?", 0),
        (5, "কোনটি রং?", 0),
    ]
    assert deck.questions[1].explanation == {"bn": "লাল একটি রং।"}
    assert [(n.line, n.message) for n in deck.notes] == [
        (11, "a question with no choices (ক) খ) গ) ঘ)) and no উত্তর line")
    ]


def test_answers_from_an_answer_key_at_the_end() -> None:
    text = (
        "১. কোনটি ফল?\n"
        "ক) আম   খ) ইট\n"
        "২. কোনটি রং?\n"
        "ক) পাথর   খ) লাল\n"
        "৩. কোনটি পাখি?\n"
        "ক) দোয়েল   খ) রুই\n"
        "৪. কোনটি নদী?\n"
        "ক) পদ্মা   খ) গারো\n"
        "\n"
        "উত্তরমালা:\n"
        "১-ক, ২-খ\n"
        "৩. (ক)  ৫. খ\n"
    )
    deck = read_bn_mcq(text, "bn")
    assert [(q.text["bn"], q.answer) for q in deck.questions] == [
        ("কোনটি ফল?", 0),
        ("কোনটি রং?", 1),
        ("কোনটি পাখি?", 0),
    ]
    assert [(n.line, n.message) for n in deck.notes] == [
        (7, "it has no উত্তর line and no answer in an answer key")
    ]
