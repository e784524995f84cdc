"""Finding a question whose text, explanation or a `why` gives away another question's answer.

A player who meets question P before question Q must not be able to read Q's answer in P. The
rule, per locale, is built to fire rarely and rightly (a deck is full of shared vocabulary, so
a shared word proves nothing):

1. Q's *telling content* is what its right answer says that no wrong choice does: the numbers
   (of two characters or more) and the two-word phrases (adjacent content words, stop words
   left out) of the right answer that appear in none of its wrong choices, nor in Q's own
   text, nor in more than 15% of the deck's questions (its common vocabulary). A right answer
   without such content (one word) cannot be found this way, and is left alone.
2. A text T of another question gives Q away when all of these hold:
   - T contains a number of Q's telling content, or half its phrases (at least two when the
     right answer has no word that no wrong choice has, i.e. it only orders their words);
   - T contains at least half of the words of Q's right answer that no wrong choice has;
   - T says nothing that sets a wrong choice apart from the right answer (a phrase or number
     of it, or half its own words): a text that names the alternatives too is comparing
     them, not answering;
   - T is about what Q asks: it shares a two-word phrase of Q's text, or 40% of its content
     words (at least two).
Words are compared after Unicode NFC and case folding, with Bengali digits read as ASCII and a
plural English -s dropped.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from bot.decks.model import Deck, Question
from bot.decks.vocabulary import stop_words

_DIGITS = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789", "\u200c\u200d")
"""Bengali digits read as ASCII; the zero-width (non-)joiners dropped."""
COVERAGE = 0.5
STEM_WORDS = 2
STEM_SHARE = 0.4
COMMON_SHARE = 0.15
COMMON_MIN = 3
"""A phrase or number found in more than 15% of a deck's questions (and more than 3) is the
deck's common vocabulary ("backward pass"), which tells no answer."""

Unit = tuple[str, ...]
"""A word, or two adjacent content words."""


@dataclass(frozen=True)
class Leak:
    """Question `given`'s answer can be read in `part` ("text", "explanation" or a choice's
    "why", with its index) of question `giver`, in `locale`; `shown` is what T says of it."""

    giver: Question
    part: str
    choice: int | None
    given: Question
    locale: str
    shown: tuple[str, ...]


def leaks(deck: Deck) -> list[Leak]:
    found: list[Leak] = []
    for locale in deck.locales:
        found.extend(_Finder(deck, locale).leaks())
    return found


@dataclass(frozen=True)
class _Answer:
    question: Question
    telling: frozenset[Unit]
    words: frozenset[str]
    """Words of the right answer that no wrong choice has."""
    wrongs: tuple[frozenset[Unit], ...]
    """Per wrong choice, its words and phrases that the right answer does not have."""
    stem: frozenset[Unit]
    """The question's words (but those of the right answer) and phrases."""


