"""The initial schema: servers, users, posts, runs, answers, first meetings, meta.

Revision ID: 0001
Revises:
Create Date: 2026-12-02

Types are spelled out here rather than imported from `bot.storage.tables`, so this revision
keeps creating the same schema whatever the tables module becomes later.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _row_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _when() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _where(condition: str) -> dict[str, Any]:
    return {"sqlite_where": sa.text(condition), "postgresql_where": sa.text(condition)}


def upgrade() -> None:
    op.create_table(
        "servers",
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("locale", sa.String(), nullable=True),
        sa.Column("timezone", sa.String(), server_default="UTC", nullable=False),
        sa.Column("season", sa.Integer(), server_default="1", nullable=False),
        sa.Column("season_started_at", _when(), nullable=True),
        sa.PrimaryKeyConstraint("server_id", name=op.f("pk_servers")),
    )
    op.create_table(
        "user_settings",
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("locale", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("server_id", "user_id", name=op.f("pk_user_settings")),
    )
    op.create_table(
        "posts",
        sa.Column("id", _row_id(), autoincrement=True, nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("channel_id", sa.String(), nullable=False),
        sa.Column("deck_id", sa.String(), nullable=False),
        sa.Column("question_id", sa.String(), nullable=False),
        sa.Column("choice_order", sa.String(), nullable=False),
        sa.Column("locale", sa.String(), nullable=False),
        sa.Column("poster_id", sa.String(), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("schedule_id", sa.Integer(), nullable=True),
        sa.Column("opened_at", _when(), nullable=False),
        sa.Column("closed_at", _when(), nullable=True),
        sa.Column("message_ref", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_posts")),
    )
    op.create_index(
        "ix_posts_open_in_channel",
        "posts",
        ["server_id", "channel_id", "opened_at"],
        **_where("closed_at IS NULL"),
    )
    op.create_index(
        "ix_posts_scheduled",
        "posts",
        ["server_id", "opened_at", "id"],
        **_where("schedule_id IS NOT NULL"),
    )
    op.create_table(
        "runs",
        sa.Column("id", _row_id(), autoincrement=True, nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("deck_id", sa.String(), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("started_at", _when(), nullable=False),
        sa.Column("finished_at", _when(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    op.create_index(
        "uq_runs_active",
        "runs",
        ["server_id", "user_id", "deck_id"],
        unique=True,
        **_where("finished_at IS NULL"),
    )
    op.create_table(
        "answers",
        sa.Column("id", _row_id(), autoincrement=True, nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("deck_id", sa.String(), nullable=False),
        sa.Column("question_id", sa.String(), nullable=False),
        sa.Column("post_id", _row_id(), nullable=True),
        sa.Column("run_id", _row_id(), nullable=True),
        sa.Column("choice", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("answered_at", _when(), nullable=False),
        sa.CheckConstraint(
            "(post_id IS NULL) <> (run_id IS NULL)", name=op.f("ck_answers_one_source")
        ),
        sa.CheckConstraint("points >= 0", name=op.f("ck_answers_points")),
        sa.ForeignKeyConstraint(["post_id"], ["posts.id"], name=op.f("fk_answers_post_id_posts")),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_answers_run_id_runs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_answers")),
        sa.UniqueConstraint("post_id", "user_id", name=op.f("uq_answers_post_id_user_id")),
        sa.UniqueConstraint("run_id", "question_id", name=op.f("uq_answers_run_id_question_id")),
    )
    op.create_index(
        "ix_answers_scoring",
        "answers",
        ["server_id", "season", "answered_at", "user_id", "points", "deck_id"],
        **_where("points > 0"),
    )
    op.create_index(
        "ix_answers_user",
        "answers",
        ["server_id", "season", "user_id", "points", "answered_at", "deck_id", "correct"],
    )
    op.create_table(
        "first_meetings",
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("deck_id", sa.String(), nullable=False),
        sa.Column("question_id", sa.String(), nullable=False),
        sa.Column("met_at", _when(), nullable=False),
        sa.PrimaryKeyConstraint(
            "server_id",
            "season",
            "user_id",
            "deck_id",
            "question_id",
            name=op.f("pk_first_meetings"),
        ),
    )
    op.create_table(
        "meta",
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_meta")),
    )


def downgrade() -> None:
    for table in ("meta", "first_meetings", "answers", "runs", "posts", "user_settings", "servers"):
        op.drop_table(table)  # with its indexes
