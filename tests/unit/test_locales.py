"""The two catalogs say the same things: same keys, same placeholders."""

import string

import pytest

from bot.presentation.locales import LOCALES, catalog, digits, text


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_catalogs_have_the_same_keys() -> None:
    en, bn = catalog("en"), catalog("bn")
    assert sorted(set(en) - set(bn)) == []
    assert sorted(set(bn) - set(en)) == []


@pytest.mark.parametrize("key", sorted(catalog("en")))
def test_placeholders_match(key: str) -> None:
    assert placeholders(catalog("bn")[key]) == placeholders(catalog("en")[key]), key


@pytest.mark.parametrize("locale", LOCALES)
def test_every_string_formats(locale: str) -> None:
    for key, template in catalog(locale).items():
        params = {name: 1 for name in placeholders(template)}
        assert text(locale, key, **params).strip(), key


def test_bengali_numbers_use_bengali_digits() -> None:
    assert text("bn", "run.score", score=8, total=8) == "আপনার স্কোর: ৮/৮"
    assert text("en", "run.score", score=8, total=8) == "Your score: 8/8"
    assert digits("bn", 2026) == "২০২৬"


def test_unknown_locale_falls_back_to_english() -> None:
    assert text("de", "run.score", score=1, total=2) == "Your score: 1/2"


def test_unknown_key_is_a_bug_not_a_blank() -> None:
    with pytest.raises(KeyError):
        text("en", "no.such.key")
