"""The tables behind `SqlStore`.

The migrations in `migrations/versions/` create the schema; this module describes the same
schema for queries (and for `alembic revision --autogenerate`). A test checks they agree.

Every answer, to a post or in a run, is one row of `answers`, carrying the server, season,
deck and user it counts for, and the points it scored, so a leaderboard is one GROUP BY over
one index. `first_meetings` records which questions a user has met (answered, in a post or
a run, or closed the post of), per server and season: claiming a row there is what makes only
the first meeting score.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    literal_column,
    true,
)

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)
"""Named constraints, so later SQLite batch migrations can find and alter them."""


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in and out, on both databases.

    SQLite has no zone-aware type: SQLAlchemy writes the wall-clock digits, drops the offset
    and reads back naive values. So values are converted to UTC before binding (which also
    keeps SQLite's text comparisons in time order) and naive results are marked UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: the store takes aware datetimes only")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


RowId = BigInteger().with_variant(Integer(), "sqlite")
"""BIGSERIAL on PostgreSQL; INTEGER PRIMARY KEY (the rowid) on SQLite."""

servers = Table(
    "servers",
    metadata,
    Column("server_id", String, primary_key=True),
    Column("locale", String),
    Column("timezone", String, nullable=False, server_default="UTC"),
    Column("season", Integer, nullable=False, server_default="1"),
    Column("season_started_at", UtcDateTime),
    Column("default_deck", String),
)
"""`default_deck`: the deck an admin made the server's default (`deck default`), loaded or not."""

