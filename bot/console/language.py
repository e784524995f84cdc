"""The terminal quiz's language: `--locale` (saved for next time), else the language saved
for that player, else the system's (LC_ALL, LC_MESSAGES, LANG), else the deck's first.

A chat user's language comes from their settings; a terminal's comes from its environment.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping


def system_locale(env: Mapping[str, str]) -> str | None:
    """The language the environment asks for, as POSIX decides it: the first of LC_ALL,
    LC_MESSAGES and LANG that is set and not empty. "bn_BD.UTF-8" is "bn"; C and POSIX name
    no language."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "").strip()
        if value:
            language = value.split(".")[0].split("@")[0].split("_")[0].split("-")[0].lower()
            return None if language in ("c", "posix") else language or None
    return None


def normal(locale: str | None) -> str | None:
    """`--locale EN`, ` en ` and `en` are the same request."""
    return locale.strip().lower() or None if locale is not None else None


def terminal_locale(
    offered: Collection[str],
    *,
    asked: str | None,
    saved: str | None,
    system: str | None,
    fallback: str,
) -> str:
    """The first of `asked`, `saved` and `system` that is `offered` (a deck's locales, or the
    bot's catalogs); else `fallback`."""
    for candidate in (asked, saved, system):
        if candidate is not None and candidate in offered:
            return candidate
    return fallback
