"""Live games.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04

`games`: a round of questions played together in one channel (`bot.domain.game`), moved on
by the game loop; one running game per channel. `game_results`: who played a finished game
and their place. `posts.game_id`: the game a post is a question of.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import RowId, UtcDateTime

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RUNNING = sa.text("state = 'running'")


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", RowId, autoincrement=True, nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("channel_id", sa.String(), nullable=False),
        sa.Column("deck_id", sa.String(), nullable=False),
        sa.Column("starter_id", sa.String(), nullable=False),
        sa.Column("locale", sa.String(), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("phase", sa.String(), nullable=False),
        sa.Column("due_at", UtcDateTime(), nullable=False),
        sa.Column("step", sa.Integer(), server_default="0", nullable=False),
        sa.Column("lease_until", UtcDateTime(), nullable=True),
        sa.Column("stop_by", sa.String(), nullable=True),
        sa.Column("started_at", UtcDateTime(), nullable=False),
        sa.Column("ended_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index(
        "uq_games_running_channel",
        "games",
        ["server_id", "channel_id"],
        unique=True,
        sqlite_where=RUNNING,
        postgresql_where=RUNNING,
    )
    op.create_index("ix_games_due", "games", ["state", "due_at"])
    op.create_table(
        "game_results",
        sa.Column("game_id", RowId, nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("server_id", sa.String(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_results_game_id_games")
        ),
        sa.PrimaryKeyConstraint("game_id", "user_id", name=op.f("pk_game_results")),
    )
    op.create_index("ix_game_results_player", "game_results", ["server_id", "user_id"])
    # A plain ADD COLUMN: a batch (copy and drop) of `posts` would break the answers' keys.
    op.add_column("posts", sa.Column("game_id", RowId, nullable=True))
    op.create_index(
        "ix_posts_game",
        "posts",
        ["game_id", "id"],
        sqlite_where=sa.text("game_id IS NOT NULL"),
        postgresql_where=sa.text("game_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_posts_game", table_name="posts")
    op.drop_column("posts", "game_id")
    op.drop_index("ix_game_results_player", table_name="game_results")
    op.drop_table("game_results")
    op.drop_index("ix_games_due", table_name="games")
    op.drop_index("uq_games_running_channel", table_name="games")
    op.drop_table("games")
