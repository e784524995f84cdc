"""A server's own default deck (`/quiz deck default`).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-12

`servers.default_deck`: the deck an admin made the server's default, used where a command
names no deck (before the config's `[questions] default` and the first deck by id). A plain
ADD COLUMN, nullable: no server has one until an admin sets it.

A schedule set without a deck follows the server's default as it changes; it is stored with
an empty `schedules.deck_id` (the column stays NOT NULL: making it nullable on SQLite would
copy and drop `schedules`, which the slots' foreign keys forbid), so no change is needed
there.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("servers", sa.Column("default_deck", sa.String(), nullable=True))


def downgrade() -> None:
    # Schedules that followed the default keep to the deck it named, where there was one.
    op.execute(
        "UPDATE schedules SET deck_id = COALESCE("
        "(SELECT default_deck FROM servers WHERE servers.server_id = schedules.server_id), "
        "deck_id) WHERE deck_id = ''"
    )
    op.drop_column("servers", "default_deck")
