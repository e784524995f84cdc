"""The storage ports: what the services need from a database, one Protocol per aggregate.

A service asks for the ports it uses (`Schedules` and `Slots` for the scheduler, say);
`QuizStore` is all of them (the games' port is in `game_port`), which
`bot.storage.sql.SqlStore` (SQLite and PostgreSQL) and `bot.storage.memory.MemoryStore`
implement, held to one contract by tests/contract/storage. Each method
is one transaction; the ones that decide "first click stands" or "first meeting scores" must
be atomic against concurrent callers (an insert that only one caller can win), never a
read-then-write. All datetimes are aware UTC.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol

from bot.domain.errors import QuizError
from bot.domain.health import QuestionTally, Try
from bot.domain.problems import ProblemReport
from bot.domain.records import (
    EnabledSchedule,
    NewPost,
    NewSchedule,
    Player,
    PostAnswer,
    PostAnswerOutcome,
    PostRecord,
    RunAnswerOutcome,
    RunAnswerRecord,
    RunRecord,
    ServerSettings,
    SlotRecord,
    SlotStatus,
    Standing,
    StandingsQuery,
    Totals,
)
from bot.domain.review import Card, Study
from bot.domain.schedule import Schedule
from bot.service.game_port import Games


class StoreUnavailable(QuizError):
    """The database cannot be reached or is locked right now; nothing was written.

    A QuizError, so every adapter already answers it with the polite "try again" reply.
    """

    def __init__(self) -> None:
        super().__init__("try_again")


class QuestionOpen(QuizError):
    """The question is open in a post of this server already (in `channel_id`): two open
    posts of one question would let one's reveal give away the other's answer."""

    def __init__(self, channel_id: str) -> None:
        super().__init__("question_open", channel=channel_id)
        self.channel_id = channel_id


class Servers(Protocol):
    """A server's settings and season, its users' languages, and small key/value state."""

    async def server(self, server_id: str) -> ServerSettings:
        """The server's settings; defaults (not stored) for a server never seen."""
        ...

    async def set_server_locale(self, server_id: str, locale: str | None) -> None: ...

    async def set_server_timezone(self, server_id: str, timezone: str) -> None: ...

    async def server_default_deck(self, server_id: str) -> str | None:
        """The deck id an admin made the server's default (`deck default`), loaded or not."""
        ...

    async def set_server_default_deck(self, server_id: str, deck_id: str | None) -> None: ...

    async def new_season(
        self, server_id: str, at: datetime, after: int, *, deadline: float | None = None
    ) -> int | None:
        """Starts season `after` + 1 if season `after` is the current one, and returns it;
        None if another reset got there first (only one of two racing confirms wins).
        Old answers keep their season."""
        ...

    async def user_locale(self, server_id: str, user_id: str) -> str | None: ...

    async def set_user_locale(self, server_id: str, user_id: str, locale: str | None) -> None: ...

    async def set_hidden(self, server_id: str, user_id: str, hidden: bool) -> None:
        """Hides the user from others on the server's leaderboards (or shows them again)."""
        ...

    async def hidden_among(self, server_id: str, user_ids: Sequence[str]) -> set[str]:
        """Those of `user_ids` who hide from the server's leaderboards."""
        ...

    async def forget_user(self, server_id: str, user_id: str) -> int:
        """Deletes everything kept about the user in the server, in every season: answers,
        runs, points (leaderboards and the counts that rank them), first meetings, review
        answers, problem reports and settings. The posts they made stay (channel content),
        as do others' answers. The number of answers deleted."""
        ...

    async def first_seen(self, key: str, at: datetime, expires_at: datetime) -> bool:
        """Records `key` (a Slack event id or request signature) as seen until `expires_at`;
        True for the one caller, in any process, that recorded it (or took over an expired
        record), False for every other while it lasts."""
        ...

    async def get_meta(self, key: str) -> str | None:
        """Process state kept across restarts (e.g. the hash of the last Discord command
        sync)."""
        ...

    async def set_meta(self, key: str, value: str) -> None: ...

    async def writable(self) -> None:
        """Returns when the database takes writes now; StoreUnavailable if it cannot
        (unreachable, read-only, locked by another process): what `/healthz` asks."""
        ...


