"""`/quiz decks` and `deck default`: the loaded decks, and which one a command that names
none uses, with where that comes from (set here, the config's, or the first by id)."""

from __future__ import annotations

from bot.decks.model import Deck, pick
from bot.domain.default_deck import DeckList, DefaultDeck, DefaultView
from bot.presentation.locales import language_name, text
from bot.presentation.messages import BoardMessage

SOURCE_SHOWN = 200
"""Characters of a deck's `source` that `/quiz decks` shows; a long reference list is cut."""

HOW = "deck_default.how"
"""How an admin changes the default, in Slack's syntax (`/quiz deck default`); Discord
passes its own (`discord.deck_default_how`)."""


def decks_message(listing: DeckList, how: str = HOW) -> BoardMessage:
    """Every deck, the default marked; under them, the default and where it comes from (a
    default set here that is no longer loaded is said too), and how an admin changes it."""
    locale, default = listing.locale, listing.default
    if not listing.decks or default is None:
        return BoardMessage(text(locale, "decks.title"), [text(locale, "decks.none")], None)
    lines = [_deck_line(d, locale, d.id == default.deck.id) for d in listing.decks]
    note = "\n".join([*default_lines(default, locale), text(locale, how)])
    return BoardMessage(text(locale, "decks.title"), lines, note)


def _deck_line(d: Deck, locale: str, default: bool) -> str:
    line = text(
        locale,
        "decks.line",
        id=d.id,
        title=pick(d.title, locale),
        count=len(d),
        locales=", ".join(language_name(loc) for loc in d.locales),
    )
    if default:
        line += text(locale, "decks.default_mark")
    if d.origin:
        cut = d.origin if len(d.origin) <= SOURCE_SHOWN else d.origin[:SOURCE_SHOWN] + "…"
        line += "\n    " + text(locale, "decks.source", source=cut)
    if d.license:
        line += ("\n    " if not d.origin else " · ") + text(
            locale, "decks.license", license=d.license
        )
    return line


def default_lines(default: DefaultDeck, locale: str) -> list[str]:
    """Which deck is the default and why; and the default set here, if it is not loaded."""
    lines = [text(locale, f"deck_default.{default.source.value}", deck=default.deck.id)]
    if default.unloaded is not None:
        lines.append(text(locale, "deck_default.unloaded", deck=default.unloaded))
    return lines


def default_deck_text(view: DefaultView, how: str = HOW) -> str:
    """The reply to `deck default [DECK|none]`: what changed, if anything, then the default."""
    locale = view.locale
    said = [] if view.change is None else [text(locale, f"deck_default.{view.change.value}")]
    said += default_lines(view.default, locale)
    if view.change is None:
        said.append(text(locale, how))
    return "\n".join(said)
