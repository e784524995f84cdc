"""`quizbot export --deck ID --format F`: a loaded deck as GIFT, Moodle XML or CSV text.

Every explanation and why is kept. CSV holds every locale; GIFT and Moodle XML hold one, the
deck's first unless another is asked for.
"""

from __future__ import annotations

from bot.decks.formats.registry import EXPORT_FORMATS, FORMATS
from bot.decks.model import Deck


class ExportError(Exception):
    """The export cannot be made as asked (unknown format, a locale the deck lacks)."""


def export_deck(deck: Deck, fmt: str, locale: str | None = None) -> str:
    """The deck as the text of a `fmt` file; `locale` picks the language of GIFT and Moodle XML."""
    found = FORMATS.get(fmt)
    if found is None or found.write is None:
        raise ExportError(f"cannot export to '{fmt}'; use one of {', '.join(EXPORT_FORMATS)}")
    chosen = locale or deck.default_locale
    if chosen not in deck.locales:
        raise ExportError(
            f"deck {deck.id} has no locale '{chosen}' (it has {', '.join(deck.locales)})"
        )
    return found.write(deck, chosen)


def export_file_name(deck: Deck, fmt: str) -> str:
    """A file name for an export when none is given, e.g. model-pipeline-parallelism.gift."""
    found = FORMATS.get(fmt)
    suffix = found.suffix if found is not None else ".txt"
    return f"{deck.id}{suffix}"
