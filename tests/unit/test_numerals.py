"""Numbers people type: ASCII and Bengali digits only."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.decks.numerals import number


def test_ascii_and_bengali_digits() -> None:
    assert number("12") == 12
    assert number("১২") == 12
    assert number("1২") == 12
    assert number("০") == 0


def test_everything_else_is_no_number() -> None:
    for text in ("", "²", "٣", "３", "1.5", "-1", "+1", " 1", "1 ", "১০০০০০০০০০", "Ⅻ", "𝟙"):
        assert number(text) is None, text


BENGALI = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=12))
def test_any_text_is_a_number_or_none_never_an_error(text: str) -> None:
    found = number(text)
    plain = text.translate(BENGALI)
    if plain and plain.isascii() and plain.isdigit() and len(plain) <= 9:
        assert found == int(plain)
    else:
        assert found is None
