"""Players who hide from leaderboards (`/quiz privacy`).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04

A hidden player keeps their points and rank; others see "a hidden player" in their place on
a leaderboard and cannot read their stats.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("user_settings") as batch:
        batch.add_column(
            sa.Column("hidden", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("user_settings") as batch:
        batch.drop_column("hidden")
