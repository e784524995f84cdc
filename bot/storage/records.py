"""Rows read back into the store's records: the one place a column becomes a field."""

from __future__ import annotations

from datetime import date

from bot.domain.records import (
    PostRecord,
    RunAnswerRecord,
    RunRecord,
    SlotRecord,
    SlotStatus,
    Standing,
)
from bot.domain.schedule import Schedule, parse_days
from bot.storage.player import AnyRow


def choice_order(text: str) -> tuple[int, ...]:
    return tuple(int(i) for i in text.split(",")) if text else ()


def post_record(row: AnyRow) -> PostRecord:
    return PostRecord(
        id=row.id,
        server_id=row.server_id,
        channel_id=row.channel_id,
        deck_id=row.deck_id,
        question_id=row.question_id,
        order=choice_order(row.choice_order),
        locale=row.locale,
        poster_id=row.poster_id,
        season=row.season,
        opened_at=row.opened_at,
        closed_at=row.closed_at,
        message_ref=row.message_ref,
        schedule_id=row.schedule_id,
        game_id=row.game_id,
        closes_at=row.closes_at,
    )


def local_date(value: date | str | None) -> date | None:
    """A DATE from either database (SQLite gives text when no column type reaches it)."""
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(value)


def schedule_record(row: AnyRow) -> Schedule:
    return Schedule(
        id=row.id,
        server_id=row.server_id,
        channel_id=row.channel_id,
        time=row.time,
        zone=row.zone,
        deck_id=row.deck_id or None,  # FOLLOWS_DEFAULT
        days=parse_days(row.days),
        created_by=row.created_by,
        enabled=bool(row.enabled),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def slot_record(row: AnyRow) -> SlotRecord:
    return SlotRecord(
        schedule_id=row.schedule_id,
        local_date=row.local_date,
        status=SlotStatus(row.status),
        claimed_at=row.claimed_at,
        post_id=row.post_id,
        error=row.error,
    )


def run_record(row: AnyRow) -> RunRecord:
    return RunRecord(
        id=row.id,
        server_id=row.server_id,
        user_id=row.user_id,
        deck_id=row.deck_id,
        season=row.season,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


def run_answer_record(row: AnyRow) -> RunAnswerRecord:
    return RunAnswerRecord(
        question_id=row.question_id,
        choice=row.choice,
        correct=bool(row.correct),
        points=row.points,
        answered_at=row.answered_at,
    )


def standing_record(row: AnyRow) -> Standing:
    return Standing(
        user_id=row.user_id, points=int(row.points), reached_at=row.reached_at, rank=int(row.rank)
    )