class PostsAndAnswers(Protocol):
    """Questions posted in channels and the clicks on them: the first click stands."""

    async def create_post(self, post: NewPost) -> PostRecord:
        """Stores a new open post; QuestionOpen if its question is open in the server."""
        ...

    async def open_questions(self, server_id: str) -> dict[tuple[str, str], str]:
        """(deck id, question id) of every open post of the server, to its channel."""
        ...

    async def meet(
        self,
        server_id: str,
        season: int,
        user_id: str,
        deck_id: str,
        question_id: str,
        at: datetime,
    ) -> None:
        """Records that the user was shown the question's answer (closed its post): a later
        answer to it this season is practice."""
        ...

    async def post(self, post_id: int) -> PostRecord | None: ...

    async def open_post_in_channel(self, server_id: str, channel_id: str) -> PostRecord | None:
        """The newest open post in a channel."""
        ...

    async def set_post_message(self, post_id: int, message_ref: str) -> None: ...

    async def close_post(self, post_id: int, at: datetime) -> bool:
        """Closes an open post; False if it was already closed (only one closer wins). A
        game's post has its held clicks stored first, in the same transaction, as
        `answer_post` stores any post's (see there)."""
        ...

    async def discard_post(self, post_id: int, at: datetime) -> None:
        """Closes a post that never reached its channel (or may have: a game's question
        sent but not recorded) and detaches it from its schedule, so it counts neither in
        streaks nor in the question cycle. Held clicks are stored as at a close."""
        ...

    async def answer_post(
        self, answer: PostAnswer, *, deadline: float | None = None
    ) -> PostAnswerOutcome:
        """Stores the user's first answer to an open post, with the points the service gave
        it; a later one changes nothing. One transaction, committed when this returns: the
        click's whole write, and what its reply shows about the user in the post's server.
        `deadline` (`time.monotonic()`): not begun by then, nothing is stored and
        StoreUnavailable is raised.

        A click on a game's post (`post.game_id`) is held: stored at once (first click
        stands, refused once closed), but nothing of it (right or wrong, points, first
        meeting, card, mastery) counts anywhere until `close_post` stores it as this would
        have, at the time it was made: an open game question's answer cannot be learnt
        from any read before its reveal. Its outcome's `points` is 0."""
        ...

    async def post_answer_of(self, post_id: int, user_id: str) -> int | None:
        """The choice that stands for this user on this post, if they answered (a held
        click too)."""
        ...

    async def tally(self, post_id: int) -> dict[int, int]:
        """Answers per original choice index; only choices someone picked appear."""
        ...

    async def answer_count(self, post_id: int) -> int:
        """Clicks stored on the post, held ones included."""
        ...


class Runs(Protocol):
    """A user's private pass through a deck: one unfinished run per deck."""

    async def active_run(self, server_id: str, user_id: str, deck_id: str) -> RunRecord | None: ...

    async def start_run(
        self, server_id: str, user_id: str, deck_id: str, season: int, at: datetime
    ) -> RunRecord:
        """A new run, or the unfinished one if there is one (one active run per deck)."""
        ...

    async def run(self, run_id: int) -> RunRecord | None: ...

    async def run_answers(self, run_id: int) -> Sequence[RunAnswerRecord]:
        """The run's answers, oldest first."""
        ...

    async def record_run_answer(
        self,
        run: RunRecord,
        question_id: str,
        choice: int,
        correct: bool,
        at: datetime,
        *,
        deadline: float | None = None,
    ) -> RunAnswerOutcome:
        """Stores a run answer; it scores (`bot.domain.scoring.meeting_points`) only if correct
        and the user's first meeting with this question (in any run of this server, season
        and deck)."""
        ...

    async def finish_run(self, run_id: int, at: datetime) -> None: ...


class Standings(Protocol):
    """What users have scored: leaderboards, and one user's totals and streak."""

    async def standings(self, query: StandingsQuery, limit: int) -> Sequence[Standing]:
        """Users with points > 0, by points desc then reached_at asc, at most `limit`."""
        ...

    async def standing_of(self, query: StandingsQuery, user_id: str) -> Standing | None:
        """One user's standing; None if they have no points in the period."""
        ...

    async def totals(self, server_id: str, season: int, user_id: str) -> Totals:
        """Answers to posts and runs in the season: answered, correct, points."""
        ...

    async def streak(self, server_id: str, user_id: str) -> int:
        """Consecutive scheduled posts of this server the user answered, newest first
        (`bot.domain.totals.streak_of`)."""
        ...

    async def answer_log(self, server_id: str | None, deck_id: str | None) -> Sequence[Try]:
        """Every answer (posts and runs, every season), of one server and one deck or all,
        for the question-health report."""
        ...

    async def question_tallies(
        self, server_id: str | None, deck_id: str | None
    ) -> Sequence[QuestionTally]:
        """`bot.domain.health.tallies` of the answers `answer_log` would give: counted in
        the store, a few numbers per question, for the report in chat."""
        ...

    async def player(self, server_id: str, user_id: str) -> Player:
        """The server's settings, the user's language, totals and streak, in one read."""
        ...


