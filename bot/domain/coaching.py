"""What the deck lint says of a suggested question, before any admin reads it.

The draft becomes a one-question deck and goes through the same rules as a deck file
(`bot.decks.lint`): the right answer longest by far, choices that repeat, "all of the above",
too long to read in a game; then against the server's decks (`twins`, `leaks`: a question it
repeats, or one whose text answers it or that it answers); and the form's own checks: no
explanation, a wrong answer without its why. The decks' places are made up (a draft has no
file): only the findings' names and words are used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.decks.duplicates import twins
from bot.decks.formats.phrasebook import answer_is
from bot.decks.giveaway import leaks
from bot.decks.lint import lint
from bot.decks.model import Choice, Deck, Question, pick
from bot.decks.places import ChoicePlace, DeckPlaces, QuestionPlace, TextPlace
from bot.decks.tree import At
from bot.domain.suggestion import Draft, Finding

DRAFT_DECK = "suggestion"
DRAFT_QUESTION = "draft"
SKIPPED = frozenset({"missing-explanation"})
"""Lint rules the form checks its own way (an empty explanation is `no-explanation`)."""


def question_of(draft: Draft, question_id: str, position: int, locales: Sequence[str]) -> Question:
    """The draft as a deck's question: the right answer first (posts shuffle), each text in
    every locale of `locales` (written once, in the draft's: a deck has every text in each)."""

    def every(said: str) -> dict[str, str]:
        return {locale: said for locale in locales}

    choices = [Choice(every(draft.right))]
    for index, wrong in enumerate(draft.wrong):
        why = draft.why_of(index)
        choices.append(Choice(every(wrong), every(why) if why else None))
    explanation = draft.explanation or answer_is(draft.locale, draft.right)
    return Question(
        id=question_id,
        text=every(draft.question),
        choices=tuple(choices),
        answer=0,
        explanation=every(explanation),
        position=position,
    )


def made_up_places(deck: Deck) -> DeckPlaces:
    """Places for a deck that has no file: every part at line 1 of a path named after it."""
    at = At(1, 1)
    text = TextPlace(at)
    return DeckPlaces(
        path=deck.id,
        questions_key=at,
        questions={
            q.id: QuestionPlace(
                at,
                text,
                at,
                tuple(ChoicePlace(text, text if c.why else None) for c in q.choices),
                text,
            )
            for q in deck.questions
        },
    )


def coach(draft: Draft, decks: Iterable[Deck]) -> list[Finding]:
    """What the lint finds in `draft`, compared with `decks` (the server's), in the order an
    author fixes them: the question itself, then the other decks, then what is missing."""
    mine = Deck(
        id=DRAFT_DECK,
        title={draft.locale: DRAFT_DECK},
        locales=(draft.locale,),
        questions=(question_of(draft, DRAFT_QUESTION, 1, (draft.locale,)),),
    )
    found = [
        Finding(w.name, w.message)
        for w in lint(mine, made_up_places(mine))
        if w.name not in SKIPPED
    ]
    others = [d for d in decks if draft.locale in d.locales and d.id != DRAFT_DECK]
    found.extend(_overlaps(mine, others, draft.locale))
    if not draft.explanation:
        found.append(Finding("no-explanation"))
    without = [w for i, w in enumerate(draft.wrong) if draft.why_of(i) is None]
    if without:
        found.append(Finding("missing-why", ", ".join(f'"{w}"' for w in without)))
    return found


def _overlaps(mine: Deck, others: Sequence[Deck], locale: str) -> list[Finding]:
    """The server's questions the draft repeats, answers, or is answered by (each once)."""
    if not others:
        return []
    decks = [*others, mine]
    found: list[Finding] = []
    for twin in twins(decks):
        if twin.second_deck is mine:
            found.append(Finding("duplicate-question", _named(twin.first_deck, twin.first, locale)))
    for leak in leaks(decks):
        if leak.given_deck is mine and leak.giver_deck is not mine:
            found.append(Finding("answered-by", _named(leak.giver_deck, leak.giver, locale)))
        elif leak.giver_deck is mine and leak.given_deck is not mine:
            found.append(Finding("gives-away", _named(leak.given_deck, leak.given, locale)))
    return list(dict.fromkeys(found))


def _named(deck: Deck, question: Question, locale: str) -> str:
    """The other question as the author reads it: its text, and its deck's title."""
    return f'"{pick(question.text, locale)}" ({pick(deck.title, locale)})'
