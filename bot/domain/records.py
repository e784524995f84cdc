"""The records the quiz keeps: servers, posts, answers, runs, standings, schedules.

The storage ports (`bot.service.ports`) take and give these, whichever store is behind them;
the rules that work on them (points, totals, streaks, ranks) are in `bot.domain.scoring` and
`bot.domain.totals`.

Server ids are namespaced by the adapter ("slack:T123", "slack:E9" for org-wide installs,
"discord:1234", "local"), so two platforms never share a leaderboard by accident.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import Enum

from bot.domain.schedule import Days, Schedule


@dataclass(frozen=True)
class ServerSettings:
    server_id: str
    locale: str | None = None
    timezone: str = "UTC"
    season: int = 1


@dataclass(frozen=True)
class NewPost:
    server_id: str
    channel_id: str
    deck_id: str
    question_id: str
    order: tuple[int, ...]
    """Original choice indexes in display order: order[0] is shown as A."""
    locale: str
    poster_id: str
    season: int
    opened_at: datetime
    schedule_id: int | None = None
    game_id: int | None = None
    closes_at: datetime | None = None


CLICK_GRACE = timedelta(seconds=1)
"""How late after a game question's deadline a click still counts: one made as the time ran
out, which spent a moment on its way (the platform, the network). A later one is too late,
whatever the game loop is busy with."""


@dataclass(frozen=True)
class PostRecord:
    id: int
    server_id: str
    channel_id: str
    deck_id: str
    question_id: str
    order: tuple[int, ...]
    locale: str
    poster_id: str
    season: int
    opened_at: datetime
    closed_at: datetime | None = None
    message_ref: str | None = None
    """The platform's id of the posted message (Slack ts, Discord message id), once sent."""
    schedule_id: int | None = None
    game_id: int | None = None
    """The game it is a question of: its clicks are locked in, and said right or wrong only
    at the reveal."""
    closes_at: datetime | None = None
    """A game question's deadline (None: open until closed)."""

    @property
    def is_open(self) -> bool:
        return self.closed_at is None

    def too_late(self, at: datetime) -> bool:
        """Whether a click at `at` came after the deadline and its grace (`CLICK_GRACE`):
        decided from the post alone, so no read is needed and no loop can delay it."""
        return self.closes_at is not None and at > self.closes_at + CLICK_GRACE


class AnswerStatus(Enum):
    NEW = "new"
    DUPLICATE = "duplicate"
    CLOSED = "closed"


@dataclass(frozen=True)
class PostAnswer:
    """A click on a post, judged by the core: what to store if the post is still open and
    this is the user's first answer to it."""

    post: PostRecord
    """The post as the core knows it; what a click reads of it never changes once posted."""
    user_id: str
    choice: int
    correct: bool
    points: int
    """What it scores if this is the user's first meeting with the question this season
    (`bot.domain.scoring.meeting_points`); the store, which knows, stores 0 otherwise."""
    at: datetime


@dataclass(frozen=True)
class PostAnswerOutcome:
    status: AnswerStatus
    choice: int | None
    """The choice that stands: the new one, or the earlier one for a DUPLICATE."""
    player: Player
    """The person who clicked, as their reply shows them, read in the same transaction."""
    post: PostRecord | None
    """The post as the transaction read it; None if there is no such post (CLOSED)."""
    points: int = 0
    """What a NEW answer scored: 0 when the user had met the question before."""


@dataclass(frozen=True)
class RunRecord:
    id: int
    server_id: str
    user_id: str
    deck_id: str
    season: int
    started_at: datetime
    finished_at: datetime | None = None


@dataclass(frozen=True)
class RunAnswerRecord:
    question_id: str
    choice: int
    correct: bool
    points: int
    answered_at: datetime


@dataclass(frozen=True)
class RunAnswerOutcome:
    status: AnswerStatus
    """NEW, or DUPLICATE when this run already has an answer to the question."""
    answer: RunAnswerRecord


@dataclass(frozen=True)
class Standing:
    user_id: str
    points: int
    reached_at: datetime
    """When the user reached `points` in the period: ties go to whoever got there first."""
    rank: int
    """1 + the number of users with strictly more points (ranks share ties: 1, 1, 3)."""


@dataclass(frozen=True)
class Totals:
    answered: int = 0
    correct: int = 0
    points: int = 0


@dataclass(frozen=True)
class Player:
    """What a private reply to a click shows about the person who clicked: read together,
    since a burst of clicks makes every round trip count."""

    server: ServerSettings
    locale: str | None
    """Their own language setting, if any."""
    totals: Totals
    """In the server's current season."""
    streak: int


@dataclass(frozen=True)
class StandingsQuery:
    server_id: str
    season: int
    since: datetime | None = None
    until: datetime | None = None
    deck_id: str | None = None
    period: str | None = None
    """A period key (`bot.domain.leaderboard.period_key`): when set, the standings come from
    the points kept per period as answers are stored, and `since`/`until` are not used.
    Those are bucketed by the server's time zone when each answer was stored; without a
    key, any window is counted from the answers themselves."""


class SlotStatus(Enum):
    """What became of one (schedule, local date) slot."""

    CLAIMED = "claimed"
    """Won by one scheduler instance, which is posting it now (or died while doing so)."""
    POSTED = "posted"
    FAILED = "failed"
    """The delivery failed; `error` says why. A failed date is not tried again."""
    SKIPPED = "skipped"
    """Noticed only after the catch-up window (the bot was down): not posted."""


@dataclass(frozen=True)
class NewSchedule:
    server_id: str
    channel_id: str
    time: str
    zone: str
    deck_id: str | None
    """None: the server's default deck at each post."""
    days: Days
    created_by: str
    at: datetime


@dataclass(frozen=True)
class EnabledSchedule:
    schedule: Schedule
    last_date: date | None
    """The local date of the schedule's newest slot row (claimed in any status), if any."""
    last_status: SlotStatus | None = None
    """That row's status: CLAIMED for one whose post never finished (the bot stopped, or
    the database dropped out, in between)."""
    last_claimed_at: datetime | None = None


@dataclass(frozen=True)
class SlotRecord:
    schedule_id: int
    local_date: date
    status: SlotStatus
    claimed_at: datetime
    post_id: int | None = None
    error: str | None = None
