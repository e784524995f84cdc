"""Who is asking: the adapter fills this in from the platform request."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Actor:
    server_id: str
    """Namespaced server id: "slack:T123", "discord:1234" or "local"."""
    user_id: str
    is_admin: bool = False
    """Decided by the adapter from the platform (Manage Server; workspace admin/owner)."""
    locale: str | None = None
    """A language asked for in this request only (`quizbot play --locale`, a language button)."""