class Schedules(Protocol):
    """Daily questions: one schedule per channel, kept (disabled) when turned off."""

    async def put_schedule(self, new: NewSchedule) -> Schedule:
        """Creates the channel's schedule, or replaces the one it has (keeping its id, so
        its question cycle goes on), enabled, with `updated_at` = `new.at`."""
        ...

    async def schedule(self, schedule_id: int) -> Schedule | None: ...

    async def schedule_in_channel(self, server_id: str, channel_id: str) -> Schedule | None:
        """The channel's schedule, enabled or not."""
        ...

    async def server_schedules(self, server_id: str) -> Sequence[Schedule]:
        """The server's enabled schedules, by channel id."""
        ...

    async def disable_schedule(
        self, server_id: str, channel_id: str, at: datetime
    ) -> Schedule | None:
        """Turns the channel's schedule off; None if it had no enabled one."""
        ...

    async def enabled_schedules(self) -> Sequence[EnabledSchedule]:
        """Every enabled schedule of every server, with its newest slot date (one query:
        the scheduler asks this every tick)."""
        ...


class Slots(Protocol):
    """What each schedule did on each local date, and the posts it made."""

    async def claim_slot(
        self,
        schedule_id: int,
        local_date: date,
        at: datetime,
        status: SlotStatus = SlotStatus.CLAIMED,
    ) -> bool:
        """Inserts the (schedule, local date) row; True for the one caller that did, False
        for everyone else, whenever they try. Only the winner posts."""
        ...

    async def reclaim_slot(
        self, schedule_id: int, local_date: date, claimed_at: datetime, at: datetime
    ) -> bool:
        """Takes over a slot still CLAIMED since `claimed_at` (its post never finished):
        True for the one caller whose compare-and-set on `claimed_at` lands."""
        ...

    async def finish_slot(
        self,
        schedule_id: int,
        local_date: date,
        status: SlotStatus,
        *,
        post_id: int | None = None,
        error: str | None = None,
    ) -> None: ...

    async def recent_slots(self, schedule_id: int, limit: int) -> Sequence[SlotRecord]:
        """The schedule's newest slot rows, newest date first."""
        ...

    async def scheduled_questions(self, schedule_id: int, deck_id: str) -> Sequence[str]:
        """Question ids of the schedule's posts from this deck, oldest first."""
        ...

    async def open_scheduled_posts(
        self, schedule_id: int | None = None, opened_before: datetime | None = None
    ) -> Sequence[PostRecord]:
        """Open posts made by a schedule (this one, or any), oldest first."""
        ...


class Reviews(Protocol):
    """Review and mastery (`bot.domain.review`): a person's cards and the server's mastery
    board, kept as answers (posts, runs, review) are stored, so neither replays history."""

    async def studies(self, server_id: str, user_id: str | None = None) -> Sequence[Study]:
        """Every answer (posts, runs, review; every season) of the user in the server, or
        of everyone in it. For exports and checks: it grows with the server's history."""
        ...

    async def cards(self, server_id: str, user_id: str) -> Sequence[Card]:
        """The person's cards: one per question they answered in the server (any season),
        as `bot.domain.review.cards_of` works them out from their answers, kept as the
        answers were stored (a card's due day in the server's zone at the time)."""
        ...

    async def mastery_board(self, server_id: str, limit: int) -> Sequence[Standing]:
        """The top `limit` people of the server by questions mastered (`points`: the count;
        `reached_at`: when it last changed), over every season: ties share a rank and go by
        who reached their count first. Nobody with 0."""
        ...

    async def mastery_standing(self, server_id: str, user_id: str) -> Standing | None:
        """The person's row of the mastery board, wherever they stand; None with 0."""
        ...

    async def record_review(
        self,
        server_id: str,
        user_id: str,
        deck_id: str,
        question_id: str,
        number: int,
        choice: int,
        correct: bool,
        at: datetime,
        *,
        deadline: float | None = None,
    ) -> bool:
        """Stores review answer `number` to the question; False (nothing changed) if that
        number is stored already: one shown review question counts once."""
        ...


class Problems(Protocol):
    """Players' reports about questions."""

    async def report_problem(self, report: ProblemReport) -> int:
        """Stores a report; its id. Past the limits (`bot.domain.problems.refusal` of the
        person's reports, read in the same transaction, so reports sent at once cannot all
        pass) it stores nothing and raises QuizError `report_open` or `report_limit`."""
        ...

    async def problem_reports(
        self, server_id: str | None = None, deck_id: str | None = None
    ) -> Sequence[ProblemReport]:
        """Reports of one server and one deck, or all, oldest first."""
        ...

    async def unsent_problem_reports(self) -> Sequence[ProblemReport]:
        """Reports not yet sent to their server's admins, oldest first."""
        ...

    async def problem_reports_by(
        self, server_id: str, user_id: str, since: datetime
    ) -> Sequence[ProblemReport]:
        """One person's reports in a server made at or after `since`, or not yet sent to its
        admins (what the limits on reporting look at)."""
        ...

    async def mark_problems_sent(self, ids: Sequence[int], at: datetime) -> None: ...


class QuizStore(
    Servers,
    PostsAndAnswers,
    Runs,
    Standings,
    Reviews,
    Problems,
    Schedules,
    Slots,
    Games,
    Protocol,
):
    """Every port in one store, as the composition root opens it."""

    async def close(self) -> None:
        """Waits for writes under way, then lets go of the database."""
        ...
