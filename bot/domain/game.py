"""The live game: a round of questions played together in one channel, each with a timer,
revealed one by one, with standings after each and a podium at the end.

A game is a row the game loop (`bot.service.games`) moves on when its `due_at` comes: it
announces the game, posts a question (an ordinary post of the game, so its clicks take the
same path as any post's), reveals it at its deadline, and ends with the results. Every step
is claimed first (a compare-and-set on `step`), so of several processes one takes it, and a
step whose process died is taken over once its `lease_until` has passed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum

from bot.decks.model import Localized
from bot.domain.errors import QuizError
from bot.domain.records import PostRecord

QUESTIONS = 10
"""Questions in a game unless the starter says otherwise."""
MOST_QUESTIONS = 50
SECONDS = 20
"""Seconds per question unless the starter says otherwise."""
FEWEST_SECONDS = 10
MOST_SECONDS = 120
START_DELAY = timedelta(seconds=5)
"""From the announcement to the first question (the design's "within 10 seconds")."""
PAUSE = timedelta(seconds=5)
"""From a reveal to the next question: time to read the explanation and the standings."""
LEASE = timedelta(seconds=60)
"""How long a claimed step may take before another process takes it over: far longer than
a step's few platform calls (each gives up after 10 s, with a few retries) or a wait
between two tries of a failing step (`RETRY_MOST`); each try claims it again."""
RETRY_FIRST = 1.0
"""Seconds before a failing step is tried again the first time; it doubles each time..."""
RETRY_MOST = 8.0
"""...up to this."""
GIVE_UP = timedelta(minutes=2)
"""How long a step may keep failing (the platform erring, say) before the game ends with
its results so far and its starter is told why. A database that is unavailable never ends a
game: its step waits for it."""
STANDINGS_SHOWN = 5
PODIUM = 3


class Phase(Enum):
    STARTING = "starting"
    """Not yet announced."""
    OPEN = "open"
    """A question is open until `due_at`."""
    BETWEEN = "between"
    """Between questions (or before the first): the next one is posted at `due_at`."""


class GameState(Enum):
    RUNNING = "running"
    FINISHED = "finished"
    STOPPED = "stopped"


@dataclass(frozen=True)
class NewGame:
    server_id: str
    channel_id: str
    deck_id: str
    starter_id: str
    locale: str
    season: int
    rounds: int
    seconds: int
    started_at: datetime


@dataclass(frozen=True)
class GameRecord:
    id: int
    server_id: str
    channel_id: str
    deck_id: str
    starter_id: str
    locale: str
    season: int
    rounds: int
    """Questions the game asks (fewer if the deck runs out of questions to ask)."""
    seconds: int
    state: GameState
    phase: Phase
    due_at: datetime
    step: int
    """Bumped by every claim and every move: the compare-and-set that makes one process act."""
    started_at: datetime
    lease_until: datetime | None = None
    stop_by: str | None = None
    """Who asked to stop it (`/quiz game stop`), until the loop has."""
    ended_at: datetime | None = None


@dataclass(frozen=True)
class GameStep:
    """What a game's question message shows besides the question: n of N and its deadline."""

    game_id: int
    number: int
    of: int
    closes_at: datetime


@dataclass(frozen=True)
class GameScore:
    user_id: str
    points: int
    """Right answers in this game: one game point each, no speed bonus."""


@dataclass(frozen=True)
class Placing:
    place: int
    user_id: str
    points: int


def placings(scores: Iterable[GameScore]) -> list[Placing]:
    """Everyone who played, best first; equal points share a place (1, 1, 3)."""
    ordered = sorted(scores, key=lambda s: (-s.points, s.user_id))
    out: list[Placing] = []
    for i, score in enumerate(ordered):
        same = out and out[-1].points == score.points
        out.append(Placing(out[-1].place if same else i + 1, score.user_id, score.points))
    return out


def podium(board: Iterable[Placing]) -> list[Placing]:
    """The top three places; nobody with no points stands on it."""
    return [p for p in board if p.place <= PODIUM and p.points > 0]


class NewsKind(Enum):
    STARTED = "started"
    STANDINGS = "standings"
    RESULTS = "results"


class EndCause(Enum):
    """Why a game ended before its last question, when nobody stopped it."""

    CANNOT_POST = "cannot_post"
    """The platform refused the channel (the bot is not in it, it is gone, ...)."""
    DECK_GONE = "deck_gone"
    """Its deck is no longer loaded (removed or renamed, and the decks reloaded)."""
    FAILING = "failing"
    """A step kept failing for `GIVE_UP`."""


@dataclass(frozen=True)
class GameNews:
    """A public message of the game's: its announcement, the standings after a question, or
    the results (the podium)."""

    kind: NewsKind
    game: GameRecord
    deck_title: Localized
    board: list[Placing]
    asked: int
    """Questions revealed so far."""
    stopped: bool = False
    cause: EndCause | None = None
    """Why it ended early, when nobody stopped it."""
    reason: str | None = None
    """The platform's or the loop's own words for `cause` (kept in English, like the
    platforms' codes), for its starter."""

    @property
    def players(self) -> int:
        return len(self.board)


@dataclass(frozen=True)
class AskedSoFar:
    """A game's questions as its loop reads them at the start of a step."""

    shown: list[PostRecord]
    """Those posted and recorded (a stored message), first asked first: its "n of N"."""
    half_asked: list[PostRecord]
    """Open, with no stored message: sent (or maybe sent) by a step that failed before
    recording it. Withdrawn before anything else: never open without being visible."""

    @classmethod
    def of(cls, posts: Iterable[PostRecord]) -> AskedSoFar:
        ordered = sorted(posts, key=lambda p: p.id)
        return cls(
            [p for p in ordered if p.message_ref],
            [p for p in ordered if not p.message_ref and p.is_open],
        )

    @property
    def open(self) -> list[PostRecord]:
        """Shown and still open: the question to reveal (or, in BETWEEN, one a step posted
        and recorded but died before moving the game on)."""
        return [p for p in self.shown if p.is_open]


def closes_at(post: PostRecord, seconds: int) -> datetime:
    """A game question's deadline: stored with it, else (asked before deadlines were
    stored) when it opened plus the game's seconds."""
    return post.closes_at or post.opened_at + timedelta(seconds=seconds)


def game_settings(questions: object, seconds: object) -> tuple[int, int]:
    """The starter's numbers (typed words or ints), checked; the defaults for None."""
    n = _number(questions, QUESTIONS, "game_questions")
    s = _number(seconds, SECONDS, "game_seconds")
    if not 1 <= n <= MOST_QUESTIONS:
        raise QuizError("game_questions", most=MOST_QUESTIONS)
    if not FEWEST_SECONDS <= s <= MOST_SECONDS:
        raise QuizError("game_seconds", fewest=FEWEST_SECONDS, most=MOST_SECONDS)
    return n, s


def _number(value: object, default: int, key: str) -> int:
    if value is None or value == "":
        return default
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise QuizError(key, most=MOST_QUESTIONS, fewest=FEWEST_SECONDS)
