"""The storage port of the suggestions service: all it asks of a database, and no more.

One method, one transaction. A suggestion moves on (sent, approved, rejected) by an UPDATE
that only one caller can win (`WHERE status = ...`): two admins clicking Approve at once
approve it once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from bot.domain.suggestion import Draft, Finding, Sent, Status, Suggestion


class Suggestions(Protocol):
    async def save_draft(
        self, server_id: str, author_id: str, author_name: str, draft: Draft, at: datetime
    ) -> Suggestion:
        """Keeps `draft` as the author's one draft in the server (replacing theirs)."""
        ...

    async def draft_of(self, server_id: str, author_id: str) -> Suggestion | None: ...

    async def suggestion(self, suggestion_id: int) -> Suggestion | None: ...

    async def rewrite(
        self, suggestion_id: int, draft: Draft, findings: Sequence[Finding], at: datetime
    ) -> Suggestion | None:
        """An admin's edit of a waiting suggestion; None if it waits no more."""
        ...

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
        """Moves the author's draft to the queue, unless they sent `per_day` since
        `day_start` or the server has `cap` waiting."""
        ...

    async def findings(self, suggestion_id: int) -> Sequence[Finding]:
        """What the lint found when it was sent (or last edited)."""
        ...

    async def waiting(self, server_id: str, limit: int) -> Sequence[Suggestion]:
        """The queue, oldest sent first."""
        ...

    async def waiting_count(self, server_id: str) -> int: ...

    async def decide(
        self,
        suggestion_id: int,
        server_id: str,
        status: Status,
        by: str,
        reason: str | None,
        at: datetime,
    ) -> Suggestion | None:
        """Approves or rejects a waiting suggestion of `server_id`; None if it waits no
        more (another admin decided first) or is another server's."""
        ...

    async def approved(self) -> Sequence[Suggestion]:
        """Every server's approved suggestions (their own decks are built of them)."""
        ...

    async def approved_stamp(self) -> str:
        """Changes whenever the approved suggestions do (a cheap poll for other processes)."""
        ...

    async def authored(self, server_id: str, author_id: str) -> Sequence[Suggestion]:
        """The person's suggestions in the server, newest first."""
        ...

    async def forget_author(self, server_id: str, author_id: str, at: datetime) -> int:
        """Deletes the person's drafts, waiting and rejected suggestions, and takes their
        name off the approved ones (which stay, uncredited); how many were touched."""
        ...
