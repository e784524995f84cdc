"""A server's own deck as the database has it, for `quizbot export --server ID --deck team`."""

from __future__ import annotations

from bot.decks.model import Deck
from bot.domain.team_deck import team_deck
from bot.storage.sql import open_store
from bot.storage.suggestions import SqlSuggestions


async def stored_team_deck(
    url: str, server_id: str, locale: str | None = None
) -> tuple[Deck | None, list[str]]:
    """The deck of the server's approved suggestions (None: it has none), in `locale` alone
    if one is given, and a header for its file saying where it came from and who wrote each
    question."""
    store = await open_store(url)
    try:
        approved = await SqlSuggestions(store).approved()
    finally:
        await store.close()
    deck = team_deck(server_id, approved, locale)
    if deck is None:
        return None, []
    header = [
        f"The questions of {server_id} written and approved in chat (/quiz suggest),",
        "exported by quizbot export. Who wrote each:",
        *(
            f"- {q.id}: @{q.credit}" if q.credit else f"- {q.id}: uncredited"
            for q in deck.questions
        ),
    ]
    return deck, header


async def forget_suggestions(url: str, server_id: str, user_id: str) -> int:
    """`quizbot forget`: the person's drafts, waiting and rejected suggestions deleted, their
    name taken off the approved ones (which stay); how many were touched."""
    from datetime import UTC, datetime

    store = await open_store(url)
    try:
        return await SqlSuggestions(store).forget_author(server_id, user_id, datetime.now(UTC))
    finally:
        await store.close()
