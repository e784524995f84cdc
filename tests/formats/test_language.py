"""The words an import writes itself, in the file's language, found from its script if not given."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.decks.formats.language import detect_script
from bot.decks.formats.phrasebook import answer_is, true_false
from bot.presentation.locales import text
from tests.formats.conftest import Importer, texts


@pytest.mark.parametrize(
    ("source", "locale", "words", "stand_in"),
    [
        ("Москва — столица России.", "ru", ("Верно", "Неверно"), "Ответ: Верно."),
        ("ঢাকা বাংলাদেশের রাজধানী।", "bn", ("সত্য", "মিথ্যা"), "উত্তর হলো সত্য।"),
        ("नई दिल्ली भारत की राजधानी है।", "hi", ("सत्य", "असत्य"), "उत्तर है सत्य।"),
        ("القاهرة عاصمة مصر.", "ar", ("صحيح", "خطأ"), "الإجابة هي صحيح."),
        ("北京是中国的首都。", "zh", ("正确", "错误"), "答案是正确。"),
        ("東京は日本の首都です。", "ja", ("正しい", "誤り"), "答えは正しいです。"),
    ],
)
def test_a_file_in_a_non_latin_script_gets_its_language_without_locale(
    tmp_path: Path,
    run_import: Importer,
    source: str,
    locale: str,
    words: tuple[str, str],
    stand_in: str,
) -> None:
    # Issue 23 D6: without --locale such files became `locales: [en]` with English words.
    path = tmp_path / "quiz.gift"
    path.write_text(f"::q::{source}{{T}}\n", encoding="utf-8")
    outcome, deck = run_import(path, locale=None)
    assert deck is not None, outcome.lines
    assert deck.locales == (locale,)
    question = deck.questions[0]
    assert [choice.text[locale] for choice in question.choices] == list(words)
    assert question.explanation[locale] == stand_in
    assert outcome.lines[0].startswith(f"{path}: note: the questions are in ")
    assert outcome.lines[0].endswith(
        f"so the deck's language is {locale}; pass --locale to say otherwise"
    )


def test_a_latin_file_is_taken_as_english_and_the_import_says_how_to_change_it(
    tmp_path: Path, run_import: Importer
) -> None:
    path = tmp_path / "preguntas.txt"
    path.write_text("¿Cuál es la capital de España?\nA) Madrid\nB) Sevilla\nANSWER: A\n")
    outcome, deck = run_import(path, locale=None)
    assert deck is not None and deck.locales == ("en",)
    assert outcome.lines[0] == (
        f"{path}: note: the questions are taken to be in English (en); if they are not, pass "
        "--locale with their language (es, fr, de, pt, ru...) and import again"
    )
    outcome, deck = run_import(path, locale="es", out=tmp_path / "es.yaml")
    assert deck is not None and deck.locales == ("es",)
    assert not any("note:" in line for line in outcome.lines)
    assert deck.questions[0].explanation["es"] == "La respuesta es Madrid."


@pytest.mark.parametrize(
    "locale",
    ["en", "bn", "es", "fr", "de", "pt", "ru", "nl", "it", "hi", "ar", "zh", "ja", "tr", "id"],
)
def test_every_common_language_has_its_own_words(locale: str) -> None:
    true, false = true_false(locale)
    assert true != false
    if locale != "en":
        assert (true, false) != true_false("en")
        assert "The answer" not in answer_is(locale, "x")
    assert "x" in answer_is(locale, "x")
    assert true_false(f"{locale}-XX") == (true, false)


def test_a_language_without_words_is_said_to_get_english_ones(
    tmp_path: Path, run_import: Importer
) -> None:
    path = tmp_path / "fragor.gift"
    path.write_text("::q::Stockholm är Sveriges huvudstad.{T}\n")
    outcome, deck = run_import(path, locale="sv")
    assert deck is not None
    assert [choice.text["sv"] for choice in deck.questions[0].choices] == ["True", "False"]
    assert (
        f"{path}: warning: quizbot has no words of its own in sv, so the True/False choices and "
        "stand-in explanations it wrote are in English; translate them in the deck"
    ) in outcome.lines


def test_detect_script_needs_a_fifth_of_the_letters_and_tells_japanese_from_chinese() -> None:
    assert detect_script(["ZeRO ও FSDP কী ভাগ করে রাখে?"]).locale == "bn"  # type: ignore[union-attr]
    assert detect_script(["日本語の文章です"]).locale == "ja"  # type: ignore[union-attr]
    assert detect_script(["中文句子"]).locale == "zh"  # type: ignore[union-attr]
    assert detect_script(["A long English sentence about café and naïve résumé й"]) is None
    assert detect_script(["", "123 ?!"]) is None


def test_the_stand_in_explanation_neither_doubles_a_period_nor_repeats_the_answer_label(
    tmp_path: Path, run_import: Importer
) -> None:
    # Issue 23 D9: "The answer is: Mars.." and, in Bengali, "সঠিক উত্তর:" twice in play,
    # whose reply shows the answer line (reply.answer) right above the explanation.
    path = tmp_path / "dots.txt"
    path.write_text("Pick the sentence.\nA) It is red.\nB) It is blue!\nANSWER: A\n")
    _, deck = run_import(path)
    assert deck is not None
    assert texts(deck)["pick-the-sentence"]["explanation"] == "The answer is It is red."
    bengali = tmp_path / "bn.txt"
    bengali.write_text("কোনটা গ্রহ?\nA) মঙ্গল।\nB) চাঁদ\nANSWER: A\n", encoding="utf-8")
    _, deck = run_import(bengali, locale="bn", out=tmp_path / "bn.yaml")
    assert deck is not None
    explanation = deck.questions[0].explanation["bn"]
    assert explanation == "উত্তর হলো মঙ্গল।"
    label = text("bn", "reply.answer", letter="\x00", choice="").split("\x00")[0].strip()
    assert label == "সঠিক উত্তর:"
    assert label not in explanation
