"""One open problem report per person and question, kept by the database.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05

The limits on reporting were checked before the report was stored, in another transaction,
so reports sent at once all passed. They are now checked in the write's own transaction,
and a partial unique index keeps one unsent report per person and question. Reports that
the race let in twice are kept (admins still read them in the question's health), but only
the first stays unsent: the others are marked sent when they were reported.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN = sa.text("sent_at IS NULL")


def upgrade() -> None:
    op.execute(
        """
        UPDATE problem_reports SET sent_at = reported_at
        WHERE sent_at IS NULL AND EXISTS (
            SELECT 1 FROM problem_reports AS first
            WHERE first.sent_at IS NULL
              AND first.server_id = problem_reports.server_id
              AND first.user_id = problem_reports.user_id
              AND first.deck_id = problem_reports.deck_id
              AND first.question_id = problem_reports.question_id
              AND first.id < problem_reports.id
        )
        """
    )
    op.create_index(
        "uq_problem_reports_open",
        "problem_reports",
        ["server_id", "user_id", "deck_id", "question_id"],
        unique=True,
        sqlite_where=OPEN,
        postgresql_where=OPEN,
    )


def downgrade() -> None:
    op.drop_index("uq_problem_reports_open", table_name="problem_reports")
