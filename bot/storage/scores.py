"""Points kept as answers are stored: a scoring answer's six standings rows, and the score
counts that rank a user without counting everyone above them.

Standings rows belong to one user; score counts (how many users of a leaderboard stand at
each total) are shared by every user, so a transaction adds up its moves (`ScoreCounts`)
and writes them once, in key order, as its last statement. How the rows are written is the
dialect's (`Dialect.add_points`: `bot.storage.sqlite.points`, `bot.storage.postgres.points`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.domain.scoring import boards
from bot.storage.count_moves import CountMoves
from bot.storage.tables import ALL_DECKS

BOARDS = 6
"""A scoring answer's standings rows: week, month and all time, each for its deck and for all
decks."""
ROW = ("server_id", "season", "period", "deck_key", "user_id", "points", "reached_at")
"""A standings row's columns, as the dialects' upserts list them."""


@dataclass(frozen=True)
class Scored:
    """A stored answer that scored: who, where, how much, and when."""

    server_id: str
    season: int
    deck_id: str
    user_id: str
    points: int
    at: datetime

    def rows(self, zone: str) -> list[tuple[Any, ...]]:
        """Its standings rows (`ROW`), in `zone` (the server's): `bot.domain.scoring.boards`."""
        return [
            (
                self.server_id,
                self.season,
                period,
                ALL_DECKS if deck is None else deck,
                self.user_id,
                self.points,
                self.at,
            )
            for period, deck in boards(self.at, zone, self.deck_id)
        ]


class ScoreCounts(CountMoves):
    """One transaction's score count moves, summed per (leaderboard, total); each dialect
    writes them its way (`write`)."""

    KEYS = ("server_id", "season", "period", "deck_key", "points")

    def move(self, board: tuple[str, int, str, str], old: int, new: int) -> None:
        """A user on `board` went from `old` points to `new` (a total of 0 is not counted)."""
        self._users[(*board, new)] += 1
        if old > 0:
            self._users[(*board, old)] -= 1

    def leave(self, board: tuple[str, int, str, str], points: int) -> None:
        """A user standing at `points` on `board` is gone (forgotten)."""
        self._users[(*board, points)] -= 1
