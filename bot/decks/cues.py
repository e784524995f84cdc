"""Form cues: how a test-wise player picks the right answer from the choices' form alone.

Four cues, each naming at most one choice of a question (none when two choices tie):
- `longest` and `shortest`: the choice strictly longest or shortest in characters;
- `stem`: the choice sharing strictly the most content words with the question's text;
- `convergence`: the choice that combines the claims the other choices make most often
  (Smith, 1982, "convergence strategy"). Each choice is cut into claims at commas, semicolons,
  colons and conjunctions ("It multiplies the loss before backward, and divides the gradients
  before the step" is two claims); two claims are the same when they share at least 60% of
  their words (Jaccard) and the same numbers, counting words like "before", "after", "only"
  and "not" that a claim's value turns on. Each claim of a choice scores a point for each
  other choice that makes it too; the centre is the choice with strictly the most points.

A fifth view, `middle`, is the other side of the first two: the right answer is neither the
strictly longest nor the strictly shortest choice. A player who rules both out scores above
chance when right answers sit in the middle more often than chance puts them there, as surely
as one who picks the longest does when they are the longest too often.

Across a deck and a language, the right answer carries a cue in some questions. If the author
placed the right answer among the choices as written without regard to their form, a
question whose choices give the cue to one choice carries it by chance with probability 1/k
(k choices); the middle, with the share of choices that are neither longest nor shortest. The
number of questions that carry it is then a sum of such independent trials (a Poisson
binomial): `tail` says how likely a count at least as high is by chance alone, `floor` one at
least as low.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from bot.decks.model import Question
from bot.decks.vocabulary import true_false_pair
from bot.decks.words import content_stop, content_words, fold, stem, tokens

CLAIM_SAME = 0.6
"""Two claims are the same when they share this share of their words (Jaccard)."""
_CLAIM_WORDS = (
    "before after not no only more less once again without all every each up down most least "
    "both never আগে পরে না নয় নেই শুধু কেবল সব প্রতিটি আরও"
)
"""Stop words a claim keeps: its value turns on them ("before backward" / "after backward")."""
_CLAIM_BREAK = re.compile(
    r"[,;:]|\b(?:and|with|but|so that|while|whereas)\b|(?<!\S)(?:আর|এবং|কিন্তু|অথচ)(?!\S)"
)

Measure = Callable[[Question, str], int | None]


def longest(question: Question, locale: str) -> int | None:
    return _only_max([length(c.text[locale]) for c in question.choices])


def shortest(question: Question, locale: str) -> int | None:
    return _only_max([-length(c.text[locale]) for c in question.choices])


def stem_overlap(question: Question, locale: str) -> int | None:
    asked = set(content_words(question.text[locale], locale))
    shared = [len(asked & set(content_words(c.text[locale], locale))) for c in question.choices]
    return _only_max(shared, above=0)


def convergence(question: Question, locale: str) -> int | None:
    made = [_claims(c.text[locale], locale) for c in question.choices]
    points = [
        sum(
            1
            for claim in claims
            for other, theirs in enumerate(made)
            if other != index and any(_same(claim, their) for their in theirs)
        )
        for index, claims in enumerate(made)
    ]
    return _only_max(points, above=0)


CUES: dict[str, tuple[Measure, str, str]] = {
    "longest": (longest, "the longest choice", "a single longest choice"),
    "shortest": (shortest, "the shortest choice", "a single shortest choice"),
    "stem": (
        stem_overlap,
        "the choice sharing the most words with the question",
        "a single such choice",
    ),
    "convergence": (
        convergence,
        "the choice combining the other choices' most frequent claims",
        "a single such choice",
    ),
}
"""Each cue's measure, what it picks and which questions it counts, as a warning says them."""

MIDDLE = "middle"
"""The right answer neither strictly longest nor strictly shortest (not a pick of one choice,
so not in `CUES`; `count` takes it)."""


