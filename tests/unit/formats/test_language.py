"""The words an import writes itself, in the file's language, found from its text if not given."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.decks.formats import FORMATS
from bot.decks.formats.language import detect_language
from bot.decks.formats.phrasebook import STAND_IN_LOCALES, answer_is, true_false
from bot.presentation.locales import LOCALES, text
from tests.unit.formats.conftest import Importer, texts


@pytest.mark.parametrize(
    ("source", "locale", "words", "stand_in"),
    [
        ("ঢাকা বাংলাদেশের রাজধানী।", "bn", ("সত্য", "মিথ্যা"), "উত্তর হলো সত্য।"),
        ("Москва — столица России.", "ru", ("Верно", "Неверно"), "Верно"),
        ("नई दिल्ली भारत की राजधानी है।", "hi", ("सत्य", "असत्य"), "सत्य"),
        ("القاهرة عاصمة مصر.", "ar", ("صحيح", "خطأ"), "صحيح"),
        ("北京是中国的首都。", "zh", ("正确", "错误"), "正确"),
        ("東京は日本の首都です。", "ja", ("正しい", "誤り"), "正しい"),
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
    assert outcome.lines[0].startswith(f"{path}: note: the questions ")
    assert outcome.lines[0].endswith(
        f"so the deck's language is {locale}; pass --locale to say otherwise"
    )


def test_a_latin_file_is_read_in_the_language_of_its_words(
    tmp_path: Path, run_import: Importer
) -> None:
    # Issue 36 finding 12: Spanish, French, Portuguese and German files became English decks.
    path = tmp_path / "preguntas.txt"
    path.write_text("¿Cuál es la capital de España?\nA) Madrid\nB) Sevilla\nANSWER: A\n")
    outcome, deck = run_import(path, locale=None)
    assert deck is not None and deck.locales == ("es",)
    assert outcome.lines[0] == (
        f"{path}: note: the questions read as Spanish, so the deck's language is es; pass "
        "--locale to say otherwise"
    )
    outcome, deck = run_import(path, locale="en", out=tmp_path / "en.yaml")
    assert deck is not None and deck.locales == ("en",)
    assert not any("note:" in line for line in outcome.lines)
    assert deck.questions[0].explanation["en"] == "The answer is Madrid."


def test_a_file_with_no_letters_is_taken_as_english_and_the_import_says_how_to_change_it(
    tmp_path: Path, run_import: Importer
) -> None:
    path = tmp_path / "sums.txt"
    path.write_text("2 + 2 = ?\nA) 4\nB) 5\nANSWER: A\n")
    outcome, deck = run_import(path, locale=None)
    assert deck is not None and deck.locales == ("en",)
    assert outcome.lines[0] == (
        f"{path}: note: the questions are taken to be in English (en); if they are not, pass "
        "--locale with their language (es, fr, de, pt, ru...) and import again"
    )


DECKS = {
    "en": ["Which planet is called the Red Planet?", "Which command lists the files of a folder?"],
    "fr": ["Quelle est la capitale de la France ?", "Quelle commande affiche les fichiers ?"],
    "es": ["¿Cuál es la capital de España?", "¿Qué comando muestra los archivos?"],
    "pt": ["Qual é a capital do Brasil?", "Qual comando mostra os arquivos de uma pasta?"],
    "de": ["Was ist die Hauptstadt von Deutschland?", "Welcher Befehl zeigt die Dateien?"],
    "it": ["Qual è la capitale d'Italia?", "Quale comando mostra i file di una cartella?"],
    "id": ["Apa ibu kota Indonesia?", "Perintah apa yang menampilkan isi folder?"],
    "hu": ["Mi Magyarország fővárosa?", "Melyik fájl tartalmát kell eltárolnunk?"],
    "th": ["เมืองหลวงของประเทศไทยคืออะไร", "คำสั่งใดแสดงไฟล์ในโฟลเดอร์"],
    "si": ["ශ්‍රී ලංකාවේ අගනුවර කුමක්ද?", "බයිට් එකක බිට් කීයක් තිබේද?"],
    "he": ["מהי בירת ישראל?", "איזו פקודה מציגה את הקבצים בתיקייה?"],
    "bn": ["বাংলাদেশের জাতীয় ফুল কী?", "কোন কমান্ড ফোল্ডারের ফাইল দেখায়?"],
    "ru": ["Какая столица России?", "Сколько бит в одном байте?"],
    "uk": ["Яка столиця України?", "Скільки бітів в одному байті?"],
    "ko": ["대한민국의 수도는 어디입니까?", "한 바이트는 몇 비트입니까?"],
}


@pytest.mark.parametrize("locale", sorted(DECKS))
def test_the_deck_language_is_found_for_the_languages_teams_use(
    tmp_path: Path, run_import: Importer, locale: str
) -> None:
    path = tmp_path / "quiz.gift"
    path.write_text(
        "\n\n".join(f"::q{n}::{question}{{=1 ~2 ~3}}" for n, question in enumerate(DECKS[locale])),
        encoding="utf-8",
    )
    outcome, deck = run_import(path, locale=None)
    assert deck is not None, outcome.lines
    assert deck.locales == (locale,)
    assert f"so the deck's language is {locale};" in outcome.lines[0]


def test_a_thai_deck_gets_no_english_stand_in_explanations(
    tmp_path: Path, run_import: Importer
) -> None:
    # Finding 12: Thai was tagged English, which wrote "The answer is ..." into a Thai deck.
    path = tmp_path / "thai.txt"
    path.write_text(
        "เมืองหลวงของประเทศไทยคืออะไร\nA) กรุงเทพมหานคร\nB) เชียงใหม่\nANSWER: A\n",
        encoding="utf-8",
    )
    outcome, deck = run_import(path, locale=None)
    assert deck is not None and deck.locales == ("th",)
    assert deck.questions[0].explanation["th"] == "กรุงเทพมหานคร"
    assert outcome.lines[-2] == (
        f"{path}: warning: 1 of 1 question came without an explanation and now says only the "
        "right choice in th (quizbot writes stand-ins only in en and bn); write real ones "
        "before use"
    )
    assert "The answer" not in (outcome.written or path).read_text(encoding="utf-8")


def test_stand_ins_are_written_in_exactly_the_languages_the_bot_speaks() -> None:
    assert set(STAND_IN_LOCALES) == set(LOCALES)


def test_a_file_is_read_once_when_its_language_is_detected(
    tmp_path: Path, run_import: Importer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The architecture review: the file was read and parsed twice, once to find its language.
    path = tmp_path / "quiz.gift"
    path.write_text("::q::Quelle est la capitale de la France ?{T}\n", encoding="utf-8")
    reads: list[str] = []
    real = FORMATS["gift"]

    def counting(data: bytes, locale: str):  # type: ignore[no-untyped-def]
        reads.append(locale)
        return real.read(data, locale)

    monkeypatch.setitem(FORMATS, "gift", replace(real, reader=counting))
    outcome, deck = run_import(path, locale=None)
    assert deck is not None and deck.locales == ("fr",), outcome.lines
    assert len(reads) == 1
    assert [choice.text["fr"] for choice in deck.questions[0].choices] == ["Vrai", "Faux"]


@pytest.mark.parametrize(
    "locale",
    ["en", "bn", "es", "fr", "de", "pt", "ru", "nl", "it", "hi", "ar", "zh", "ja", "tr", "id"],
)
def test_every_common_language_has_its_own_true_false_words(locale: str) -> None:
    true, false = true_false(locale)
    assert true != false
    if locale != "en":
        assert (true, false) != true_false("en")
        assert "The answer" not in answer_is(locale, "x")
    stand_in = answer_is(locale, "x")
    assert stand_in == "x" if locale not in ("en", "bn") else stand_in != "x"
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
    assert deck.questions[0].explanation["sv"] == "True"
    assert (
        f"{path}: warning: quizbot has no words of its own in sv, so the True/False choices it "
        "wrote are in English; translate them in the deck"
    ) in outcome.lines


def test_detect_language_needs_a_fifth_of_the_letters_and_tells_japanese_from_chinese() -> None:
    assert detect_language(["ZeRO ও FSDP কী ভাগ করে রাখে?"]).locale == "bn"  # type: ignore[union-attr]
    assert detect_language(["日本語の文章です"]).locale == "ja"  # type: ignore[union-attr]
    assert detect_language(["中文句子"]).locale == "zh"  # type: ignore[union-attr]
    english = detect_language(["Which pipeline schedule keeps every GPU busy? й"])
    assert english is not None and english.locale == "en"
    assert detect_language(["", "123 ?!"]) is None


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
