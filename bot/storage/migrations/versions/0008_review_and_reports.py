"""Review answers and problem reports.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04

`review_answers`: answers given in `/quiz review`, never scored; a person's review queue is
worked out from them and from their misses (`bot.domain.review`). `problem_reports`: what
players reported about a question with "Report a problem".
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import RowId, UtcDateTime

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "review_answers",
        sa.Column("id", RowId, autoincrement=True, nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("deck_id", sa.String(), nullable=False),
        sa.Column("question_id", sa.String(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("choice", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("answered_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_answers")),
        sa.UniqueConstraint(
            "server_id",
            "user_id",
            "deck_id",
            "question_id",
            "number",
            name=op.f("uq_review_answers_server_id_user_id_deck_id_question_id_number"),
        ),
    )
    op.create_table(
        "problem_reports",
        sa.Column("id", RowId, autoincrement=True, nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("deck_id", sa.String(), nullable=False),
        sa.Column("question_id", sa.String(), nullable=False),
        sa.Column("deck_version", sa.String(), nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("reported_at", UtcDateTime(), nullable=False),
        sa.Column("sent_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_problem_reports")),
    )
    op.create_index(
        "ix_problem_reports_unsent", "problem_reports", ["server_id", "sent_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_problem_reports_unsent", table_name="problem_reports")
    op.drop_table("problem_reports")
    op.drop_table("review_answers")
