"""Score counts: how many users hold each points total on each leaderboard, backfilled.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02

The caller's rank is 1 + the users with more points. Counted over `standings`, that is a
range of up to every user of the period (100,000 rows: 9 ms on SQLite, growing with the
server); counted here it is a range of the distinct totals above theirs, a few hundred
rows at most. Kept in step with `standings` in the transaction that stores each scoring
answer.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "score_counts",
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("period", sa.String(), nullable=False),
        sa.Column("deck_key", sa.String(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("users", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "server_id", "season", "period", "deck_key", "points", name=op.f("pk_score_counts")
        ),
    )
    op.execute(
        "INSERT INTO score_counts (server_id, season, period, deck_key, points, users)"
        " SELECT server_id, season, period, deck_key, points, count(*) FROM standings"
        " GROUP BY server_id, season, period, deck_key, points"
    )


def downgrade() -> None:
    op.drop_table("score_counts")
