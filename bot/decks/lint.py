"""The deck lint: what `quizbot validate` warns about in a deck that loads but teaches less.

A problem stops a deck loading; a warning does not, so the bot plays the deck anyway, and
`quizbot validate --strict` lets a deck's CI refuse it. Each warning has a stable name that a
question's `lint: {ignore: [NAME]}` silences for that question. The rules are pure: loaded
`Deck`s and where their parts sit in their files (`DeckPlaces`) in, warnings out, checked in
every locale of each deck. Decks the bot loads together are linted together: a question of
one must not answer or repeat a question of another (`overlap.py`), and their right answers
taken together must not lean on a form cue (`cue_warnings.py`).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from itertools import combinations

from bot.decks.cue_warnings import across, said, skews
from bot.decks.cues import length
from bot.decks.format import GAME_SECONDS
from bot.decks.formats.phrasebook import answer_is
from bot.decks.model import Deck, Localized, Question
from bot.decks.overlap import overlaps
from bot.decks.places import DeckPlaces, QuestionPlace, TextPlace
from bot.decks.problem import LintWarning
from bot.decks.reading_time import question_reading_time
from bot.decks.tree import At
from bot.decks.vocabulary import catch_all, normal, true_false_pair

NAMES = (
    "length-tell",
    "deck-length-tell",
    "duplicate-choice",
    "all-of-the-above",
    "none-of-the-above",
    "few-choices",
    "gives-away",
    "duplicate-question",
    "form-cues",
    "reading-time",
    "missing-explanation",
    "missing-why",
    "unknown-warning",
)
"""Every warning's name, as printed and as `lint: {ignore: [...]}` takes it."""

LENGTH_RATIO = 1.25
LENGTH_MARGIN = 8
"""A right answer at least this much longer (x and characters) than every wrong one tells."""
DECK_SHARE = 0.40
DECK_MIN_QUESTIONS = 5
"""Across a deck: the right answer longest in more than 40% of the questions of 3 choices or
more (chance is 1 in 3 to 1 in 5), once there are 5 such questions."""
ENOUGH_CHOICES = 3


def lint(deck: Deck, places: DeckPlaces) -> list[LintWarning]:
    """Every warning of one deck, by line and column."""
    return lint_decks([deck], {deck.id: places})


def lint_decks(decks: Sequence[Deck], places: Mapping[str, DeckPlaces]) -> list[LintWarning]:
    """Every warning of decks the bot loads together (`places` by deck id): each deck's own,
    and those between the questions of all of them; by deck in the order given, then by line
    and column."""
    found = [w for deck in decks for w in _deck_warnings(deck, places[deck.id])]
    found.extend(overlaps(decks, places))
    found.extend(across(decks, places))
    order = {places[deck.id].path: index for index, deck in enumerate(decks)}
    return sorted(found, key=lambda w: (order[w.path], w.line, w.column, w.name, w.message))


def _deck_warnings(deck: Deck, places: DeckPlaces) -> list[LintWarning]:
    found = _Lint(deck, places)
    for question in deck.questions:
        found.question(question)
    found.deck_length()
    found.form_cues()
    return found.warnings


def _strictly_longest(question: Question, locale: str) -> tuple[int, int] | None:
    """(right, longest wrong) in characters, if the right answer is the strictly longest."""
    right = length(question.right.text[locale])
    wrong = max(
        length(c.text[locale]) for i, c in enumerate(question.choices) if i != question.answer
    )
    return (right, wrong) if right > wrong else None


