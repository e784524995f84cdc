"""Mastery by topic: of each tag's questions, how many a person has mastered
(`bot.domain.review.Card.mastered`), and which topic most needs their review."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from bot.decks.model import Deck
from bot.domain.review import Card


@dataclass(frozen=True)
class TopicMastery:
    tag: str
    mastered: int
    total: int
    due: int
    """Of its questions, how many are due for review today."""
    seen: int
    """Of its questions, how many the person has answered at all."""

    @property
    def share(self) -> float:
        return self.mastered / self.total if self.total else 0.0


@dataclass(frozen=True)
class Mastery:
    topics: list[TopicMastery]
    """Every tag of the loaded decks, by name."""
    mastered: int
    """Questions mastered, over every deck (tagged or not)."""
    due: int
    """Questions due for review today, over every deck."""

    @property
    def weakest(self) -> TopicMastery | None:
        """The topic with the most questions due (ties: the least mastered); with none due,
        the least mastered topic the person has met; None if they have met none."""
        met = [t for t in self.topics if t.seen]
        if not met:
            return None
        return min(met, key=lambda t: (-t.due, t.share, t.tag))


def mastery_of(
    decks: Iterable[Deck], cards: Mapping[tuple[str, str], Card], today: date
) -> Mastery:
    """A person's mastery over the loaded decks; cards of questions no longer loaded count
    for nothing."""
    topics: dict[str, list[int]] = {}
    mastered = due = 0
    for deck in decks:
        for question in deck:
            card = cards.get((deck.id, question.id))
            got = card is not None and card.mastered
            is_due = card is not None and card.is_due(today)
            mastered += got
            due += is_due
            for tag in question.tags:
                row = topics.setdefault(tag, [0, 0, 0, 0])
                row[0] += got
                row[1] += 1
                row[2] += is_due
                row[3] += card is not None
    return Mastery([TopicMastery(tag, *topics[tag]) for tag in sorted(topics)], mastered, due)
