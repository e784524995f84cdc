"""Finding a question whose text, explanation or a `why` gives away another question's answer.

A player who meets question P before question Q must not be able to read Q's answer in P. The
rule, per locale, is built to fire rarely and rightly (a deck is full of shared vocabulary, so
a shared word proves nothing):

1. Q's *telling content* is what its right answer says that no wrong choice does: the numbers
   (of two characters or more) and the two-word phrases (adjacent content words, stop words
   left out) of the right answer that appear in none of its wrong choices, nor in Q's own
   text, nor in more than 15% of the questions of its deck, or of all the decks checked
   together (their common vocabulary). A right answer without such content (one word)
   cannot be found this way, and is left alone.
2. A text T of another question gives Q away when all of these hold:
   - T contains a number of Q's telling content, or half its phrases (at least two when the
     right answer has no word that no wrong choice has, i.e. it only orders their words);
   - T contains at least half of the words of Q's right answer that no wrong choice has;
   - T says nothing that sets a wrong choice apart from the right answer (a phrase or number
     of it, or half its own words): a text that names the alternatives too is comparing
     them, not answering;
   - T is about what Q asks: it shares a two-word phrase of Q's text, or 40% of its content
     words (at least two).
Words are compared as stems (`words.py`). Given several decks, as the bot loads them together,
every question is compared with every other, in each locale their decks share.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bot.decks.model import Deck, Question
from bot.decks.words import phrases

COVERAGE = 0.5
STEM_WORDS = 2
STEM_SHARE = 0.4
COMMON_SHARE = 0.15
COMMON_MIN = 3
"""A phrase or number found in more than 15% of a deck's questions (and more than 3) is the
deck's common vocabulary ("backward pass"), which tells no answer; so is one as common across
all the decks checked together."""

Unit = tuple[str, ...]
"""A word, or two adjacent content words."""


@dataclass(frozen=True)
class Leak:
    """Question `given` (of deck `given_deck`) has its answer read in `part` ("text",
    "explanation" or a choice's "why", with its index) of question `giver` (of `giver_deck`),
    in `locale`; `shown` is what that text says of it."""

    giver_deck: Deck
    giver: Question
    part: str
    choice: int | None
    given_deck: Deck
    given: Question
    locale: str
    shown: tuple[str, ...]


def leaks(decks: Sequence[Deck]) -> list[Leak]:
    """Every leak between the questions of `decks` (one deck, or several the bot loads
    together), in each locale two decks share."""
    found: list[Leak] = []
    locales = dict.fromkeys(locale for deck in decks for locale in deck.locales)
    for locale in locales:
        found.extend(_Finder([d for d in decks if locale in d.locales], locale).leaks())
    return found


@dataclass(frozen=True)
class _Answer:
    deck: Deck
    question: Question
    telling: frozenset[Unit]
    words: frozenset[str]
    """Words of the right answer that no wrong choice has."""
    wrongs: tuple[frozenset[Unit], ...]
    """Per wrong choice, its words and phrases that the right answer does not have."""
    stem: frozenset[Unit]
    """The question's words (but those of the right answer) and phrases."""


class _Finder:
    def __init__(self, decks: Sequence[Deck], locale: str) -> None:
        self.decks = decks
        self.locale = locale
        self._read: dict[str, frozenset[Unit]] = {}
        every: list[Question] = [q for deck in decks for q in deck.questions]
        pool = self._common(every)
        self.index: defaultdict[Unit, list[_Answer]] = defaultdict(list)
        for deck in decks:
            common = pool | self._common(deck.questions)
            for question in deck.questions:
                answer = self._answer(deck, question, common)
                for unit in answer.telling:
                    self.index[unit].append(answer)

    def _common(self, questions: Sequence[Question]) -> frozenset[Unit]:
        spread: Counter[Unit] = Counter()
        for question in questions:
            said = (self._units(text) for _, _, text in _parts(question, self.locale))
            spread.update(frozenset().union(*said))
        common = max(COMMON_MIN, COMMON_SHARE * len(questions))
        return frozenset(unit for unit, count in spread.items() if count > common)

    def leaks(self) -> Iterator[Leak]:
        for deck in self.decks:
            for giver in deck.questions:
                for part, choice, text in _parts(giver, self.locale):
                    if part != "choice":
                        yield from self._leaks_in(deck, giver, part, choice, text)

    def _leaks_in(
        self, deck: Deck, giver: Question, part: str, choice: int | None, text: str
    ) -> Iterator[Leak]:
        units = self._units(text)
        words = _words(units)
        candidates: dict[tuple[str, str], _Answer] = {}
        for unit in units:
            for answer in self.index.get(unit, ()):
                candidates.setdefault((answer.deck.id, answer.question.id), answer)
        for answer in candidates.values():
            if answer.question is giver:
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
                yield Leak(
                    deck,
                    giver,
                    part,
                    choice,
                    answer.deck,
                    answer.question,
                    self.locale,
                    tuple(shown),
                )

    def _answer(self, deck: Deck, question: Question, common: frozenset[Unit]) -> _Answer:
        right = self._units(question.right.text[self.locale])
        wrongs = [
            self._units(choice.text[self.locale])
            for index, choice in enumerate(question.choices)
            if index != question.answer
        ]
        every_wrong = frozenset().union(*wrongs)
        stem = self._units(question.text[self.locale])
        telling = frozenset(
            u for u in right - every_wrong - stem - common if len(u) == 2 or _number(u)
        )
        return _Answer(
            deck,
            question,
            telling,
            _words(right) - _words(every_wrong),
            tuple(wrong - right for wrong in wrongs),
            frozenset(u for u in stem if not (len(u) == 1 and u in right)),
        )

    def _units(self, text: str) -> frozenset[Unit]:
        """Each text is read once: choices and stems are looked at several times."""
        known = self._read.get(text)
        if known is None:
            known = self._read[text] = phrases(text, self.locale)
        return known


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
