"""PostgreSQL: a scoring answer's six standings rows in one statement, and score counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection

from bot.storage.scores import BOARDS, ROW, ScoreCounts, Scored
from bot.storage.tables import score_counts, standings
from bot.storage.transactions import accumulate


class PostgresScoreCounts(ScoreCounts):
    def write(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        conn.execute(_MOVE_COUNTS, rows)


def _add_points() -> Any:
    """One INSERT of the six rows as text: SQLAlchemy renders a multi-row VALUES (or an
    executemany of RETURNING rows) afresh on every call, about 0.2 ms a right answer, where a
    text statement is compiled once."""
    columns = ", ".join(ROW)
    values = ", ".join("(" + ", ".join(f":{name}_{i}" for name in ROW) + ")" for i in range(BOARDS))
    keys = ", ".join(c.name for c in standings.primary_key.columns)
    return (
        text(
            f"INSERT INTO standings ({columns}) VALUES {values} "
            f"ON CONFLICT ({keys}) DO UPDATE SET "
            "points = standings.points + excluded.points, "
            "reached_at = greatest(standings.reached_at, excluded.reached_at) "
            "RETURNING period, deck_key, points"
        )
        .bindparams(
            *(
                bindparam(f"reached_at_{i}", type_=standings.c.reached_at.type)
                for i in range(BOARDS)
            )
        )
        .columns(standings.c.period, standings.c.deck_key, standings.c.points)
    )


_ADD_POINTS = _add_points()
_counted = postgresql.insert(score_counts)
_MOVE_COUNTS = _counted.on_conflict_do_update(
    index_elements=list(score_counts.primary_key.columns),
    set_={"users": score_counts.c.users + _counted.excluded.users},
)


def add_points(conn: Connection, scored: Scored, zone: str) -> None:
    """Adds a scoring answer to its six standings rows, and moves the user from their old
    total to the new one in the transaction's score counts."""
    params: dict[str, Any] = {}
    for i, row in enumerate(scored.rows(zone)):
        params.update({f"{name}_{i}": value for name, value in zip(ROW, row, strict=True)})
    counts = accumulate(conn, PostgresScoreCounts)
    totals: Sequence[Any] = conn.execute(_ADD_POINTS, params).all()
    for period, deck, total in totals:
        board = (scored.server_id, scored.season, period, deck)
        counts.move(board, total - scored.points, total)
