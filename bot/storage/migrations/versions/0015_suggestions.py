"""Questions the team writes (`/quiz suggest`).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05

`suggestions`: one row per suggested question, from the author's draft through the queue to
approved (a question of the server's own deck, `q<id>`) or rejected with a reason. An author
has one draft per server (a partial unique index). The findings of the lint are kept as sent,
so the admins' queue shows them without linting again.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import RowId, UtcDateTime

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DRAFT = sa.text("status = 'draft'")


def upgrade() -> None:
    op.create_table(
        "suggestions",
        sa.Column("id", RowId, autoincrement=True, nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("author_id", sa.String(), nullable=True),
        sa.Column("author_name", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("locale", sa.String(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("right_answer", sa.Text(), nullable=False),
        sa.Column("wrong", sa.Text(), nullable=False),
        sa.Column("explanation", sa.Text(), nullable=False),
        sa.Column("whys", sa.Text(), nullable=False),
        sa.Column("findings", sa.Text(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
        sa.Column("submitted_at", UtcDateTime(), nullable=True),
        sa.Column("decided_at", UtcDateTime(), nullable=True),
        sa.Column("decided_by", sa.String(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_suggestions")),
    )
    op.create_index(
        "uq_suggestions_draft",
        "suggestions",
        ["server_id", "author_id"],
        unique=True,
        sqlite_where=DRAFT,
        postgresql_where=DRAFT,
    )
    op.create_index("ix_suggestions_queue", "suggestions", ["server_id", "status", "submitted_at"])


def downgrade() -> None:
    op.drop_index("ix_suggestions_queue", table_name="suggestions")
    op.drop_index("uq_suggestions_draft", table_name="suggestions")
    op.drop_table("suggestions")
