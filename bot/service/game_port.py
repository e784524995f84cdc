"""The live games' storage port (`bot.domain.game`), apart from `bot.service.ports` for its
size; `QuizStore` includes it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from bot.domain.game import GameRecord, GameScore, GameState, NewGame, Phase, Placing
from bot.domain.records import PostRecord


class Games(Protocol):
    """Live games (`bot.domain.game`): each step claimed before it is taken."""

    async def create_game(self, game: NewGame) -> GameRecord | None:
        """Stores a running game, due now to be announced; None if the channel has one."""
        ...

    async def running_game(self, server_id: str, channel_id: str) -> GameRecord | None: ...

    async def game(self, game_id: int) -> GameRecord | None: ...

    async def due_games(self, now: datetime) -> Sequence[GameRecord]:
        """Running games whose next step is due (or that were asked to stop), unclaimed or
        whose claim has lapsed."""
        ...

    async def claim_game(self, game_id: int, step: int, lease_until: datetime) -> bool:
        """Takes the game's next step if it is still at `step` (its `step` goes up by one):
        of several callers one wins."""
        ...

    async def move_game(self, game_id: int, step: int, phase: Phase, due_at: datetime) -> bool:
        """Records a claimed step as taken (claimed at `step`): the new phase and when the
        next is due; the claim is let go."""
        ...

    async def stop_game(self, game_id: int, user_id: str) -> None:
        """Asks the loop to stop a running game (`/quiz game stop`)."""
        ...

    async def finish_game(
        self, game_id: int, state: GameState, at: datetime, board: Sequence[Placing]
    ) -> bool:
        """Ends a running game with its players' places; False if it had ended already."""
        ...

    async def game_posts(self, game_id: int) -> Sequence[PostRecord]:
        """The game's questions, first asked first."""
        ...

    async def game_scores(self, game_id: int) -> Sequence[GameScore]:
        """Everyone who clicked in the game's revealed questions, with their right answers.
        A post with no stored message (sent but not recorded, then withdrawn) counts for
        nothing."""
        ...

    async def games_of(self, server_id: str, user_id: str) -> tuple[int, int]:
        """Games a person played in a server, and won (first place, with points)."""
        ...
