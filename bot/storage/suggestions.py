"""`Suggestions` in SQL: the team's suggested questions, from draft to the server's own deck.

Not a mixin of `SqlStore`: the suggestions service takes this narrow port only. It runs its
statements in the store's transactions (`SqlSuggestions(store)`), on SQLite and PostgreSQL.
The table is described here, on the store's metadata (migration 0015 creates it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import (
    Column,
    Index,
    String,
    Table,
    Text,
    and_,
    delete,
    func,
    literal_column,
    select,
    update,
)
from sqlalchemy.engine import Connection

from bot.domain.suggestion import Draft, Finding, Sent, Status, Suggestion
from bot.service.suggestion_port import Suggestions
from bot.storage.aggregate import SqlAggregate
from bot.storage.player import AnyRow
from bot.storage.tables import RowId, UtcDateTime, metadata
from bot.storage.transactions import Transactions

suggestions = Table(
    "suggestions",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("server_id", String, nullable=False),
    Column("author_id", String),
    Column("author_name", String),
    Column("status", String, nullable=False),
    Column("locale", String, nullable=False),
    Column("question", Text, nullable=False),
    Column("right_answer", Text, nullable=False),
    Column("wrong", Text, nullable=False),
    Column("explanation", Text, nullable=False),
    Column("whys", Text, nullable=False),
    Column("findings", Text, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("submitted_at", UtcDateTime),
    Column("decided_at", UtcDateTime),
    Column("decided_by", String),
    Column("reason", Text),
)
"""Suggested questions (`bot.domain.suggestion`)."""
DRAFT = suggestions.c.status == literal_column("'draft'")
Index(
    "uq_suggestions_draft",
    suggestions.c.server_id,
    suggestions.c.author_id,
    unique=True,
    sqlite_where=DRAFT,
    postgresql_where=DRAFT,
)
"""One draft per author and server: saving again replaces it."""
Index(
    "ix_suggestions_queue",
    suggestions.c.server_id,
    suggestions.c.status,
    suggestions.c.submitted_at,
)
S = suggestions.c


def _texts(draft: Draft) -> dict[str, str]:
    return {
        "locale": draft.locale,
        "question": draft.question,
        "right_answer": draft.right,
        "wrong": "\n".join(draft.wrong),
        "explanation": draft.explanation,
        "whys": "\n".join(draft.whys),
    }


def _findings(found: Sequence[Finding]) -> str:
    return json.dumps([[f.name, f.detail] for f in found], ensure_ascii=False)


def suggestion_of(row: AnyRow) -> Suggestion:
    draft = Draft(
        question=row.question,
        right=row.right_answer,
        wrong=tuple(row.wrong.split("\n")) if row.wrong else (),
        explanation=row.explanation,
        whys=tuple(row.whys.split("\n")) if row.whys else (),
        locale=row.locale,
    )
    return Suggestion(
        id=int(row.id),
        server_id=row.server_id,
        author_id=row.author_id,
        author_name=row.author_name,
        draft=draft,
        status=Status(row.status),
        created_at=row.created_at,
        submitted_at=row.submitted_at,
        decided_at=row.decided_at,
        decided_by=row.decided_by,
        reason=row.reason,
    )


class SqlSuggestions(SqlAggregate, Suggestions):
    def __init__(self, store: SqlAggregate) -> None:
        self._tx: Transactions = store._tx
        self._sql = store._sql

    async def _rows(self, stmt: object) -> list[Suggestion]:
        return [suggestion_of(r) for r in await self._all(stmt)]  # type: ignore[arg-type]

    async def save_draft(
        self, server_id: str, author_id: str, author_name: str, draft: Draft, at: datetime
    ) -> Suggestion:
        texts = {**_texts(draft), "author_name": author_name, "updated_at": at}
        stmt = self._sql.insert(suggestions).values(
            server_id=server_id,
            author_id=author_id,
            status=Status.DRAFT.value,
            findings="[]",
            created_at=at,
            **texts,
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=[S.server_id, S.author_id], index_where=DRAFT, set_=texts
        )
        row = await self._one(stmt.returning(*suggestions.c), write=True)
        assert row is not None
        return suggestion_of(row)

    async def draft_of(self, server_id: str, author_id: str) -> Suggestion | None:
        row = await self._one(
            select(suggestions).where(S.server_id == server_id, S.author_id == author_id, DRAFT)
        )
        return None if row is None else suggestion_of(row)

    async def suggestion(self, suggestion_id: int) -> Suggestion | None:
        row = await self._one(select(suggestions).where(S.id == suggestion_id))
        return None if row is None else suggestion_of(row)

    async def rewrite(
        self, suggestion_id: int, draft: Draft, findings: Sequence[Finding], at: datetime
    ) -> Suggestion | None:
        stmt = (
            update(suggestions)
            .where(S.id == suggestion_id, S.status == Status.WAITING.value)
            .values(**_texts(draft), findings=_findings(findings), updated_at=at)
            .returning(*suggestions.c)
        )
        row = await self._one(stmt, write=True)
        return None if row is None else suggestion_of(row)

    async def send(
        self,
        suggestion_id: int,
        author_id: str,
        findings: Sequence[Finding],
        at: datetime,
        day_start: datetime,
        per_day: int,
        cap: int,
    ) -> Sent:
        def run(conn: Connection) -> Sent:
            row = conn.execute(
                select(S.server_id).where(S.id == suggestion_id, S.author_id == author_id, DRAFT)
            ).first()
            if row is None:
                return Sent.GONE
            server_id = row.server_id
            today = conn.scalar(
                select(func.count()).where(
                    S.server_id == server_id,
                    S.author_id == author_id,
                    S.submitted_at >= day_start,
                )
            )
            if (today or 0) >= per_day:
                return Sent.DAY_FULL
            waiting = conn.scalar(
                select(func.count()).where(
                    S.server_id == server_id, S.status == Status.WAITING.value
                )
            )
            if (waiting or 0) >= cap:
                return Sent.QUEUE_FULL
            done = conn.execute(
                update(suggestions)
                .where(S.id == suggestion_id, DRAFT)
                .values(
                    status=Status.WAITING.value,
                    findings=_findings(findings),
                    submitted_at=at,
                    updated_at=at,
                )
            )
            return Sent.SENT if done.rowcount else Sent.GONE

        return await self._tx.write(run)

    async def findings(self, suggestion_id: int) -> Sequence[Finding]:
        said = await self._scalar(select(S.findings).where(S.id == suggestion_id))
        return [Finding(name, detail) for name, detail in json.loads(said or "[]")]

    async def waiting(self, server_id: str, limit: int) -> Sequence[Suggestion]:
        return await self._rows(
            select(suggestions)
            .where(S.server_id == server_id, S.status == Status.WAITING.value)
            .order_by(S.submitted_at, S.id)
            .limit(limit)
        )

    async def waiting_count(self, server_id: str) -> int:
        count = await self._scalar(
            select(func.count()).where(S.server_id == server_id, S.status == Status.WAITING.value)
        )
        return int(count or 0)

    async def decide(
        self,
        suggestion_id: int,
        server_id: str,
        status: Status,
        by: str,
        reason: str | None,
        at: datetime,
    ) -> Suggestion | None:
        stmt = (
            update(suggestions)
            .where(
                S.id == suggestion_id,
                S.server_id == server_id,
                S.status == Status.WAITING.value,
            )
            .values(status=status.value, decided_by=by, reason=reason, decided_at=at, updated_at=at)
            .returning(*suggestions.c)
        )
        row = await self._one(stmt, write=True)
        return None if row is None else suggestion_of(row)

    async def approved(self) -> Sequence[Suggestion]:
        return await self._rows(
            select(suggestions)
            .where(S.status == Status.APPROVED.value)
            .order_by(S.server_id, S.decided_at, S.id)
        )

    async def approved_stamp(self) -> str:
        row = await self._one(
            select(func.count(), func.max(S.updated_at)).where(S.status == Status.APPROVED.value)
        )
        return "" if row is None else f"{row[0]}:{row[1]}"

    async def authored(self, server_id: str, author_id: str) -> Sequence[Suggestion]:
        return await self._rows(
            select(suggestions)
            .where(S.server_id == server_id, S.author_id == author_id)
            .order_by(S.created_at.desc(), S.id.desc())
        )

    async def forget_author(self, server_id: str, author_id: str, at: datetime) -> int:
        mine = and_(S.server_id == server_id, S.author_id == author_id)

        def run(conn: Connection) -> int:
            gone = conn.execute(
                delete(suggestions).where(mine, S.status != Status.APPROVED.value)
            ).rowcount
            kept = conn.execute(
                update(suggestions)
                .where(mine, S.status == Status.APPROVED.value)
                .values(author_id=None, author_name=None, updated_at=at)
            ).rowcount
            return int(gone or 0) + int(kept or 0)

        return await self._tx.write(run)