@dataclass(frozen=True)
class CueCount:
    """One cue over a deck's questions in one language."""

    cue: str
    counted: int
    """Questions whose choices give the cue to one choice."""
    carriers: tuple[Question, ...]
    """Of those, the ones whose right answer is that choice."""
    chance: float
    """How many would carry it by chance: the sum of 1/k over the counted questions."""
    tail: float
    """The probability of at least this many carriers by chance."""
    floor: float = 1.0
    """The probability of at most this many carriers by chance."""


def count(cue: str, questions: Sequence[Question], locale: str) -> CueCount:
    """How many of `questions` carry the cue (`CUES` or `MIDDLE`) in `locale` (true/false
    pairs left out: their form is fixed), against chance."""
    odds: list[float] = []
    carriers: list[Question] = []
    for question in questions:
        if _true_false(question, locale):
            continue
        trial = _trial(cue, question, locale)
        if trial is None:
            continue
        odds.append(trial[0])
        if trial[1]:
            carriers.append(question)
    hits = len(carriers)
    below = tail([1 - p for p in odds], len(odds) - hits)  # at most `hits`: the misses' tail
    return CueCount(cue, len(odds), tuple(carriers), sum(odds), tail(odds, hits), below)


def _trial(cue: str, question: Question, locale: str) -> tuple[float, bool] | None:
    """The chance that the question carries the cue, and whether it does; None when its
    choices give the cue to no choice."""
    k = len(question.choices)
    if cue == MIDDLE:
        ends = {longest(question, locale), shortest(question, locale)} - {None}
        if not ends or len(ends) == k:
            return None
        return (k - len(ends)) / k, question.answer not in ends
    pick = CUES[cue][0](question, locale)
    return None if pick is None else (1 / k, pick == question.answer)


def tail(odds: Sequence[float], hits: int) -> float:
    """P(at least `hits` successes) for independent trials of these probabilities (a Poisson
    binomial), computed exactly; counts of `hits` or more share one cell, so the cost is
    len(odds) x hits."""
    if hits <= 0:
        return 1.0
    cells = [1.0] + [0.0] * hits  # cells[j]: probability of j successes; cells[hits]: >= hits
    for p in odds:
        for j in range(hits, 0, -1):
            stay = cells[j] if j == hits else cells[j] * (1 - p)
            cells[j] = stay + cells[j - 1] * p
        cells[0] *= 1 - p
    return min(1.0, cells[hits])


def _only_max(values: Sequence[float], above: float | None = None) -> int | None:
    """The index of the strictly greatest value (and greater than `above`), else None."""
    top = max(values)
    if above is not None and top <= above:
        return None
    found = [i for i, value in enumerate(values) if value == top]
    return found[0] if len(found) == 1 else None


def length(text: str) -> int:
    """Characters as a reader sees them: NFC, runs of spacing as one."""
    return len(" ".join(unicodedata.normalize("NFC", text).split()))


def _true_false(question: Question, locale: str) -> bool:
    if len(question.choices) != 2:
        return False
    first, second = question.choices
    return true_false_pair(first.text[locale], second.text[locale], locale)


def _claims(text: str, locale: str) -> list[frozenset[str]]:
    """A choice's claims: its parts between breaks, as sets of words, each with a word of
    two characters or more (a lone "1" of a formula is no claim)."""
    stop = content_stop(locale) - _claim_words()
    claims: list[frozenset[str]] = []
    for part in _CLAIM_BREAK.split(fold(text)):
        said = frozenset(
            w
            for w in tokens(part)
            if w is not None and w not in stop and (len(w) > 1 or w.isdigit())
        )
        if any(len(w) > 1 for w in said):
            claims.append(said)
    return claims


@cache
def _claim_words() -> frozenset[str]:
    return frozenset(stem(fold(word)) for word in _CLAIM_WORDS.split())


def _same(first: frozenset[str], second: frozenset[str]) -> bool:
    """Claims with other numbers are other values ("adding 120 ms" is not "adding 30 ms")."""
    if {w for w in first if w[0].isdigit()} != {w for w in second if w[0].isdigit()}:
        return False
    return len(first & second) >= CLAIM_SAME * len(first | second)
