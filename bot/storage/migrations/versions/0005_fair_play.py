"""Fair play: post answers count as first meetings, and a question is open once per server.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04

Until now only run answers claimed a first meeting, so answering the same question in post
after post scored every time. The meetings that post answers already made are backfilled,
oldest first, so nobody scores again for a question they answered before this upgrade.

A question open in two posts of one server lets one's reveal give away the other's answer;
a unique index on open posts now refuses the second. Where an older database has such
duplicates, all but the newest are closed (without a reveal: their buttons then answer
"this question is closed"), since the index cannot be built over them.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "INSERT INTO first_meetings (server_id, season, user_id, deck_id, question_id, met_at)"
        " SELECT server_id, season, user_id, deck_id, question_id, min(answered_at)"
        " FROM answers WHERE post_id IS NOT NULL"
        " GROUP BY server_id, season, user_id, deck_id, question_id"
        " ON CONFLICT DO NOTHING"
    )
    op.execute(
        "UPDATE posts SET closed_at = opened_at WHERE closed_at IS NULL AND EXISTS ("
        " SELECT 1 FROM posts AS newer WHERE newer.closed_at IS NULL"
        " AND newer.server_id = posts.server_id AND newer.deck_id = posts.deck_id"
        " AND newer.question_id = posts.question_id"
        " AND (newer.opened_at > posts.opened_at"
        " OR (newer.opened_at = posts.opened_at AND newer.id > posts.id)))"
    )
    op.create_index(
        "uq_posts_open_question",
        "posts",
        ["server_id", "deck_id", "question_id"],
        unique=True,
        sqlite_where=sa.text("closed_at IS NULL"),
        postgresql_where=sa.text("closed_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("uq_posts_open_question", table_name="posts")
