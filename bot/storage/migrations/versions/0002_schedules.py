"""Daily questions: schedules, their (schedule, local date) slots, and a posts index.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-09

Types are spelled out here rather than imported from `bot.storage.tables`, so this revision
keeps creating the same schema whatever the tables module becomes later. Only new tables and
a new index: no existing row or column changes, so it needs no batch copy on SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _row_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _when() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "schedules",
        sa.Column("id", _row_id(), autoincrement=True, nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("channel_id", sa.String(), nullable=False),
        sa.Column("time", sa.String(), nullable=False),
        sa.Column("zone", sa.String(), nullable=False),
        sa.Column("deck_id", sa.String(), nullable=False),
        sa.Column("days", sa.String(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("enabled", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("created_at", _when(), nullable=False),
        sa.Column("updated_at", _when(), nullable=False),
        sa.CheckConstraint("days IN ('daily', 'weekdays')", name=op.f("ck_schedules_days")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_schedules")),
        sa.UniqueConstraint(
            "server_id", "channel_id", name=op.f("uq_schedules_server_id_channel_id")
        ),
    )
    op.create_table(
        "schedule_slots",
        sa.Column("schedule_id", _row_id(), nullable=False),
        sa.Column("local_date", sa.Date(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("post_id", _row_id(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("claimed_at", _when(), nullable=False),
        sa.CheckConstraint(
            "status IN ('claimed', 'posted', 'failed', 'skipped')",
            name=op.f("ck_schedule_slots_status"),
        ),
        sa.ForeignKeyConstraint(
            ["schedule_id"], ["schedules.id"], name=op.f("fk_schedule_slots_schedule_id_schedules")
        ),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_schedule_slots_post_id_posts")
        ),
        sa.PrimaryKeyConstraint("schedule_id", "local_date", name=op.f("pk_schedule_slots")),
    )
    op.create_index(
        "ix_posts_by_schedule",
        "posts",
        ["schedule_id", "opened_at"],
        sqlite_where=sa.text("schedule_id IS NOT NULL"),
        postgresql_where=sa.text("schedule_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_posts_by_schedule", table_name="posts")
    op.drop_table("schedule_slots")
    op.drop_table("schedules")
