"""Slugs: question ids, deck ids and tags made from titles and texts of other formats.

Ids are stable forever once a deck is in use, so they come from what an author wrote (a GIFT
title, a Moodle name) when there is one, and stay readable: lowercase ASCII words and dashes.
"""

from __future__ import annotations

import re
import unicodedata

from bot.decks.format import ID_PATTERN, MAX_ID_LENGTH

_APOSTROPHES = re.compile("['\u2019\u2018`]")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
TEXT_ID_CHARS = 48
"""An id made from a question's text keeps its first words, up to this length."""


def slugify(text: str, *, words: int | None = None, limit: int = MAX_ID_LENGTH) -> str:
    """Lowercase ASCII words joined by '-', at most `limit` characters, cut between words.

    Accents are dropped (café -> cafe); scripts without an ASCII form (Bengali, Chinese) give
    an empty slug, and the caller picks a fallback.
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    parts = [part for part in _NOT_ALNUM.split(_APOSTROPHES.sub("", ascii_text.lower())) if part]
    if words is not None:
        parts = parts[:words]
    slug = ""
    for part in parts:
        candidate = f"{slug}-{part}" if slug else part
        if len(candidate) > limit:
            return slug or part[:limit]
        slug = candidate
    return slug


class IdMaker:
    """Unique question ids for one deck: a slug of the name or text, then -2, -3... on repeats."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def make(self, name: str, text: str, position: int) -> str:
        """An id from `name` (kept as it is when it is already a valid id), else from `text`."""
        name = name.strip()
        if ID_PATTERN.fullmatch(name) and len(name) <= MAX_ID_LENGTH and not name.isdigit():
            base = name
        else:
            base = slugify(name) if name else slugify(text, limit=TEXT_ID_CHARS)
        if not base:
            base = f"question-{position}"
        elif base.isdigit():
            base = f"q-{base}"  # `post DECK 3` reads digits as a position
        candidate, suffix = base, 1
        while candidate in self._taken:
            suffix += 1
            ending = f"-{suffix}"
            candidate = base[: MAX_ID_LENGTH - len(ending)].rstrip("-") + ending
        self._taken.add(candidate)
        return candidate
