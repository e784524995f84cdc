"""Standings: points per (server, season, period, deck or all, user), backfilled.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-10

The leaderboard reads these rows instead of grouping every answer of a season. The backfill
counts every scoring answer already stored into its week ("w" + the Monday, local date),
month ("m" + year-month) and all-time ("all") rows, per deck and for all decks (deck_key
''), in the server's current time zone; later answers are bucketed as they are stored.
PostgreSQL converts zones itself (AT TIME ZONE); SQLite groups UTC servers in SQL and the
few servers in other zones in Python. Only a new table and index: no batch copy on SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "standings",
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("period", sa.String(), nullable=False),
        sa.Column("deck_key", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("reached_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(
            "server_id", "season", "period", "deck_key", "user_id", name=op.f("pk_standings")
        ),
    )
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        _backfill_postgresql(bind)
    else:
        _backfill_sqlite(bind)
    op.create_index(
        "ix_standings_rank",
        "standings",
        [
            "server_id",
            "season",
            "period",
            "deck_key",
            sa.text("points DESC"),
            "reached_at",
            "user_id",
        ],
    )


def downgrade() -> None:
    op.drop_table("standings")  # with its index


_INSERT = "INSERT INTO standings (server_id, season, period, deck_key, user_id, points, reached_at)"


def _grouped(source: str, period: str, deck: str) -> str:
    keys = ["server_id", "season", "user_id"] + [k for k in (period, deck) if k not in _CONSTANT]
    return (
        f"SELECT server_id, season, {period}, {deck}, user_id, sum(points), max(answered_at)"
        f" FROM ({source}) AS scored GROUP BY {', '.join(keys)}"
    )


_CONSTANT = ("'all'", "''")  # PostgreSQL refuses constants in GROUP BY


def _all_groupings(source: str, week: str, month: str) -> str:
    return " UNION ALL ".join(
        _grouped(source, period, deck)
        for period in (week, month, "'all'")
        for deck in ("deck_id", "''")
    )


def _backfill_postgresql(bind: sa.Connection) -> None:
    source = (
        "SELECT a.server_id, a.season, a.deck_id, a.user_id, a.points, a.answered_at,"
        " a.answered_at AT TIME ZONE coalesce(s.timezone, 'UTC') AS local_at"
        " FROM answers a LEFT JOIN servers s ON s.server_id = a.server_id WHERE a.points > 0"
    )
    week = "'w' || to_char(date_trunc('week', local_at), 'YYYY-MM-DD')"
    month = "'m' || to_char(local_at, 'YYYY-MM')"
    bind.execute(sa.text(f"{_INSERT} {_all_groupings(source, week, month)}"))


def _backfill_sqlite(bind: sa.Connection) -> None:
    """Times are stored as UTC text ('YYYY-MM-DD HH:MM:SS.ffffff'), so SQL can bucket the
    answers of UTC servers: 'weekday 0', '-6 days' is the Monday of the day's week."""
    elsewhere = "FROM servers WHERE timezone <> 'UTC'"
    source = (
        "SELECT * FROM answers WHERE points > 0"
        f" AND server_id NOT IN (SELECT server_id {elsewhere})"
    )
    day = "substr(answered_at, 1, 19)"  # whole seconds: SQLite rounds .9995 up a day
    week = f"'w' || date({day}, 'weekday 0', '-6 days')"
    month = f"'m' || strftime('%Y-%m', {day})"
    # In primary key order: the key's index then grows at its end instead of everywhere.
    bind.execute(sa.text(f"{_INSERT} {_all_groupings(source, week, month)} ORDER BY 1, 2, 3, 4, 5"))
    for server_id, zone in bind.execute(sa.text(f"SELECT server_id, timezone {elsewhere}")):
        _backfill_in_python(bind, server_id, ZoneInfo(zone))


def _backfill_in_python(bind: sa.Connection, server_id: str, zone: ZoneInfo) -> None:
    totals: dict[tuple[Any, ...], list[Any]] = {}
    rows = bind.execute(
        sa.text(
            "SELECT season, deck_id, user_id, points, answered_at FROM answers"
            " WHERE server_id = :server AND points > 0"
        ),
        {"server": server_id},
    )
    for season, deck_id, user_id, points, answered_at in rows:
        at = _utc(answered_at)
        local = at.astimezone(zone).date()
        week = "w" + (local - timedelta(days=local.weekday())).isoformat()
        month = f"m{local.year:04d}-{local.month:02d}"
        for period in (week, month, "all"):
            for deck in (deck_id, ""):
                entry = totals.setdefault((season, period, deck, user_id), [0, at])
                entry[0] += points
                entry[1] = max(entry[1], at)
    if totals:
        bind.execute(
            sa.text(f"{_INSERT} VALUES (:server, :season, :period, :deck, :user, :points, :at)"),
            [
                {
                    "server": server_id,
                    "season": season,
                    "period": period,
                    "deck": deck,
                    "user": user_id,
                    "points": points,
                    "at": at.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds"),
                }
                for (season, period, deck, user_id), (points, at) in totals.items()
            ],
        )


def _utc(value: datetime | str) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