class _Finder:
    def __init__(self, deck: Deck, locale: str) -> None:
        self.deck = deck
        self.locale = locale
        self.stop = stop_words(locale) | stop_words("en")
        self._read: dict[str, frozenset[Unit]] = {}
        spread: Counter[Unit] = Counter()
        for question in deck.questions:
            said = (self._units(text) for _, _, text in _parts(question, locale))
            spread.update(frozenset().union(*said))
        common = max(COMMON_MIN, COMMON_SHARE * len(deck.questions))
        self.common = frozenset(unit for unit, count in spread.items() if count > common)
        self.index: defaultdict[Unit, list[_Answer]] = defaultdict(list)
        for question in deck.questions:
            answer = self._answer(question)
            for unit in answer.telling:
                self.index[unit].append(answer)

    def leaks(self) -> Iterator[Leak]:
        for giver in self.deck.questions:
            for part, choice, text in _parts(giver, self.locale):
                if part != "choice":
                    yield from self._leaks_in(giver, part, choice, text)

    def _leaks_in(
        self, giver: Question, part: str, choice: int | None, text: str
    ) -> Iterator[Leak]:
        units = self._units(text)
        words = _words(units)
        candidates: dict[str, _Answer] = {}
        for unit in units:
            for answer in self.index.get(unit, ()):
                candidates.setdefault(answer.question.id, answer)
        for answer in candidates.values():
            if answer.question.id == giver.id:
                continue
            hits = answer.telling & units
            shown = sorted(" ".join(unit) for unit in hits)
            # An answer with no words of its own (a new order of the wrong choices' words)
            # needs two of its phrases said; one is only the deck's subject.
            needed = min(2, -(-len(answer.telling) // 2)) if answer.words else 2
            told = any(map(_counted, hits)) or len(hits) >= min(needed, len(answer.telling))
            covered = len(answer.words & words) >= COVERAGE * len(answer.words)
            compared = any(_said(wrong, units) for wrong in answer.wrongs)
            if told and covered and not compared and _about(answer.stem, units):
                yield Leak(giver, part, choice, answer.question, self.locale, tuple(shown))

    def _answer(self, question: Question) -> _Answer:
        right = self._units(question.right.text[self.locale])
        wrongs = [
            self._units(choice.text[self.locale])
            for index, choice in enumerate(question.choices)
            if index != question.answer
        ]
        every_wrong = frozenset().union(*wrongs)
        stem = self._units(question.text[self.locale])
        telling = frozenset(
            u
            for u in right - every_wrong - stem - self.common
            if len(u) == 2 or _number(u)
        )
        return _Answer(
            question,
            telling,
            _words(right) - _words(every_wrong),
            tuple(wrong - right for wrong in wrongs),
            frozenset(u for u in stem if not (len(u) == 1 and u in right)),
        )

    def _units(self, text: str) -> frozenset[Unit]:
        """The content words of a text, and each two adjacent ones within a sentence (each
        text is read once: choices and stems are looked at several times)."""
        known = self._read.get(text)
        if known is not None:
            return known
        units: set[Unit] = set()
        previous: str | None = None
        for word in _tokens(text):
            if word is None or word in self.stop:
                previous = None if word is None else previous
                continue
            if len(word) < 2 and not word.isdigit():
                continue
            units.add((word,))
            if previous is not None:
                units.add((previous, word))
            previous = word
        self._read[text] = frozenset(units)
        return self._read[text]


def _parts(question: Question, locale: str) -> Iterator[tuple[str, int | None, str]]:
    """The texts of a question that a player reads: its text, choices, explanation and whys
    (choices as "choice", which no leak is looked for in: a choice is not read as a fact)."""
    yield "text", None, question.text[locale]
    for index, choice in enumerate(question.choices):
        yield "choice", index, choice.text[locale]
    yield "explanation", None, question.explanation[locale]
    for index, choice in enumerate(question.choices):
        if choice.why is not None:
            yield "why", index, choice.why[locale]


def _words(units: frozenset[Unit]) -> frozenset[str]:
    return frozenset(unit[0] for unit in units if len(unit) == 1)


def _number(unit: Unit) -> bool:
    """A number of two characters or more ("16", "1.5", "8x", "7.5b"); a lone digit is
    everywhere, and a name with digits ("fp16", "h100") is a term, not a figure."""
    return len(unit) == 1 and len(unit[0]) >= 2 and unit[0][0].isdigit()


def _counted(unit: Unit) -> bool:
    """A number, or a phrase with one ("16 bytes"): a figure the text states."""
    return any(_number((word,)) for word in unit)


def _said(wrong: frozenset[Unit], units: frozenset[Unit]) -> bool:
    """Whether a text says what sets a wrong choice apart: any of its telling phrases or
    numbers, or half of its own words."""
    words = _words(wrong)
    if any((len(u) == 2 or _number(u)) and u in units for u in wrong):
        return True
    return bool(words) and len(words & _words(units)) >= COVERAGE * len(words)


def _about(stem: frozenset[Unit], units: frozenset[Unit]) -> bool:
    """Whether a text is about what a question asks: it shares a phrase of the stem, or
    STEM_SHARE of its words (at least two)."""
    if any(len(u) == 2 and u in units for u in stem):
        return True
    words = _words(stem)
    shared = len(words & _words(units))
    return shared >= min(STEM_WORDS, len(words)) and shared >= STEM_SHARE * len(words)


def _token_pattern() -> re.Pattern[str]:
    """Numbers with a decimal point, words (letters, digits and the combining marks that
    Bengali vowel signs are, which `\\w` leaves out), or a sentence break."""
    marks = "".join(
        re.escape(chr(code))
        for code in range(0x300, 0x10000)
        if unicodedata.category(chr(code)).startswith("M")
    )
    letter = f"[^\\W_]|[{marks}]"
    return re.compile(
        rf"(\d+(?:[.,]\d+)+(?:{letter})*)|((?:{letter})+)|([.;:!?।()\[\]\n])"
    )


_TOKEN = _token_pattern()


def _tokens(text: str) -> Iterator[str | None]:
    """Words (a decimal point inside a number kept), folded; None at each sentence break."""
    text = unicodedata.normalize("NFC", text).casefold().translate(_DIGITS)
    for number, word, _ in _TOKEN.findall(text):
        yield _plain(number or word) if number or word else None


def _plain(word: str) -> str:
    """An English plural's -s or -es dropped ("states", "batches" read as "state", "batch")."""
    if not word.isascii() or len(word) <= 4 or not word.endswith("s") or word.endswith("ss"):
        return word
    return word[:-2] if word.endswith(("ches", "shes", "sses", "xes")) else word[:-1]
