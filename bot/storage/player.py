"""What a click reads: the post it answers, read FOR SHARE, with what its private reply
shows about the person who clicked (the server's settings, their language, totals and
streak), in one statement (`POST_CLICK`); `read_player` reads the latter alone.

The statements are built once: building one costs more than running it, and a statement
object that is reused keeps its compiled-cache key.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    FromClause,
    Row,
    Select,
    Subquery,
    bindparam,
    case,
    func,
    or_,
    select,
    true,
    tuple_,
)
from sqlalchemy.engine import Connection

from bot.domain.records import Player, ServerSettings, Totals
from bot.domain.totals import after_answer as answered
from bot.storage.tables import answers, posts, servers, user_settings

AnyRow = Row[*tuple[Any, ...]]

SERVER = select(servers).where(servers.c.server_id == bindparam("server_id"))
USER_LOCALE = select(user_settings.c.locale).where(
    user_settings.c.server_id == bindparam("server_id"),
    user_settings.c.user_id == bindparam("user_id"),
)


def _totals(season: ColumnElement[int]) -> Select[Any]:
    """A user's answered, correct and points in a season of a server: one covering scan."""
    return select(
        func.count().label("answered"),
        func.coalesce(func.sum(case((answers.c.correct, 1), else_=0)), 0).label("correct"),
        func.coalesce(func.sum(answers.c.points), 0).label("points"),
    ).where(
        answers.c.server_id == bindparam("server_id"),
        answers.c.season == season,
        answers.c.user_id == bindparam("user_id"),
    )


_TOTALS = _totals(bindparam("season"))
POST_CHOICE = select(answers.c.choice).where(
    answers.c.post_id == bindparam("post_id"), answers.c.user_id == bindparam("user_id")
)


def _streak_stmt() -> Select[Any]:
    """Answered scheduled posts newer than the newest one the user missed (the newest post,
    while open, cannot be missed yet). The missed post is found walking the scheduled-posts
    index newest first, stopping at the first miss, and the count walks only the posts after
    it: the cost is the streak's length, not the years of daily posts before it. Every table
    is aliased, so no subquery is correlated by accident."""
    user: BindParameter[str] = bindparam("user_id")
    server: BindParameter[str] = bindparam("server_id")

    def scheduled(p: FromClause) -> tuple[ColumnElement[bool], ...]:
        return p.c.server_id == server, p.c.schedule_id.is_not(None)

    def newest_first(p: FromClause) -> tuple[ColumnElement[Any], ...]:
        return p.c.opened_at.desc(), p.c.id.desc()

    top = posts.alias("newest_post")
    newest = select(top.c.id).where(*scheduled(top)).order_by(*newest_first(top)).limit(1)
    seen = posts.alias("seen")
    theirs_seen = answers.alias("answer_seen")
    answered = select(theirs_seen.c.id).where(
        theirs_seen.c.post_id == seen.c.id, theirs_seen.c.user_id == user
    )
    missed = (
        select(seen.c.opened_at, seen.c.id)
        .where(
            *scheduled(seen),
            ~answered.exists(),
            ~((seen.c.id == newest.scalar_subquery()) & seen.c.closed_at.is_(None)),
        )
        .order_by(*newest_first(seen))
        .limit(1)
        .subquery("missed")
    )
    missed_at = select(missed.c.opened_at).scalar_subquery()
    missed_id = select(missed.c.id).scalar_subquery()
    kept = posts.alias("kept")
    theirs = answers.alias("theirs")
    return (
        select(func.count())
        .select_from(
            kept.join(theirs, (theirs.c.post_id == kept.c.id) & (theirs.c.user_id == user))
        )
        .where(
            *scheduled(kept),
            or_(
                missed_at.is_(None),
                tuple_(kept.c.opened_at, kept.c.id) > tuple_(missed_at, missed_id),
            ),
        )
    )


_STREAK = _streak_stmt()


def server_settings(server_id: str, row: AnyRow | None) -> ServerSettings:
    if row is None:
        return ServerSettings(server_id=server_id)
    return ServerSettings(
        server_id=row.server_id, locale=row.locale, timezone=row.timezone, season=row.season
    )


