"""`quizbot export --server ID`: a server's answers and leaderboards as CSV, for spreadsheets;
with its review answers and the problem reports its players sent.

Rows are streamed, so a server with millions of answers exports in constant memory. Cells
that a spreadsheet would run as a formula (=, +, -, @ first) are prefixed with a quote
(`bot.decks.spreadsheet`, shared with the deck CSV export).
"""

from __future__ import annotations

import asyncio
import csv
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Select, case, func, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.decks.spreadsheet import neutralise
from bot.storage.engine import store_engine
from bot.storage.tables import answers, problem_reports, review_answers
from bot.storage.url import database_url

ANSWER_COLUMNS = [
    "season",
    "answered_at",
    "user_id",
    "deck_id",
    "question_id",
    "source",
    "post_id",
    "run_id",
    "choice",
    "correct",
    "points",
]
REVIEW_COLUMNS = ["answered_at", "user_id", "deck_id", "question_id", "number", "choice", "correct"]
REPORT_COLUMNS = [
    "reported_at",
    "user_id",
    "deck_id",
    "question_id",
    "deck_version",
    "reason",
    "text",
    "sent_at",
]
BOARD_COLUMNS = ["season", "rank", "user_id", "points", "answered", "correct", "reached_at"]


def cell(value: Any) -> Any:
    """A value safe to open in a spreadsheet."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, str):
        return neutralise(value)
    return value


def file_stem(server_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", server_id)


async def _write_answers(conn: AsyncConnection, server_id: str, path: Path) -> int:
    a = answers.c
    query = (
        select(
            a.season,
            a.answered_at,
            a.user_id,
            a.deck_id,
            a.question_id,
            a.post_id,
            a.run_id,
            a.choice,
            a.correct,
            a.points,
        )
        .where(a.server_id == server_id)
        .order_by(a.answered_at, a.id)
    )
    count = 0
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(ANSWER_COLUMNS)
        async for row in await conn.stream(query):
            season, at, user, deck, question, post, run, choice, correct, points = row
            source = "post" if post is not None else "run"
            out.writerow(
                [
                    cell(v)
                    for v in (
                        season,
                        at,
                        user,
                        deck,
                        question,
                        source,
                        post,
                        run,
                        choice,
                        int(correct),
                        points,
                    )
                ]
            )
            count += 1
    return count


async def _write_boards(conn: AsyncConnection, server_id: str, path: Path) -> int:
    a = answers.c
    scored_at = func.max(a.answered_at).filter(a.points > 0)
    query = (
        select(
            a.season,
            a.user_id,
            func.sum(a.points).label("points"),
            func.count().label("answered"),
            func.sum(case((a.correct, 1), else_=0)).label("correct"),
            scored_at.label("reached_at"),
        )
        .where(a.server_id == server_id)
        .group_by(a.season, a.user_id)
        .order_by(a.season, func.sum(a.points).desc(), scored_at, a.user_id)
    )
    count = 0
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(BOARD_COLUMNS)
        season, rank, above, last_points = None, 0, 0, None
        async for row in await conn.stream(query):
            if row.season != season:
                season, rank, above, last_points = row.season, 0, 0, None
            if row.points <= 0:
                continue  # users with no points are not on a leaderboard
            if row.points != last_points:
                rank, last_points = above + 1, row.points
            above += 1
            out.writerow(
                [
                    cell(v)
                    for v in (
                        row.season,
                        rank,
                        row.user_id,
                        row.points,
                        row.answered,
                        row.correct,
                        row.reached_at,
                    )
                ]
            )
            count += 1
    return count


async def _write_rows(
    conn: AsyncConnection, query: Select[Any], columns: list[str], path: Path
) -> int:
    """Streams `query`'s rows, in `columns`' order, as CSV."""
    count = 0
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(columns)
        async for row in await conn.stream(query):
            out.writerow([cell(int(v) if isinstance(v, bool) else v) for v in row])
            count += 1
    return count


def _reviews(server_id: str) -> Select[Any]:
    r = review_answers.c
    columns = [getattr(r, name) for name in REVIEW_COLUMNS]
    return select(*columns).where(r.server_id == server_id).order_by(r.answered_at, r.id)


def _reports(server_id: str) -> Select[Any]:
    p = problem_reports.c
    columns = [getattr(p, name) for name in REPORT_COLUMNS]
    return select(*columns).where(p.server_id == server_id).order_by(p.id)


def _never_created(url: str) -> bool:
    """A SQLite file that does not exist yet (opening it would create an empty one)."""
    parsed = make_url(database_url(url, Path.cwd()))
    return parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file()


async def _has_data(conn: AsyncConnection, server_id: str) -> bool:
    """Whether any answer, review answer or problem report of the server is stored (in a
    database the bot has set up: one it never ran on has nothing)."""
    tables = (answers, review_answers, problem_reports)
    made = await conn.run_sync(lambda sync: [inspect(sync).has_table(t.name) for t in tables])
    if not all(made):
        return False
    for table in tables:
        found = await conn.execute(
            select(table.c.server_id).where(table.c.server_id == server_id).limit(1)
        )
        if found.first() is not None:
            return True
    return False


async def export_server(
    url: str, server_id: str, out_dir: Path, *, schema: str | None = None
) -> dict[Path, int]:
    """Writes `<server>-answers.csv`, `<server>-leaderboard.csv`, `<server>-reviews.csv` and
    `<server>-problem-reports.csv` into the existing folder `out_dir`; returns the rows
    written per file. A server with nothing stored gets no files at all (an empty dict):
    four header-only files would look like an export that lost its data."""
    if await asyncio.to_thread(_never_created, url):
        return {}
    stem = file_stem(server_id)
    answers_path = out_dir / f"{stem}-answers.csv"
    board_path = out_dir / f"{stem}-leaderboard.csv"
    reviews_path = out_dir / f"{stem}-reviews.csv"
    reports_path = out_dir / f"{stem}-problem-reports.csv"
    engine = store_engine(url, schema=schema)
    try:
        async with engine.connect() as conn:
            if not await _has_data(conn, server_id):
                return {}
            written = {
                answers_path: await _write_answers(conn, server_id, answers_path),
                board_path: await _write_boards(conn, server_id, board_path),
                reviews_path: await _write_rows(
                    conn, _reviews(server_id), REVIEW_COLUMNS, reviews_path
                ),
                reports_path: await _write_rows(
                    conn, _reports(server_id), REPORT_COLUMNS, reports_path
                ),
            }
    finally:
        await engine.dispose()
    return written