user_settings = Table(
    "user_settings",
    metadata,
    Column("server_id", String, primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("locale", String),
    Column("hidden", Boolean, nullable=False, server_default=false()),
)

posts = Table(
    "posts",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("server_id", String, nullable=False),
    Column("channel_id", String, nullable=False),
    Column("deck_id", String, nullable=False),
    Column("question_id", String, nullable=False),
    Column("choice_order", String, nullable=False),
    Column("locale", String, nullable=False),
    Column("poster_id", String, nullable=False),
    Column("season", Integer, nullable=False),
    Column("schedule_id", Integer),
    Column("opened_at", UtcDateTime, nullable=False),
    Column("closed_at", UtcDateTime),
    Column("message_ref", String),
    Column("game_id", RowId),
    Column("closes_at", UtcDateTime),
)
Index(
    "ix_posts_open_in_channel",
    posts.c.server_id,
    posts.c.channel_id,
    posts.c.opened_at,
    sqlite_where=posts.c.closed_at.is_(None),
    postgresql_where=posts.c.closed_at.is_(None),
)

Index(
    "uq_posts_open_question",
    posts.c.server_id,
    posts.c.deck_id,
    posts.c.question_id,
    unique=True,
    sqlite_where=posts.c.closed_at.is_(None),
    postgresql_where=posts.c.closed_at.is_(None),
)
"""A question is open in at most one post of a server: one's reveal would give away the
other's answer."""

Index(
    "ix_posts_scheduled",
    posts.c.server_id,
    posts.c.opened_at,
    posts.c.id,
    sqlite_where=posts.c.schedule_id.is_not(None),
    postgresql_where=posts.c.schedule_id.is_not(None),
)
"""Streaks walk a server's scheduled posts, newest first."""
Index(
    "ix_posts_game",
    posts.c.game_id,
    posts.c.id,
    sqlite_where=posts.c.game_id.is_not(None),
    postgresql_where=posts.c.game_id.is_not(None),
)
"""A game's questions, in the order they were asked."""

runs = Table(
    "runs",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("server_id", String, nullable=False),
    Column("user_id", String, nullable=False),
    Column("deck_id", String, nullable=False),
    Column("season", Integer, nullable=False),
    Column("started_at", UtcDateTime, nullable=False),
    Column("finished_at", UtcDateTime),
)
RUN_ACTIVE_KEY = (runs.c.server_id, runs.c.user_id, runs.c.deck_id)
RUN_ACTIVE_WHERE = runs.c.finished_at.is_(None)
Index(
    "uq_runs_active",
    *RUN_ACTIVE_KEY,
    unique=True,
    sqlite_where=RUN_ACTIVE_WHERE,
    postgresql_where=RUN_ACTIVE_WHERE,
)

answers = Table(
    "answers",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("server_id", String, nullable=False),
    Column("season", Integer, nullable=False),
    Column("user_id", String, nullable=False),
    Column("deck_id", String, nullable=False),
    Column("question_id", String, nullable=False),
    Column("post_id", RowId, ForeignKey("posts.id")),
    Column("run_id", RowId, ForeignKey("runs.id")),
    Column("choice", Integer, nullable=False),
    Column("correct", Boolean, nullable=False),
    Column("points", Integer, nullable=False),
    Column("answered_at", UtcDateTime, nullable=False),
    # NULLs never collide in a unique key, so each applies only to its kind of answer.
    UniqueConstraint("post_id", "user_id"),
    UniqueConstraint("run_id", "question_id"),
    CheckConstraint("(post_id IS NULL) <> (run_id IS NULL)", name="one_source"),
    CheckConstraint("points >= 0", name="points"),
)
SCORING = answers.c.points > literal_column("0")
"""Spelled as a literal, not a bound parameter: only then can planners match the partial
index below (SQLite never does; PostgreSQL loses it in generic prepared plans)."""
Index(
    "ix_answers_scoring",
    answers.c.server_id,
    answers.c.season,
    answers.c.answered_at,
    answers.c.user_id,
    answers.c.points,
    answers.c.deck_id,
    sqlite_where=SCORING,
    postgresql_where=SCORING,
)
"""Leaderboards of a week or month: a range of one server's scoring rows, covering."""
Index(
    "ix_answers_user",
    answers.c.server_id,
    answers.c.season,
    answers.c.user_id,
    answers.c.points,
    answers.c.answered_at,
    answers.c.deck_id,
    answers.c.correct,
)
"""All-time leaderboards (grouped in index order, no sort) and a user's totals, covering."""

first_meetings = Table(
    "first_meetings",
    metadata,
    Column("server_id", String, primary_key=True),
    Column("season", Integer, primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("deck_id", String, primary_key=True),
    Column("question_id", String, primary_key=True),
    Column("met_at", UtcDateTime, nullable=False),
)

review_answers = Table(
    "review_answers",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("server_id", String, nullable=False),
    Column("user_id", String, nullable=False),
    Column("deck_id", String, nullable=False),
    Column("question_id", String, nullable=False),
    Column("number", Integer, nullable=False),
    Column("choice", Integer, nullable=False),
    Column("correct", Boolean, nullable=False),
    Column("answered_at", UtcDateTime, nullable=False),
    # The review question is shown with the number its answer will have: a second click on
    # it (or a retried request) collides here and is stored once.
    UniqueConstraint("server_id", "user_id", "deck_id", "question_id", "number"),
)
"""Answers given in `/quiz review` (`bot.domain.review`): never scored, never in the
leaderboards' tables; the key above also serves a person's reads."""

problem_reports = Table(
    "problem_reports",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("server_id", String, nullable=False),
    Column("user_id", String, nullable=False),
    Column("deck_id", String, nullable=False),
    Column("question_id", String, nullable=False),
    Column("deck_version", String, nullable=False),
    Column("reason", String, nullable=False),
    Column("text", Text, nullable=False),
    Column("reported_at", UtcDateTime, nullable=False),
    Column("sent_at", UtcDateTime),
)
"""What players reported about a question ("Report a problem"): listed in `quizbot report`,
sent to the server's admins in a daily summary (`sent_at` once it went)."""
Index("ix_problem_reports_unsent", problem_reports.c.server_id, problem_reports.c.sent_at)
Index(
    "ix_problem_reports_person",
    problem_reports.c.server_id,
    problem_reports.c.user_id,
    problem_reports.c.reported_at,
)
"""A person's recent reports, read before each new one (the limits on reporting)."""
REPORT_OPEN = problem_reports.c.sent_at.is_(None)
Index(
    "uq_problem_reports_open",
    problem_reports.c.server_id,
    problem_reports.c.user_id,
    problem_reports.c.deck_id,
    problem_reports.c.question_id,
    unique=True,
    sqlite_where=REPORT_OPEN,
    postgresql_where=REPORT_OPEN,
)
"""One open (unsent) report per person and question: a second, sent at the same moment
as the first, loses this key."""

seen_requests = Table(
    "seen_requests",
    metadata,
    Column("key", String, primary_key=True),
    Column("expires_at", UtcDateTime, nullable=False),
)
"""Slack event ids and request signatures already handled, shared by every process on the
database (`[slack] shared_seen`): a retry or replay reaching another process is not handled
twice. Expired rows are taken over, and swept now and then."""

meta = Table(
    "meta",
    metadata,
    Column("key", String, primary_key=True),
    Column("value", Text, nullable=False),
)

schedules = Table(
    "schedules",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("server_id", String, nullable=False),
    Column("channel_id", String, nullable=False),
    Column("time", String, nullable=False),
    Column("zone", String, nullable=False),
    Column("deck_id", String, nullable=False),
    Column("days", String, nullable=False),
    Column("created_by", String, nullable=False),
    Column("enabled", Boolean, nullable=False, server_default=true()),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    UniqueConstraint("server_id", "channel_id"),
    CheckConstraint("days IN ('daily', 'weekdays')", name="days"),
)
"""One row per channel ever scheduled; `off` clears `enabled`, a new `set` reuses the row.
`deck_id` "" (`FOLLOWS_DEFAULT`): the server's default deck at each post (set without a deck)."""

FOLLOWS_DEFAULT = ""

schedule_slots = Table(
    "schedule_slots",
    metadata,
    Column("schedule_id", RowId, ForeignKey("schedules.id"), primary_key=True),
    Column("local_date", Date, primary_key=True),
    Column("status", String, nullable=False),
    Column("post_id", RowId, ForeignKey("posts.id")),
    Column("error", Text),
    Column("claimed_at", UtcDateTime, nullable=False),
    CheckConstraint("status IN ('claimed', 'posted', 'failed', 'skipped')", name="status"),
)

Index(
    "ix_posts_by_schedule",
    posts.c.schedule_id,
    posts.c.opened_at,
    sqlite_where=posts.c.schedule_id.is_not(None),
    postgresql_where=posts.c.schedule_id.is_not(None),
)
"""A schedule's question history and its open post."""

ALL_DECKS = ""
"""The `deck_key` of points counted over every deck."""

standings = Table(
    "standings",
    metadata,
    Column("server_id", String, primary_key=True),
    Column("season", Integer, primary_key=True),
    Column("period", String, primary_key=True),
    Column("deck_key", String, primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("points", Integer, nullable=False),
    Column("reached_at", UtcDateTime, nullable=False),
)
"""Points per (server, season, period, deck or all decks, user), kept in step with `answers`
in the transaction that stores each scoring answer: the leaderboard reads ten rows of an
index instead of grouping years of answers. A period is a key from
`bot.domain.leaderboard.period_key` ("w2026-01-05", "m2026-01", "all"), fixed in the server's
time zone when the answer is stored. Only users with points > 0 have rows."""
Index(
    "ix_standings_rank",
    standings.c.server_id,
    standings.c.season,
    standings.c.period,
    standings.c.deck_key,
    standings.c.points.desc(),
    standings.c.reached_at,
    standings.c.user_id,
)
"""The top of a period in leaderboard order, and how many users have more points than one."""

score_counts = Table(
    "score_counts",
    metadata,
    Column("server_id", String, primary_key=True),
    Column("season", Integer, primary_key=True),
    Column("period", String, primary_key=True),
    Column("deck_key", String, primary_key=True),
    Column("points", Integer, primary_key=True),
    Column("users", Integer, nullable=False),
)
"""How many users of one leaderboard (server, season, period, deck or all) hold each points
total, kept in step with `standings`: a caller's rank is 1 + the users above their total,
summed over a few hundred totals instead of counted over every user. A total nobody holds
any more stays as a row of 0."""

cards = Table(
    "cards",
    metadata,
    Column("server_id", String, primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("deck_id", String, primary_key=True),
    Column("question_id", String, primary_key=True),
    Column("missed", Boolean, nullable=False),
    Column("box", Integer, nullable=False),
    Column("due", Date),
    Column("reviews", Integer, nullable=False),
    Column("got_right", Boolean, nullable=False),
    Column("mastered", Boolean, nullable=False),
)
"""One person's review card per question they answered (`bot.domain.review.Card`), kept in
step with `answers` and `review_answers` in the transaction that stores each answer: review
and mastery read a person's cards (one row per question) instead of replaying their answers.
`due` is fixed in the server's zone when the answer is stored, as the points periods are."""

mastery = Table(
    "mastery",
    metadata,
    Column("server_id", String, primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("mastered", Integer, nullable=False),
    Column("reached_at", UtcDateTime, nullable=False),
)
"""Questions mastered per person of a server (over every season), kept in step with `cards`:
the mastery board reads ten rows of an index. `reached_at`: when the count last changed."""
Index(
    "ix_mastery_rank",
    mastery.c.server_id,
    mastery.c.mastered.desc(),
    mastery.c.reached_at,
    mastery.c.user_id,
)
"""The top of a server's mastery board in board order."""

mastery_counts = Table(
    "mastery_counts",
    metadata,
    Column("server_id", String, primary_key=True),
    Column("mastered", Integer, primary_key=True),
    Column("users", Integer, nullable=False),
)
"""How many people of a server have mastered each number of questions, kept in step with
`mastery` (as `score_counts` with `standings`): a caller's rank sums the counts above theirs."""
