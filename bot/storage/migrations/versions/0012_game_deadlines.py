"""A game question's deadline, and its clicks held until its reveal.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-10

`posts.closes_at`: when a game's question closes (a click later than that, plus a second's
grace, is too late, whatever the game loop is doing). `held_answers`: the clicks on a game's
open question, stored at once and scored only when the question is revealed, so nothing
about them (right or wrong, points, review, mastery) shows before (`bot.storage.held_answers`).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import RowId, UtcDateTime

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN: a batch (copy and drop) of `posts` would break the answers' keys.
    op.add_column("posts", sa.Column("closes_at", UtcDateTime(), nullable=True))
    op.create_table(
        "held_answers",
        sa.Column("post_id", RowId, nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("choice", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("answered_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_held_answers_post_id_posts")
        ),
        sa.PrimaryKeyConstraint("post_id", "user_id", name=op.f("pk_held_answers")),
    )
    op.create_index("ix_held_answers_person", "held_answers", ["server_id", "user_id"])


def downgrade() -> None:
    op.drop_index("ix_held_answers_person", table_name="held_answers")
    op.drop_table("held_answers")
    op.drop_column("posts", "closes_at")
