"""Finding the same fact asked twice, in one deck or in two decks the bot loads together.

Whoever meets one of the two first gets the other free, and the second teaches nothing. Two
questions rarely share their wording when they ask the same thing (the review's example:
`init_device_mesh('cuda', (2, 4), ...)` in one deck and `(8, 8)` in another, both asking which
ranks form the 'tp' group), so they are compared by the key phrases of what they ask and
answer, weighted by how rare each is among all the questions:

1. A question says its content words and each two adjacent ones (`words.py`) in its text and
   its right answer. Each is weighted by its inverse document frequency over the questions
   compared (smoothed: ln((1 + n) / (1 + df)) + 1), so a phrase that two questions alone
   share weighs most and the decks' common vocabulary little.
2. Two questions are the same question in a locale when the cosine of their weighted phrases
   is at least 0.35 and they share two key words or a key phrase: words and phrases that at
   most 20 questions have (the candidates are found through them, so the cost stays near
   linear; "how many exponent bits" and "how many bits hold the exponent" share no phrase).
3. They are reported when that holds in every locale both their decks have: Bengali and
   English text must agree, so one language's tokenising cannot raise a pair alone.
On the shipped decks (68 questions) the review's pair scores 0.47 (en) and 0.40 (bn); the next
pair, two ZeRO questions on different facts, 0.23.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from bot.decks.model import Deck, Question
from bot.decks.words import phrases

SIMILAR = 0.35
"""The least cosine of two questions' weighted phrases that makes them one question."""
KEY_MOST = 20
KEY_WORDS = 2
"""A word or phrase in more questions than KEY_MOST is vocabulary, not what a question asks;
two questions must share two key words, or a key phrase, to be compared at all."""
SHOWN = 4

Unit = tuple[str, ...]
Key = tuple[int, int]
"""A question as (index of its deck in the decks compared, index in its deck)."""


@dataclass(frozen=True)
class Twin:
    """Question `second` (of `second_deck`) asks what `first` (of `first_deck`) asks, which
    comes first in the order the decks were given; `shared` are the phrases they share most
    rarely, in `locale` (the first locale of `second_deck` that both have)."""

    first_deck: Deck
    first: Question
    second_deck: Deck
    second: Question
    locale: str
    shared: tuple[str, ...]


def twins(decks: Sequence[Deck]) -> list[Twin]:
    """Every pair of questions of `decks` that asks the same thing (see the module)."""
    locales = list(dict.fromkeys(locale for deck in decks for locale in deck.locales))
    per_locale = {locale: _Similar(decks, locale) for locale in locales}
    found: list[Twin] = []
    candidates = sorted(set().union(*(s.pairs() for s in per_locale.values())))
    for first, second in candidates:
        first_deck, second_deck = decks[first[0]], decks[second[0]]
        shared = [x for x in second_deck.locales if x in first_deck.locales]
        if shared and all(per_locale[x].same(first, second) for x in shared):
            found.append(
                Twin(
                    first_deck,
                    first_deck.questions[first[1]],
                    second_deck,
                    second_deck.questions[second[1]],
                    shared[0],
                    per_locale[shared[0]].shown(first, second),
                )
            )
    return found


class _Similar:
    """The questions of the decks that have one locale, as weighted phrases."""

    def __init__(self, decks: Sequence[Deck], locale: str) -> None:
        self.units: dict[Key, frozenset[Unit]] = {}
        for deck_index, deck in enumerate(decks):
            if locale not in deck.locales:
                continue
            for index, question in enumerate(deck.questions):
                said = phrases(question.text[locale], locale) | phrases(
                    question.right.text[locale], locale
                )
                self.units[(deck_index, index)] = said
        spread: Counter[Unit] = Counter(u for said in self.units.values() for u in said)
        count = len(self.units)
        self.weight = {u: math.log((1 + count) / (1 + df)) + 1 for u, df in spread.items()}
        self.norm = {
            key: math.sqrt(sum(self.weight[u] ** 2 for u in said))
            for key, said in self.units.items()
        }
        self.by_key: defaultdict[Unit, list[Key]] = defaultdict(list)
        for key, said in self.units.items():
            for unit in said:
                if spread[unit] <= KEY_MOST:
                    self.by_key[unit].append(key)

    def pairs(self) -> set[tuple[Key, Key]]:
        """Pairs that share a key word or phrase, the only ones that can be one question."""
        found: set[tuple[Key, Key]] = set()
        for keys in self.by_key.values():
            found.update(combinations(sorted(keys), 2))
        return found

    def same(self, first: Key, second: Key) -> bool:
        if first not in self.units or second not in self.units:
            return False
        shared = self.units[first] & self.units[second]
        keys = [u for u in shared if u in self.by_key]
        if not (len(keys) >= KEY_WORDS or any(len(u) == 2 for u in keys)):
            return False
        dot = sum(self.weight[u] ** 2 for u in shared)
        return dot >= SIMILAR * self.norm[first] * self.norm[second]

    def shown(self, first: Key, second: Key) -> tuple[str, ...]:
        """The key phrases the two share, rarest first, then key words, for the warning."""
        shared = [u for u in self.units[first] & self.units[second] if u in self.by_key]
        shared.sort(key=lambda u: (-len(u), -self.weight[u], all(w.isdigit() for w in u), u))
        return tuple(" ".join(u) for u in shared[:SHOWN])
