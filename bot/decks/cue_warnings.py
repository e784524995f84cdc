"""When a form cue is worth a `form-cues` warning, and what the warning says.

A cue skews a deck in one language when the right answer carries it far from what chance gives,
on either side that a test-wise player can use: picking the choice that carries it when the
right answer carries it too often, ruling out the longest or shortest choice when the right
answer is that choice too rarely (the `middle` view adds the two up). Checked for each deck
alone, and for decks loaded together: many decks each a little off can add up to a cue that
none of them shows alone, as the bot plays them together.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bot.decks.cues import CUES, MIDDLE, CueCount, count
from bot.decks.model import Deck, Question
from bot.decks.places import DeckPlaces
from bot.decks.problem import LintWarning

CUE_CHANCE = 0.01
CUE_RATIO = 1.5
"""A form cue is warned when the count of questions carrying it is so far from chance that
chance gives one as far at most 1 time in 100 (the exact tail of the count), and it is half
again as much as chance gives, or two thirds of it: small decks are not flagged by noise, nor
big ones for a cue too weak to matter."""
TWO_SIDED = ("longest", "shortest")
"""Cues whose absence is a cue too: "never the longest" rules a choice out in every question.
The middle view is their sum, so it is checked on the side of too many only."""


@dataclass(frozen=True)
class Skew:
    """A cue the right answers carry far more (`more`) or far less often than chance."""

    found: CueCount
    more: bool


def skews(questions: Sequence[Question], locale: str) -> list[Skew]:
    """The cues `questions` carry far from chance in `locale`, in `CUES` order, middle last."""
    found: list[Skew] = []
    for cue in (*CUES, MIDDLE):
        counted = count(cue, questions, locale)
        hits = len(counted.carriers)
        if cue == MIDDLE:
            # Too many in the middle is too few at the ends: the ratio is the ends'.
            ends, chance_ends = counted.counted - hits, counted.counted - counted.chance
            if ends * CUE_RATIO <= chance_ends and counted.tail <= CUE_CHANCE:
                found.append(Skew(counted, more=True))
        elif hits >= CUE_RATIO * counted.chance and counted.tail <= CUE_CHANCE:
            found.append(Skew(counted, more=True))
        elif (
            cue in TWO_SIDED and hits * CUE_RATIO <= counted.chance and counted.floor <= CUE_CHANCE
        ):
            found.append(Skew(counted, more=False))
    return found


def said(skew: Skew, where: str, named: Callable[[Question], str]) -> str:
    """The warning's words; `where` names the language, `named` a question that carries it."""
    found = skew.found
    hits, of = len(found.carriers), f"of the {found.counted} questions{where}"
    if found.cue == MIDDLE:
        return (
            f"the right answer is neither the longest nor the shortest choice in {hits} {of} "
            f"with a single longest or shortest choice; chance would give {found.chance:.1f} "
            f"(p = {found.tail:.1g}), so ruling out the longest and the shortest scores "
            f"without knowing: let the right answer be one of them about as often as chance"
        )
    _, what, which = CUES[found.cue]
    if not skew.more:
        return (
            f"the right answer is {what} in only {hits} {of} with {which}; chance would give "
            f"{found.chance:.1f} (p = {found.floor:.1g}), so ruling out {what} scores without "
            f"knowing: let the right answer be {what} about as often as chance"
        )
    names = ", ".join(named(q) for q in found.carriers)
    return (
        f"the right answer is {what} in {hits} {of} with {which}; chance would give "
        f"{found.chance:.1f} (p = {found.tail:.1g}), so picking it scores without knowing: "
        f"{names}"
    )


def across(decks: Sequence[Deck], places: Mapping[str, DeckPlaces]) -> list[LintWarning]:
    """The skews of several decks' questions taken together, per language, at the first
    deck's `questions:` key; questions that ignore `form-cues` are left out."""
    if len(decks) < 2:
        return []
    deck_of = {id(q): deck for deck in decks for q in deck.questions}
    locales = list(dict.fromkeys(x for deck in decks for x in deck.locales))
    at = places[decks[0].id]
    found: list[LintWarning] = []
    for locale in locales:
        questions = [
            q
            for deck in decks
            if locale in deck.locales
            for q in deck.questions
            if "form-cues" not in places[deck.id].questions[q.id].ignored
        ]
        users = sum(1 for deck in decks if locale in deck.locales)
        if users < 2:
            continue
        where = f" in '{locale}'" if len(locales) > 1 else ""
        for skew in skews(questions, locale):
            message = said(skew, where, lambda q: f"'{q.id}' ({deck_of[id(q)].id})")
            found.append(
                LintWarning(
                    at.path,
                    at.questions_key.line,
                    at.questions_key.column,
                    "form-cues",
                    f"across the {users} decks loaded together, {message}",
                )
            )
    return found
