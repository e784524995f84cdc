"""The result of a click on a post: everything the private reply shows."""

from __future__ import annotations

from dataclasses import dataclass

from bot.decks.model import Choice
from bot.domain.post import PostView, letter_of
from bot.domain.records import AnswerStatus, Totals

POINTS = 1
"""What a right answer scores; there is no speed bonus: thinking is not punished."""


def points_for(correct: bool) -> int:
    return POINTS if correct else 0


@dataclass(frozen=True)
class AnswerResult:
    status: AnswerStatus
    """NEW: this click counted. DUPLICATE: an earlier answer stands. CLOSED: too late."""
    view: PostView
    choice: int | None
    """The answer that stands (index as written in the deck); None when CLOSED."""
    locale: str
    """The language of the reply (user's setting, else the server's, else the deck's)."""
    other_locale: str | None
    totals: Totals
    streak: int = 0
    replay: bool = False
    """The reply shown again (in another language): it reads as the original did."""
    practice: bool = False
    """Right, but no point: the user had met this question before this season."""

    @property
    def correct(self) -> bool:
        return self.choice == self.view.question.answer

    @property
    def letter(self) -> str | None:
        return None if self.choice is None else letter_of(self.view.post.order, self.choice)

    @property
    def picked(self) -> Choice | None:
        return None if self.choice is None else self.view.question.choices[self.choice]
