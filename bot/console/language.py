"""The language of everything the command line says (the terminal quiz, `--help`, refusals,
`quizbot report --html`): `--locale`, else the reader's saved choice, else the system's
(LC_ALL, LC_MESSAGES, LANG) when it is one on offer, else English.

A chat user's language comes from their settings; a terminal's from its environment. A system
with no language set (C, POSIX, nothing: Docker's images, CI) or one no deck has (German, French)
gets English, the language a newcomer is most likely to read, with a line saying how to switch.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

LOCAL_SERVER = "local"
"""The terminal's one server: where `quizbot play` keeps a reader's answers and saved language
(`quizbot report` reads that language from it)."""
ENGLISH = "en"
NAMES = {"en": "English", "bn": "Bengali"}
"""Languages named in English, for the line that says how to switch."""


def language(value: str | None) -> str | None:
    """The language a locale name names: "en_US.UTF-8", "en-US", "EN" and " en " are "en";
    "bn_BD.UTF-8" is "bn". Empty is None."""
    if value is None:
        return None
    head = value.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0]
    return head.lower() or None


def system_locale(env: Mapping[str, str]) -> str | None:
    """The language the environment asks for, as POSIX decides it: the first of LC_ALL,
    LC_MESSAGES and LANG that is set and not empty. C and POSIX name no language."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "").strip()
        if value:
            named = language(value)
            return None if named in ("c", "posix") else named
    return None


def normal(locale: str | None) -> str | None:
    """`--locale EN`, `en_US`, `en-US` and ` en ` are the same request: "en"."""
    return language(locale)


def terminal_locale(
    offered: Collection[str],
    *,
    asked: str | None,
    saved: str | None,
    system: str | None,
    fallback: str | None = None,
) -> str:
    """The first of `asked`, `saved` and `system` that is `offered` (a deck's locales, or the
    catalogs'); else `fallback` when given; else English when offered; else the first offered."""
    for candidate in (asked, saved, system):
        if candidate is not None and candidate in offered:
            return candidate
    if fallback is not None:
        return fallback
    return ENGLISH if ENGLISH in offered or not offered else next(iter(offered))


def switch_hint(chosen: str, offered: Sequence[str]) -> str | None:
    """One line, always in English, saying which language this is and how to play in the
    others (`quizbot play --locale bn`); None when there is no other."""
    others = [loc for loc in offered if loc != chosen]
    if not others:
        return None
    ways = "; ".join(f"for {NAMES.get(loc, loc)}: quizbot play --locale {loc}" for loc in others)
    return f"Language: {NAMES.get(chosen, chosen)} ({ways})"


def asked_in(argv: Sequence[str]) -> str | None:
    """`--locale X` or `--locale=X` in a command line not yet parsed (for `--help`, which
    argparse prints while parsing)."""
    for i, arg in enumerate(argv):
        if arg == "--locale" and i + 1 < len(argv):
            return normal(argv[i + 1])
        if arg.startswith("--locale="):
            return normal(arg.split("=", 1)[1])
    return None


def help_words(argv: Sequence[str], env: Mapping[str, str]) -> Callable[[str], str]:
    """A command's `--help` in the language its output would speak: `--locale` when the
    command line has it, else the system's when the catalogs have it, else English (the
    saved choice needs the database, which `--help` does not open)."""
    from bot.presentation.locales import LOCALES, text

    locale = terminal_locale(LOCALES, asked=asked_in(argv), saved=None, system=system_locale(env))
    return lambda key: text(locale, key)
