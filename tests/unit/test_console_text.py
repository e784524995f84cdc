"""The terminal's language precedence and its wrapping, as pure functions."""

from __future__ import annotations

import pytest

from bot.console.language import normal, switch_hint, system_locale, terminal_locale
from bot.console.layout import width, wrap


@pytest.mark.parametrize(
    ("env", "locale"),
    [
        ({}, None),
        ({"LANG": "bn_BD.UTF-8"}, "bn"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "bn_IN"}, "bn"),
        ({"LANG": "bn_BD.UTF-8", "LC_MESSAGES": "bn", "LC_ALL": "en_GB.UTF-8"}, "en"),
        ({"LC_ALL": "", "LANG": "en"}, "en"),  # an empty variable does not count
        ({"LANG": "C.UTF-8"}, None),
        ({"LC_ALL": "POSIX", "LANG": "bn_BD.UTF-8"}, None),  # LC_ALL decides, and names none
        ({"LANG": "sr_RS@latin"}, "sr"),
    ],
)
def test_the_system_language_follows_posix_precedence(
    env: dict[str, str], locale: str | None
) -> None:
    assert system_locale(env) == locale


def test_asked_then_saved_then_system_then_english() -> None:
    deck = ["bn", "en"]
    assert terminal_locale(deck, asked="en", saved="bn", system="bn") == "en"
    assert terminal_locale(deck, asked=None, saved="en", system="bn") == "en"
    assert terminal_locale(deck, asked=None, saved=None, system="bn") == "bn"
    assert terminal_locale(deck, asked=None, saved="fr", system="de") == "en"  # not the first
    assert terminal_locale(deck, asked=None, saved=None, system=None) == "en"
    assert terminal_locale(["bn"], asked=None, saved=None, system="de") == "bn"  # no English


@pytest.mark.parametrize(
    ("asked", "language"),
    [(" EN ", "en"), ("en_US", "en"), ("en-US", "en"), ("en_GB.UTF-8", "en"), ("bn_BD", "bn")],
)
def test_a_locale_name_in_any_spelling_is_its_language(asked: str, language: str) -> None:
    assert normal(asked) == language
    assert normal(None) is None and normal(" ") is None


def test_the_switch_hint_is_english_and_names_the_command() -> None:
    assert switch_hint("bn", ["bn", "en"]) == (
        "Language: Bengali (for English: quizbot play --locale en)"
    )
    assert switch_hint("en", ["en"]) is None


def test_bengali_vowel_signs_take_no_column_and_emoji_two() -> None:
    assert width("কুইজ") == 3  # ু is a combining vowel sign
    assert width("📚 a") == 4


def test_wrap_fills_to_the_width_and_keeps_long_words_whole() -> None:
    text = "আপনার উত্তর দিন supercalifragilistic একটি GPU-র মেমরিতে ধরে না"
    lines = wrap(text, 16, "   ", "      ")
    assert lines[0].startswith("   ") and all(line.startswith("      ") for line in lines[1:])
    assert " ".join(" ".join(lines).split()) == text
    assert all(width(line) <= 16 for line in lines if "supercali" not in line)
    assert "      supercalifragilistic" in lines
    assert wrap("a\n\nb", 10, "  ") == ["  a", "  ", "  b"]
