"""An index for the limits on problem reports.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04

Before each report the bot reads what that person reported in the last day and what of
theirs is still unsent; the index keeps that read small however many reports a server has.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_problem_reports_person", "problem_reports", ["server_id", "user_id", "reported_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_problem_reports_person", table_name="problem_reports")
