"""A user's record in a server: what `stats` shows."""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain.mastery import Mastery
from bot.domain.records import Totals


@dataclass(frozen=True)
class Stats:
    user_id: str
    totals: Totals
    streak: int
    rank: int | None
    """All-time rank this season; None with no points."""
    locale: str
    mastery: Mastery | None = None
    due: int | None = None
    """Questions due for review: shown to the person themself only."""
    games: tuple[int, int] = (0, 0)
    """Live games played, and won."""

    @property
    def accuracy(self) -> float:
        t = self.totals
        return t.correct / t.answered if t.answered else 0.0
