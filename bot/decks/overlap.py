"""The warnings between questions: one that gives another's answer away (`gives-away`) and
two that ask the same thing (`duplicate-question`), in one deck or across the decks the bot
loads together.

Each points at the question that should change (the text that tells; the later of the two
twins, in the order the decks were given) and names the other, with its deck and place when
it is in another file. Either question's `lint: {ignore: [NAME]}` silences it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.decks.duplicates import twins
from bot.decks.giveaway import leaks
from bot.decks.model import Deck, Question
from bot.decks.places import DeckPlaces, TextPlace
from bot.decks.problem import LintWarning


def overlaps(decks: Sequence[Deck], places: Mapping[str, DeckPlaces]) -> list[LintWarning]:
    """The gives-away and duplicate-question warnings between all of `decks`' questions."""
    return [*_gives_away(decks, places), *_duplicates(decks, places)]


def _gives_away(decks: Sequence[Deck], places: Mapping[str, DeckPlaces]) -> list[LintWarning]:
    found: list[LintWarning] = []
    for leak in leaks(decks):
        giver = places[leak.giver_deck.id].questions[leak.giver.id]
        part: TextPlace = giver.explanation if leak.part == "explanation" else giver.text
        if leak.choice is not None:
            part = giver.choices[leak.choice].why or part
        what = "this why" if leak.part == "why" else f"this {leak.part}"
        shown = ", ".join(f'"{s}"' for s in leak.shown)
        message = (
            f"{what} gives away the answer of question "
            f"{_named(leak.given_deck, leak.given, leak.giver_deck, places)}"
            f"{_where(leak.giver_deck, leak.locale)}: it says {shown}"
        )
        found.extend(
            _warning(
                places,
                (leak.giver_deck, leak.giver),
                (leak.given_deck, leak.given),
                part,
                leak.locale,
                "gives-away",
                message,
            )
        )
    return found


def _duplicates(decks: Sequence[Deck], places: Mapping[str, DeckPlaces]) -> list[LintWarning]:
    found: list[LintWarning] = []
    for twin in twins(decks):
        shown = ", ".join(f'"{s}"' for s in twin.shared)
        message = (
            f"this question asks what question "
            f"{_named(twin.first_deck, twin.first, twin.second_deck, places)} asks; both say "
            f"{shown}{_where(twin.second_deck, twin.locale)}: whoever meets one first gets the "
            f"other free, so keep one, or make the other ask another fact"
        )
        text = places[twin.second_deck.id].questions[twin.second.id].text
        found.extend(
            _warning(
                places,
                (twin.second_deck, twin.second),
                (twin.first_deck, twin.first),
                text,
                twin.locale,
                "duplicate-question",
                message,
            )
        )
    return found


def _warning(
    places: Mapping[str, DeckPlaces],
    at: tuple[Deck, Question],
    other: tuple[Deck, Question],
    part: TextPlace,
    locale: str,
    name: str,
    message: str,
) -> list[LintWarning]:
    """The warning at `part` of `at`'s question, unless either question ignores it."""
    for deck, question in (at, other):
        if name in places[deck.id].questions[question.id].ignored:
            return []
    where = part.of(locale)
    path = places[at[0].id].path
    return [LintWarning(path, where.line, where.column, name, message, at[1].id)]


def _named(
    deck: Deck, question: Question, seen_from: Deck, places: Mapping[str, DeckPlaces]
) -> str:
    """'id' (line N) in the same deck; 'id' of deck 'd' (path:N) in another."""
    place = places[deck.id]
    line = place.questions[question.id].at.line
    if deck.id == seen_from.id:
        return f"'{question.id}' (line {line})"
    return f"'{question.id}' of deck '{deck.id}' ({place.path}:{line})"


def _where(deck: Deck, locale: str) -> str:
    """Names the locale (" in 'en'") when the deck has several."""
    return f" in '{locale}'" if len(deck.locales) > 1 else ""
