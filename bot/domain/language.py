"""Which language a reply is in: one precedence, for deck text and the bot's own words."""

from __future__ import annotations

from collections.abc import Collection


def language(
    offered: Collection[str],
    *,
    platform: str | None,
    mine: str | None,
    server: str | None,
    fallback: str,
) -> str:
    """The first of: the language the platform says the person uses (Discord sends it), the
    person's own setting (`/quiz language`), the server's; one that is `offered` (a deck's
    locales, or the bot's catalogs). Else `fallback` (English when offered, else the deck's
    first locale: `Deck.fallback_locale`)."""
    for candidate in (platform, mine, server):
        if candidate is not None and candidate in offered:
            return candidate
    return fallback
