"""Seen Slack requests in the database, for several processes behind one URL.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04

With `[slack] shared_seen`, the event ids and request signatures already handled are kept in
`seen_requests` (until they expire) instead of in each process's memory, so a retried event or
a replayed request that reaches another process is not handled again.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import UtcDateTime

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "seen_requests",
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("expires_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_seen_requests")),
    )


def downgrade() -> None:
    op.drop_table("seen_requests")
