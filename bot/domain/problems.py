""" "Report a problem": what a player says is wrong with a question, for the deck's authors.

A report names the question and the deck's version at the time, so an author reading it
after fixing the deck can tell whether it was about the old text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
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


DAILY_REPORTS = 5
"""Reports one person may send in a server in any 24 hours: more than the slips anyone meets
in a day, too few for a flood that would bury the others' reports (or carry phishing)."""
REPORT_WINDOW = timedelta(days=1)


def refusal(
    mine: Sequence[ProblemReport], deck_id: str, question_id: str, now: datetime
) -> str | None:
    """Why a person may not report now, as an error key; None if they may.

    `mine` is what they reported in the last day and whatever of theirs admins have not been
    sent yet (`Problems.problem_reports_by`). One report per question stays open until the
    admins' summary carries it: a second would only repeat it.
    """
    if any(
        r.deck_id == deck_id and r.question_id == question_id and r.sent_at is None for r in mine
    ):
        return "report_open"
    if sum(1 for r in mine if now - r.reported_at < REPORT_WINDOW) >= DAILY_REPORTS:
        return "report_limit"
    return None


@dataclass(frozen=True)
class SummaryMessage:
    """One direct message of the daily summary, and the reports it carries: a report is
    marked sent only once a message carrying it reached an admin."""

    text: str
    report_ids: tuple[int, ...]
