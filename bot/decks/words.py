"""The words of a deck's texts, as the lint compares them across questions and choices.

Texts are compared after Unicode NFC and case folding, with Bengali digits read as ASCII and
the zero-width (non-)joiners dropped. A word is folded to a stem so that the forms of one word
meet: an English plural's -s or -es is dropped, and a Bengali word loses its case, plural and
classifier endings and its emphatic ই / ও (গ্রেডিয়েন্টগুলোর, গ্রেডিয়েন্টের and গ্রেডিয়েন্ট all
read গ্রেডিয়েন্ট). The Bengali rules only strip suffixes, so they are crude, but they are
applied until nothing changes, so every form of a word ends on the same stem.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache, lru_cache

from bot.decks.vocabulary import stop_words

_DIGITS = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789", "\u200c\u200d")
"""Bengali digits read as ASCII; the zero-width (non-)joiners dropped."""

_BENGALI_SUFFIXES = (
    "গুলোকে", "গুলিকে", "গুলোতে", "গুলিতে", "গুলোর", "গুলির", "গুলো", "গুলি", "দেরকে", "দের",
    "টিকে", "টাকে", "টিতে", "টাতে", "টির", "টার", "টি", "টা", "খানা", "েরা", "ের", "কে", "তে",
    "ে", "ও", "ই",
)  # fmt: skip
"""Case (-এর, -কে, -তে, -এ), plural (-গুলো, -দের, -েরা) and classifier (-টি, -টা) endings and
the emphatic ই / ও, longest first."""
_VOWEL_SIGNS = "ািীুূৃোৌ"
"""A genitive র after one of these ends the word (ডেটার, মেমরির), so it is stripped too."""
_BENGALI_STEM = 2
"""Code points a Bengali stem keeps at least; a number keeps its digits ("8টি" reads "8")."""


def _token_pattern() -> re.Pattern[str]:
    """Numbers with a decimal point, words (letters, digits and the combining marks that
    Bengali vowel signs are, which `\\w` leaves out), or a sentence break."""
    marks = "".join(
        re.escape(chr(code))
        for code in range(0x300, 0x10000)
        if unicodedata.category(chr(code)).startswith("M")
    )
    letter = f"[^\\W_]|[{marks}]"
    return re.compile(rf"(\d+(?:[.,]\d+)+(?:{letter})*)|((?:{letter})+)|([.;:!?।()\[\]\n])")


_TOKEN = _token_pattern()


_TEXTS_KEPT = 4096
"""Texts whose stems are kept: more than the shipped decks hold in both languages (about
2,600), so `quizbot validate` reads each once; a few MB."""

_WORDS_KEPT = 16384
"""Words whose stems are kept (a deck's vocabulary is a few thousand words); about 2 MB."""

_ACRONYM_PLURAL = re.compile(r"[A-Z][A-Z0-9]+s")
"""GPUs, CPUs, LLMs: an acronym's plural, whose -s the English rule below would keep."""


def fold(text: str) -> str:
    """Text as compared: NFC, case folded, Bengali digits as ASCII, no joiners."""
    return unicodedata.normalize("NFC", text).casefold().translate(_DIGITS)


def tokens(text: str) -> Iterator[str | None]:
    """Words (a decimal point inside a number kept) as stems; None at each sentence break."""
    return iter(_tokens(text))


@lru_cache(maxsize=_TEXTS_KEPT)
def _tokens(text: str) -> tuple[str | None, ...]:
    """The lint reads each question's texts once per cue and per pair of decks compared, so
    a text is tokenized once and its stems kept (for the most recent texts only)."""
    plain = unicodedata.normalize("NFC", text).translate(_DIGITS)
    found: list[str | None] = []
    for number, word, _ in _TOKEN.findall(plain):
        if _ACRONYM_PLURAL.fullmatch(word):
            word = word[:-1]
        found.append(_stem_of(number or word) if number or word else None)
    return tuple(found)


@lru_cache(maxsize=_WORDS_KEPT)
def _stem_of(word: str) -> str:
    """A word's folded stem; a deck says the same few thousand words again and again."""
    return stem(fold(word))


def content_words(text: str, locale: str) -> list[str]:
    """The stems of a text's words that say something: no stop words (the locale's or
    English ones, which Bengali technical text mixes in), no single letters."""
    stop = content_stop(locale)
    return [
        word
        for word in tokens(text)
        if word is not None and word not in stop and (len(word) >= 2 or word.isdigit())
    ]


@lru_cache(maxsize=_TEXTS_KEPT)
def phrases(text: str, locale: str) -> frozenset[tuple[str, ...]]:
    """A text's content words, and each two adjacent ones within a sentence (stop words
    between them skipped: "scales the loss" gives "scale loss")."""
    stop = content_stop(locale)
    units: set[tuple[str, ...]] = set()
    previous: str | None = None
    for word in tokens(text):
        if word is None:
            previous = None
            continue
        if word in stop or (len(word) < 2 and not word.isdigit()):
            continue
        units.add((word,))
        if previous is not None:
            units.add((previous, word))
        previous = word
    return frozenset(units)


@cache
def content_stop(locale: str) -> frozenset[str]:
    """The stems of the locale's stop words and of English ones."""
    return frozenset(stem(fold(word)) for word in stop_words(locale) | stop_words("en"))


def stem(word: str) -> str:
    """A word's stem (see the module's docstring); numbers and other scripts as they are."""
    if word.isascii():
        return _english(word)
    if any("\u0980" <= ch <= "\u09ff" for ch in word):
        return _bengali(word)
    return word


def _english(word: str) -> str:
    """An English plural's -s or -es dropped ("bits", "batches" read as "bit", "batch"; not
    "loss", "plus", "this")."""
    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    return word[:-2] if word.endswith(("ches", "shes", "sses", "xes")) else word[:-1]


@cache
def _bengali(word: str) -> str:
    while True:
        shorter = _bengali_once(word)
        if shorter == word:
            return word
        word = shorter


def _bengali_once(word: str) -> str:
    for suffix in _BENGALI_SUFFIXES:
        rest = word[: -len(suffix)]
        if word.endswith(suffix) and (len(rest) >= _BENGALI_STEM or rest.isdigit()):
            return rest
    if word.endswith("র") and len(word) > _BENGALI_STEM + 1 and word[-2] in _VOWEL_SIGNS:
        return word[:-1]
    return word
