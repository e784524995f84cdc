"""The live games' tables (`bot.domain.game`): a game, its players' places, and the clicks
held on a game question until its reveal. Described on the same `metadata` as the rest of
the schema (`bot.storage.tables`); migrations 0011 and 0012 create them."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    literal_column,
)

from bot.storage.tables import RowId, UtcDateTime, metadata

games = Table(
    "games",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("server_id", String, nullable=False),
    Column("channel_id", String, nullable=False),
    Column("deck_id", String, nullable=False),
    Column("starter_id", String, nullable=False),
    Column("locale", String, nullable=False),
    Column("season", Integer, nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("seconds", Integer, nullable=False),
    Column("state", String, nullable=False),
    Column("phase", String, nullable=False),
    Column("due_at", UtcDateTime, nullable=False),
    Column("step", Integer, nullable=False, server_default="0"),
    Column("lease_until", UtcDateTime),
    Column("stop_by", String),
    Column("started_at", UtcDateTime, nullable=False),
    Column("ended_at", UtcDateTime),
)
"""Live games (`bot.domain.game`): the loop moves each on when `due_at` comes."""
GAME_RUNNING = games.c.state == literal_column("'running'")
Index(
    "uq_games_running_channel",
    games.c.server_id,
    games.c.channel_id,
    unique=True,
    sqlite_where=GAME_RUNNING,
    postgresql_where=GAME_RUNNING,
)
"""One game per channel at a time: a second start loses this key."""
Index("ix_games_due", games.c.state, games.c.due_at)

game_results = Table(
    "game_results",
    metadata,
    Column("game_id", RowId, ForeignKey("games.id"), primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("server_id", String, nullable=False),
    Column("points", Integer, nullable=False),
    Column("place", Integer, nullable=False),
)
"""Everyone who played a finished game, with their place: `/quiz stats` counts games played
and won from a person's rows."""
Index("ix_game_results_player", game_results.c.server_id, game_results.c.user_id)

held_answers = Table(
    "held_answers",
    metadata,
    Column("post_id", RowId, ForeignKey("posts.id"), primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("server_id", String, nullable=False),
    Column("choice", Integer, nullable=False),
    Column("correct", Boolean, nullable=False),
    Column("points", Integer, nullable=False),
    Column("answered_at", UtcDateTime, nullable=False),
)
"""Clicks on a game's open question: stored at once, scored (moved into `answers` by the
click's own write) when the question closes, so nothing shows them before its reveal
(`bot.storage.held_answers`). The key makes the first click stand."""
Index("ix_held_answers_person", held_answers.c.server_id, held_answers.c.user_id)
