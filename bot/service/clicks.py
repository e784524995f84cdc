"""What a click asks for and what its reply says, on every platform alike.

An adapter reads a button's value (or a form's fields) into an `Intent`, never trusting it: a
value that does not parse is `Stale`. `bot.service.intake` decides the intent (one core call,
committed before the ack) into an `Outcome`, which the adapter renders its own way (Block Kit
on Slack, an embed on Discord).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.decks.model import Question
from bot.domain.actor import Actor
from bot.domain.answer import AnswerResult
from bot.domain.review import ReviewDone, ReviewFeedback, ReviewStep
from bot.domain.run import RunFeedback
from bot.observability.clicklog import Handled

# Intents: what a click asks for ----------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """A choice on a posted question (`shown`: the button's position, 0 is A)."""

    post_id: int
    shown: int


@dataclass(frozen=True)
class SwitchLanguage:
    """The clicker's answer to a post shown again in `locale`."""

    post_id: int
    locale: str


@dataclass(frozen=True)
class RunAnswer:
    run_id: int
    question_id: str
    shown: int


@dataclass(frozen=True)
class ReviewAnswer:
    key: str
    """The card's `card_key`."""
    number: int
    shown: int
    tag: str | None = None


@dataclass(frozen=True)
class StartReview:
    tag: str | None
    """The topic to review; None: every topic."""


@dataclass(frozen=True)
class OpenReport:
    """ "Report a problem": the form about question `key` (a `card_key`)."""

    key: str


@dataclass(frozen=True)
class Report:
    """The form sent back: untrusted, as the platform carried it."""

    key: str
    reason: object
    details: str


@dataclass(frozen=True)
class Reset:
    """The confirm of a new season after `season` (the one it was shown for). Needs an admin:
    the platform vouches for the clicker again for this click (`Click.vouch`)."""

    season: int


@dataclass(frozen=True)
class CancelReset:
    pass


@dataclass(frozen=True)
class Forget:
    """The confirm of "delete what is kept about me in this server"."""


@dataclass(frozen=True)
class Keep:
    """Its "keep it"."""


@dataclass(frozen=True)
class Hide:
    """Hide (or show again) the clicker on the leaderboards."""

    hidden: bool


@dataclass(frozen=True)
class Act:
    """A click on a button of a capability the intake does not route by kind (a suggestion's
    Approve, Edit, Send): `work` does it within the click's deadline (committing before it
    returns) and sends its own reply, which on Discord is the acknowledgement; what it did."""

    work: Callable[[float], Awaitable[Handled]]


@dataclass(frozen=True)
class Stale:
    """A button this bot does not know, or a value that does not parse: refused, unread."""


Intent = (
    Answer
    | SwitchLanguage
    | RunAnswer
    | ReviewAnswer
    | StartReview
    | OpenReport
    | Report
    | Reset
    | CancelReset
    | Forget
    | Keep
    | Hide
    | Act
    | Stale
)


# Outcomes: what the reply says -----------------------------------------------------------


@dataclass(frozen=True)
class Answered:
    """The private reply to an answer: right or wrong, totals, the other-language button."""

    result: AnswerResult


@dataclass(frozen=True)
class Locked:
    """A game's answer: "locked in", no verdict and no count until the reveal."""

    result: AnswerResult


@dataclass(frozen=True)
class Switched:
    """The reply to an answer again, in another language; it replaces the one clicked."""

    result: AnswerResult


@dataclass(frozen=True)
class RunFed:
    """A run's feedback, with its next step or its summary."""

    feedback: RunFeedback


@dataclass(frozen=True)
class Reviewed:
    """Review's feedback, with the next card due."""

    feedback: ReviewFeedback


@dataclass(frozen=True)
class ReviewStarted:
    step: ReviewStep | ReviewDone


@dataclass(frozen=True)
class ReportForm:
    """The form to open about a question, in the clicker's language for its deck."""

    locale: str
    key: str
    question: Question


@dataclass(frozen=True)
class Reported:
    """The form was stored: thank the clicker."""

    locale: str


@dataclass(frozen=True)
class Said:
    """A line of the catalog (`key` with `params`, in `locale`); it replaces the message
    clicked (a confirm)."""

    locale: str
    key: str
    params: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Acted:
    """An `Act`'s work replied itself: nothing more to send."""


@dataclass(frozen=True)
class Refused:
    """Nothing happened: a refusal (`QuizError`) or a failure, told to the clicker (`actor`:
    None when the click named nobody the bot serves)."""

    error: Exception
    actor: Actor | None


Outcome = (
    Answered
    | Locked
    | Switched
    | RunFed
    | Reviewed
    | ReviewStarted
    | ReportForm
    | Reported
    | Said
    | Acted
    | Refused
)