class _Lint:
    def __init__(self, deck: Deck, places: DeckPlaces) -> None:
        self.deck = deck
        self.places = places
        self.warnings: list[LintWarning] = []

    def where(self, locale: str) -> str:
        """Names the locale (" in 'en'") when the deck has several, so the author knows which
        text to fix."""
        return f" in '{locale}'" if len(self.deck.locales) > 1 else ""

    def warn(self, at: At, name: str, message: str, *about: Question) -> None:
        """A warning, unless a question it is about ignores it."""
        if any(name in self.place(q).ignored for q in about):
            return
        question = about[0].id if about else None
        self.warnings.append(
            LintWarning(self.places.path, at.line, at.column, name, message, question)
        )

    def place(self, question: Question) -> QuestionPlace:
        return self.places.questions[question.id]

    def question(self, question: Question) -> None:
        self.unknown_names(question)
        self.length_tell(question)
        self.duplicates(question)
        self.catch_alls(question)
        self.few_choices(question)
        self.copied_explanation(question)
        self.copied_whys(question)
        self.reading_time(question)

    def unknown_names(self, question: Question) -> None:
        for name, at in self.place(question).ignore:
            if name not in NAMES:
                guess = difflib.get_close_matches(name, NAMES, n=1)
                hint = f" (did you mean '{guess[0]}'?)" if guess else ""
                self.warnings.append(
                    LintWarning(
                        self.places.path,
                        at.line,
                        at.column,
                        "unknown-warning",
                        f"lint ignores '{name}', no warning's name{hint}",
                        question.id,
                    )
                )

    def length_tell(self, question: Question) -> None:
        for locale in self.deck.locales:
            sizes = _strictly_longest(question, locale)
            if sizes is None:
                continue
            right, wrong = sizes
            if right >= LENGTH_RATIO * wrong and right - wrong >= LENGTH_MARGIN:
                self.warn(
                    self.place(question).choices[question.answer].text.of(locale),
                    "length-tell",
                    f"the right answer is the longest choice by far{self.where(locale)} "
                    f"({right} vs {wrong} characters)",
                    question,
                )

    def deck_length(self) -> None:
        for locale in self.deck.locales:
            counted = [
                q
                for q in self.deck.questions
                if len(q.choices) >= ENOUGH_CHOICES
                and "deck-length-tell" not in self.place(q).ignored
            ]
            longest = sum(1 for q in counted if _strictly_longest(q, locale) is not None)
            if len(counted) >= DECK_MIN_QUESTIONS and longest > DECK_SHARE * len(counted):
                self.warn(
                    self.places.questions_key,
                    "deck-length-tell",
                    f"the right answer is the longest choice in {longest} of {len(counted)} "
                    f"questions{self.where(locale)}; picking the longest scores better than "
                    f"chance",
                )

    def duplicates(self, question: Question) -> None:
        place = self.place(question)
        for (i, first), (j, second) in combinations(enumerate(question.choices), 2):
            for locale in self.deck.locales:
                if normal(first.text[locale]) == normal(second.text[locale]):
                    line = place.choices[i].text.of(locale).line
                    self.warn(
                        place.choices[j].text.of(locale),
                        "duplicate-choice",
                        f"this choice repeats the one on line {line}{self.where(locale)} "
                        f"(only case, spacing or punctuation differ)",
                        question,
                    )
                    break

    def catch_alls(self, question: Question) -> None:
        for index, choice in enumerate(question.choices):
            for locale in self.deck.locales:
                kind = catch_all(choice.text[locale], locale)
                if kind is None:
                    continue
                self.warn(
                    self.place(question).choices[index].text.of(locale),
                    f"{kind}-of-the-above",
                    f'"{kind} of the above" as a choice{self.where(locale)}: it tests reading '
                    f"the other choices, not the subject; write a specific choice",
                    question,
                )
                break

    def few_choices(self, question: Question) -> None:
        count = len(question.choices)
        if count >= ENOUGH_CHOICES:
            return
        first, second = question.choices
        if all(true_false_pair(first.text[x], second.text[x], x) for x in self.deck.locales):
            return
        self.warn(
            self.place(question).choices_key,
            "few-choices",
            f"only {count} choices: a guess is right half the time; add a near-miss, "
            f"or make it a true/false question",
            question,
        )

    def copied_explanation(self, question: Question) -> None:
        text = question.explanation
        place = self.place(question).explanation
        for locale in self.deck.locales:
            right = question.right.text[locale]
            if normal(text[locale]) in (normal(right), normal(answer_is(locale, right))):
                self.warn(
                    place.of(locale),
                    "missing-explanation",
                    f"the explanation{self.where(locale)} only names the answer; "
                    f"say why it is right",
                    question,
                )
        self._copies(question, text, place, "missing-explanation", "the explanation")

    def copied_whys(self, question: Question) -> None:
        for index, choice in enumerate(question.choices):
            why = self.place(question).choices[index].why
            if choice.why is not None and why is not None:
                self._copies(question, choice.why, why, "missing-why", "this why")

    def _copies(
        self, question: Question, text: Localized, place: TextPlace, name: str, label: str
    ) -> None:
        """A text whose locale is a copy of an earlier locale's: that locale has none of its
        own (players of that language read the other one)."""
        locales = self.deck.locales
        for later_index, later in enumerate(locales):
            for earlier in locales[:later_index]:
                if normal(text[later]) == normal(text[earlier]):
                    self.warn(
                        place.of(later),
                        name,
                        f"{label} is the same text in '{earlier}' and '{later}': "
                        f"write it in each language",
                        question,
                    )
                    break

    def form_cues(self) -> None:
        counted = [q for q in self.deck.questions if "form-cues" not in self.place(q).ignored]
        for locale in self.deck.locales:
            for skew in skews(counted, locale):
                self.warn(
                    self.places.questions_key,
                    "form-cues",
                    said(
                        skew,
                        self.where(locale),
                        lambda q: f"'{q.id}' (line {self.place(q).at.line})",
                    ),
                )

    def reading_time(self, question: Question) -> None:
        """One warning per question, at the locale slowest to read: `seconds` covers all."""
        allowed = question.seconds or GAME_SECONDS
        times = {x: question_reading_time(question, x) for x in self.deck.locales}
        needed = {x: math.ceil(read.seconds) for x, read in times.items()}
        slow = [x for x in sorted(needed, key=lambda x: -needed[x]) if needed[x] > allowed]
        if not slow:
            return
        first, *others = slow
        fix = -(-needed[first] // 5) * 5
        also = "".join(f" and {needed[x]} s in '{x}'" for x in others)
        if question.seconds is None:
            said = f"more than a game's {GAME_SECONDS} s; add seconds: {fix} or more"
        else:
            said = f"more than its seconds: {question.seconds}; make it {fix} or more"
        self.warn(
            self.place(question).text.of(first),
            "reading-time",
            f"the question and its choices take about {needed[first]} s to read"
            f"{self.where(first)} ({times[first].measure()}){also}, {said}, or shorten them",
            question,
        )
