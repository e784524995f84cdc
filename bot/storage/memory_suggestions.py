"""`Suggestions` in memory: for a store that is not SQL (tests, `quizbot play`), held to the
same contract as `SqlSuggestions` by tests/storage/test_suggestions_store.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from bot.domain.suggestion import Draft, Finding, Sent, Status, Suggestion
from bot.service.suggestion_port import Suggestions


class MemorySuggestions(Suggestions):
    def __init__(self) -> None:
        self._rows: dict[int, Suggestion] = {}
        self._findings: dict[int, list[Finding]] = {}
        self._updated: dict[int, datetime] = {}
        self._next = 1

    def _put(self, found: Suggestion, at: datetime) -> Suggestion:
        self._rows[found.id] = found
        self._updated[found.id] = at
        return found

    async def save_draft(
        self, server_id: str, author_id: str, author_name: str, draft: Draft, at: datetime
    ) -> Suggestion:
        mine = await self.draft_of(server_id, author_id)
        if mine is not None:
            return self._put(replace(mine, draft=draft, author_name=author_name), at)
        made = Suggestion(self._next, server_id, author_id, author_name, draft, Status.DRAFT, at)
        self._next += 1
        return self._put(made, at)

    async def draft_of(self, server_id: str, author_id: str) -> Suggestion | None:
        return next(
            (
                s
                for s in self._rows.values()
                if (s.server_id, s.author_id, s.status) == (server_id, author_id, Status.DRAFT)
            ),
            None,
        )

    async def suggestion(self, suggestion_id: int) -> Suggestion | None:
        return self._rows.get(suggestion_id)

    async def rewrite(
        self, suggestion_id: int, draft: Draft, findings: Sequence[Finding], at: datetime
    ) -> Suggestion | None:
        found = self._rows.get(suggestion_id)
        if found is None or found.status is not Status.WAITING:
            return None
        self._findings[suggestion_id] = list(findings)
        return self._put(replace(found, draft=draft), at)

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
        found = self._rows.get(suggestion_id)
        if found is None or found.author_id != author_id or found.status is not Status.DRAFT:
            return Sent.GONE
        rows = [s for s in self._rows.values() if s.server_id == found.server_id]
        today = [
            s
            for s in rows
            if s.author_id == author_id and s.submitted_at and s.submitted_at >= day_start
        ]
        if len(today) >= per_day:
            return Sent.DAY_FULL
        if sum(1 for s in rows if s.status is Status.WAITING) >= cap:
            return Sent.QUEUE_FULL
        self._findings[suggestion_id] = list(findings)
        self._put(replace(found, status=Status.WAITING, submitted_at=at), at)
        return Sent.SENT

    async def findings(self, suggestion_id: int) -> Sequence[Finding]:
        return list(self._findings.get(suggestion_id, []))

    async def waiting(self, server_id: str, limit: int) -> Sequence[Suggestion]:
        found = [
            s
            for s in self._rows.values()
            if s.server_id == server_id and s.status is Status.WAITING
        ]
        return sorted(found, key=lambda s: (s.submitted_at or s.created_at, s.id))[:limit]

    async def waiting_count(self, server_id: str) -> int:
        return len(await self.waiting(server_id, len(self._rows)))

    async def decide(
        self,
        suggestion_id: int,
        server_id: str,
        status: Status,
        by: str,
        reason: str | None,
        at: datetime,
    ) -> Suggestion | None:
        found = self._rows.get(suggestion_id)
        if found is None or found.server_id != server_id or found.status is not Status.WAITING:
            return None
        done = replace(found, status=status, decided_by=by, reason=reason, decided_at=at)
        return self._put(done, at)

    async def approved(self) -> Sequence[Suggestion]:
        found = [s for s in self._rows.values() if s.status is Status.APPROVED]
        return sorted(found, key=lambda s: (s.server_id, s.decided_at or s.created_at, s.id))

    async def approved_stamp(self) -> str:
        approved = await self.approved()
        return f"{len(approved)}:{max((self._updated[s.id] for s in approved), default=None)}"

    async def authored(self, server_id: str, author_id: str) -> Sequence[Suggestion]:
        found = [
            s for s in self._rows.values() if (s.server_id, s.author_id) == (server_id, author_id)
        ]
        return sorted(found, key=lambda s: (s.created_at, s.id), reverse=True)

    async def forget_author(self, server_id: str, author_id: str, at: datetime) -> int:
        mine = await self.authored(server_id, author_id)
        for s in mine:
            if s.status is Status.APPROVED:
                self._put(replace(s, author_id=None, author_name=None), at)
            else:
                del self._rows[s.id]
        return len(mine)