def _of_server(column: ColumnElement[Any]) -> ColumnElement[Any]:
    return select(column).where(servers.c.server_id == bindparam("server_id")).scalar_subquery()


def player_columns(scalar: bool = False) -> list[ColumnElement[Any]]:
    """The reply's facts as columns: the server's settings (its defaults when it has no row
    yet), the user's language, their totals in the season and their streak. The totals are
    three aggregates of one scan, read from the `totals` subquery (`MINE`, which the
    statement must join), or with `scalar` three subqueries of their own (for a statement
    that reads them per row of another table: SQLite has no lateral join)."""
    if scalar:
        season = func.coalesce(_of_server(servers.c.season), 1)
        by_season = _totals(season)
        totals: list[ColumnElement[Any]] = [
            by_season.with_only_columns(c).scalar_subquery().label(c.name)
            for c in by_season.selected_columns
        ]
    else:
        totals = [MINE.c.answered, MINE.c.correct, MINE.c.points]
    return [
        _of_server(servers.c.locale).label("server_locale"),
        func.coalesce(_of_server(servers.c.timezone), "UTC").label("timezone"),
        func.coalesce(_of_server(servers.c.season), 1).label("server_season"),
        USER_LOCALE.scalar_subquery().label("user_locale"),
        *totals,
        _STREAK.scalar_subquery().label("streak"),
    ]


def _totals_subquery() -> Subquery:
    """`_totals` in the server's current season (1 for a server with no row yet)."""
    return _totals(func.coalesce(_of_server(servers.c.season), 1)).subquery("totals")


MINE = _totals_subquery()
_PLAYER = select(*player_columns()).select_from(MINE)
_NEWEST = posts.alias("newest_scheduled")
NEWEST_SCHEDULED = (
    select(_NEWEST.c.id)
    .where(_NEWEST.c.server_id == posts.c.server_id, _NEWEST.c.schedule_id.is_not(None))
    .order_by(_NEWEST.c.opened_at.desc(), _NEWEST.c.id.desc())
    .limit(1)
    .scalar_subquery()
    .label("newest_scheduled")
)
"""The newest daily post of the server of the `posts` row read."""
POST_CLICK = (
    select(posts, *player_columns(), NEWEST_SCHEDULED)
    .select_from(posts.join(MINE, true()))
    .where(posts.c.id == bindparam("post_id"))
    .with_for_update(read=True, of=posts)
)
"""A click's first read, in one round trip: the post row (FOR SHARE on PostgreSQL, so an
answer and a close cannot interleave), what the reply shows about the clicker as it stood
before the click (`player_of`, then `after_answer`), and the server's newest daily post."""


def player_of(row: AnyRow, server_id: str) -> Player:
    """The reply's facts from a row of `_PLAYER` or `POST_CLICK`."""
    return Player(
        server=ServerSettings(server_id, row.server_locale, row.timezone, int(row.server_season)),
        locale=row.user_locale,
        totals=Totals(int(row.answered), int(row.correct), int(row.points)),
        streak=int(row.streak),
    )


def after_answer(before: Player, row: AnyRow, correct: bool, points: int) -> Player | None:
    """`bot.domain.totals.after_answer` for the post in `row` (of `POST_CLICK` or `CLICK`):
    the reply's facts worked out rather than read again."""
    return answered(
        before,
        season=row.season,
        scheduled=row.schedule_id is not None,
        newest_scheduled=row.id == row.newest_scheduled,
        correct=correct,
        points=points,
    )


def read_player(conn: Connection, server_id: str, user_id: str) -> Player:
    """What a private reply shows about its reader (see `Player`), in one statement."""
    row = conn.execute(_PLAYER, {"server_id": server_id, "user_id": user_id}).one()
    return player_of(row, server_id)


def read_totals(conn: Connection, server_id: str, season: int, user_id: str) -> Totals:
    answered, correct, points = conn.execute(
        _TOTALS, {"server_id": server_id, "season": season, "user_id": user_id}
    ).one()
    return Totals(answered=answered, correct=correct, points=points)


def read_streak(conn: Connection, server_id: str, user_id: str) -> int:
    count: int = conn.execute(_STREAK, {"server_id": server_id, "user_id": user_id}).scalar_one()
    return count
