"""Questions the team writes: what a suggestion holds, its limits, and where it is in its life.

A member fills in a form (`Draft`); it is kept as their draft while the lint coaches them,
waits for an admin once they send it, and is approved (it joins the server's own deck,
`bot.decks.team`) or rejected with a reason. Everything here is what was typed, as typed:
the surfaces escape it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.domain.errors import QuizError
from bot.domain.health import QuestionHealth


class Field(StrEnum):
    """The form's fields, in its order (five: Discord's modal holds no more)."""

    QUESTION = "question"
    RIGHT = "right"
    WRONG = "wrong"
    """The wrong answers, one per line."""
    EXPLANATION = "explanation"
    WHYS = "whys"
    """Why each wrong answer is wrong, one per line, in the wrong answers' order."""


LIMITS = {
    Field.QUESTION: 300,
    Field.RIGHT: 120,
    Field.WRONG: 500,
    Field.EXPLANATION: 600,
    Field.WHYS: 800,
}
"""Characters per field, said in the form and enforced by it and by the service."""
LINE_LIMIT = 120
"""Characters of one wrong answer."""
MIN_WRONG = 1
MAX_WRONG = 4
"""Wrong answers: a question shows at most five choices."""
PER_DAY = 3
"""Suggestions one person may send a server in a day (UTC)."""
WAITING_CAP = 20
"""Suggestions a server's queue holds: a longer queue is not worked through."""


class Status(StrEnum):
    DRAFT = "draft"
    """Typed but not sent: only its author sees it (one per author and server)."""
    WAITING = "waiting"
    APPROVED = "approved"
    REJECTED = "rejected"


def printable(typed: str) -> str:
    """What a member typed, without control characters (line breaks kept): it is shown in
    chat, in terminals and in exported files."""
    return "".join(c for c in typed if c in "\n" or c.isprintable())


def lines(typed: str) -> tuple[str, ...]:
    """A field of one item per line: the lines, stripped, blank ones left out."""
    return tuple(line.strip() for line in typed.splitlines() if line.strip())


def why_lines(typed: str) -> tuple[str, ...]:
    """The whys, one per line, stripped; a blank line between two keeps its place (that
    wrong answer has no why), trailing blank lines do not count."""
    found = [line.strip() for line in typed.splitlines()]
    while found and not found[-1]:
        found.pop()
    return tuple(found)


@dataclass(frozen=True)
class Draft:
    """The form as typed; `locale`: the language it is written in (found from its text)."""

    question: str
    right: str
    wrong: tuple[str, ...]
    explanation: str = ""
    whys: tuple[str, ...] = ()
    locale: str = "en"

    @classmethod
    def typed(cls, fields: dict[Field, str], locale: str = "en") -> Draft:
        """A draft from the form's text fields (missing ones are empty)."""
        fields = {k: printable(v) for k, v in fields.items()}
        return cls(
            question=fields.get(Field.QUESTION, "").strip(),
            right=fields.get(Field.RIGHT, "").strip(),
            wrong=lines(fields.get(Field.WRONG, "")),
            explanation=fields.get(Field.EXPLANATION, "").strip(),
            whys=why_lines(fields.get(Field.WHYS, "")),
            locale=locale,
        )

    def fields(self) -> dict[Field, str]:
        """The form's fields filled in with this draft (the form reopened)."""
        return {
            Field.QUESTION: self.question,
            Field.RIGHT: self.right,
            Field.WRONG: "\n".join(self.wrong),
            Field.EXPLANATION: self.explanation,
            Field.WHYS: "\n".join(self.whys),
        }

    def why_of(self, index: int) -> str | None:
        """The why of the `index`th wrong answer, if one was written."""
        return (self.whys[index] or None) if index < len(self.whys) else None

    def refusal(self) -> tuple[Field, QuizError] | None:
        """What the form cannot take as it is, and which field to say it under; None if
        it can be stored."""
        fields = self.fields()
        for name, limit in LIMITS.items():
            if len(fields[name]) > limit:
                return name, QuizError("suggest_too_long", field=name.value, limit=limit)
        if not self.question:
            return Field.QUESTION, QuizError("suggest_missing", field=Field.QUESTION.value)
        if not self.right:
            return Field.RIGHT, QuizError("suggest_missing", field=Field.RIGHT.value)
        if not MIN_WRONG <= len(self.wrong) <= MAX_WRONG:
            return Field.WRONG, QuizError("suggest_wrong_count", least=MIN_WRONG, most=MAX_WRONG)
        if any(len(w) > LINE_LIMIT for w in self.wrong):
            return Field.WRONG, QuizError("suggest_line_too_long", limit=LINE_LIMIT)
        if len(self.whys) > len(self.wrong):
            return Field.WHYS, QuizError("suggest_too_many_whys", wrong=len(self.wrong))
        return None


@dataclass(frozen=True)
class Suggestion:
    id: int
    server_id: str
    author_id: str | None
    """None once its author asked to be forgotten (an approved question stays, uncredited)."""
    author_name: str | None
    """The name the reveal credits ("Question by @name"), as the platform gave it."""
    draft: Draft
    status: Status
    created_at: datetime
    submitted_at: datetime | None = None
    decided_at: datetime | None = None
    decided_by: str | None = None
    reason: str | None = None
    """Why it was rejected, for its author."""

    @property
    def question_id(self) -> str:
        """Its id in the server's own deck, once approved."""
        return f"q{self.id}"


@dataclass(frozen=True)
class Finding:
    """One thing the lint found: `name` is the lint's warning name (or `no-explanation`,
    `missing-why` for the form's own checks), `detail` the lint's own words (English)."""

    name: str
    detail: str = ""


class Sent(StrEnum):
    """What sending a draft to the queue came to."""

    SENT = "sent"
    DAY_FULL = "day_full"
    """Its author has sent `PER_DAY` today."""
    QUEUE_FULL = "queue_full"
    """The server has `WAITING_CAP` waiting."""
    GONE = "gone"
    """No such draft of this author (sent already, or forgotten)."""


@dataclass(frozen=True)
class Checked:
    """A form sent: the draft as stored, what the lint found, and, if it found nothing, what
    sending it to the queue came to (else the author chooses: Edit or Submit anyway)."""

    suggestion: Suggestion
    findings: Sequence[Finding]
    sent: Sent | None = None


@dataclass(frozen=True)
class Queue:
    waiting: Sequence[tuple[Suggestion, Sequence[Finding]]]
    total: int


@dataclass(frozen=True)
class Written:
    """`stats`: one question a person wrote, and how it plays once approved (None before)."""

    suggestion: Suggestion
    health: QuestionHealth | None
