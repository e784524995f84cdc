"""Slugs: question ids, deck ids and tags made from titles and texts of other formats.

Ids are stable forever once a deck is in use, so they come from what an author wrote and never
from a question's place in the file. A title (GIFT `::title::`, Moodle `<name>`, a JSON `id`)
or a text in Latin letters gives readable lowercase ASCII words and dashes, as it always has. A
text written in another script (a fifth of its letters or more, as for the deck's language) has
no such words, so its id is `q-` and ten hex digits of a SHA-256 of what the question says: its
text and its choices, compared without case, spacing or Unicode form differences. Reordering the
file or importing it again gives every question the id it had.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

from bot.decks.format import ID_PATTERN, MAX_ID_LENGTH

_APOSTROPHES = re.compile("['\u2019\u2018`]")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
TEXT_ID_CHARS = 48
"""An id made from a question's text keeps its first words, up to this length."""
OTHER_SCRIPT_SHARE = 0.2
"""A text whose letters are this much or more outside Latin gets a content id, not a slug."""
HASH_DIGITS = 10
"""40 bits: two different questions of one deck share an id about once in 10^12 pairs."""


def slugify(text: str, *, words: int | None = None, limit: int = MAX_ID_LENGTH) -> str:
    """Lowercase ASCII words joined by '-', at most `limit` characters, cut between words.

    Accents are dropped (café -> cafe); scripts without an ASCII form (Bengali, Chinese) give
    an empty slug, and the caller picks a fallback.
    """
    ascii_text = _ascii(text)
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


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def in_other_script(text: str) -> bool:
    """Whether a fifth or more of `text`'s letters have no Latin form (Bengali, Thai, Cyrillic)."""
    letters = sum(1 for char in text if char.isalpha())
    if not letters:
        return False
    latin = sum(1 for char in _ascii(text) if char.isalpha())
    return letters - min(latin, letters) >= OTHER_SCRIPT_SHARE * letters


def content_id(text: str, choices: Iterable[str] = ()) -> str:
    """`q-` and ten hex digits of what a question says, the same for the same words in any order
    of its choices, whatever its case, spacing or Unicode normal form."""
    parts = [_canonical(text), *sorted(_canonical(choice) for choice in choices)]
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return f"q-{digest[:HASH_DIGITS]}"


def _canonical(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


class IdMaker:
    """Unique question ids for one deck: a slug or content id, then -2, -3... on repeats."""

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._last_suffix: dict[str, int] = {}
        """Per base, the suffix last given: every smaller one is taken, so the next search
        starts after it (a file of 50,000 questions that start alike stays linear)."""

    def make(self, name: str, text: str, choices: Iterable[str] = ()) -> str:
        """An id from `name` (kept as it is when it is already a valid id), else from `text`.

        A name or text in another script gives a content id: of the name alone (the author's
        title names the question), else of the text and `choices`.
        """
        name = name.strip()
        if ID_PATTERN.fullmatch(name) and len(name) <= MAX_ID_LENGTH and not name.isdigit():
            base = name
        elif name:
            base = content_id(name) if in_other_script(name) else slugify(name)
            base = base or content_id(name)
        else:
            slug = "" if in_other_script(text) else slugify(text, limit=TEXT_ID_CHARS)
            base = slug or content_id(text, choices)
        if base.isdigit():
            base = f"q-{base}"  # `post DECK 3` reads digits as a position
        candidate, suffix = base, self._last_suffix.get(base, 1)
        while candidate in self._taken:
            suffix += 1
            ending = f"-{suffix}"
            candidate = base[: MAX_ID_LENGTH - len(ending)].rstrip("-") + ending
        self._last_suffix[base] = suffix
        self._taken.add(candidate)
        return candidate
