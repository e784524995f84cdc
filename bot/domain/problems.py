""" "Report a problem": what a player says is wrong with a question, for the deck's authors.

A report names the question and the deck's version at the time, so an author reading it
after fixing the deck can tell whether it was about the old text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum

TEXT_LIMIT = 1000
"""Characters of free text kept (the forms allow no more)."""


class Reason(Enum):
    WRONG_ANSWER = "wrong_answer"
    UNCLEAR = "unclear"
    TYPO = "typo"
    OTHER = "other"

    @classmethod
    def parse(cls, word: object) -> Reason | None:
        try:
            return cls(word)
        except ValueError:
            return None


@dataclass(frozen=True)
class ProblemReport:
    server_id: str
    user_id: str
    deck_id: str
    question_id: str
    deck_version: str
    reason: Reason
    text: str
    reported_at: datetime
    id: int | None = None
    sent_at: datetime | None = None
