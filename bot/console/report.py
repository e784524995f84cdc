"""`quizbot report`: question health for deck authors, as a table in the terminal and, with
`--html FILE`, a page with pictures in the reader's language (`bot.console.language`'s rule:
`--locale`, else the reader's saved choice, else the system's when a deck has it, else
English)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from bot.config import Config
from bot.console.language import LOCAL_SERVER, help_words, normal, system_locale, terminal_locale
from bot.decks.lint import lint
from bot.decks.loading import load_decks
from bot.presentation.health_report import html, report_list, table, warning_list
from bot.presentation.locales import LOCALES, text
from bot.service.operations import Operations


def add_report_command(sub: Any, argv: Sequence[str], env: Mapping[str, str]) -> None:
    """`quizbot report`'s options, their help in the language the page would be in."""
    say = help_words(argv, env)
    report = sub.add_parser("report", help=say("health.help"), description=say("health.help"))
    report.add_argument("--deck", help=say("health.help_deck"))
    report.add_argument("--server", help=say("health.help_server"))
    report.add_argument("--html", help=say("health.help_html"))
    report.add_argument("--locale", help=say("health.help_locale"))
    report.add_argument("--config", help=say("play.help_config"))


@dataclass(frozen=True)
class ReportRequest:
    deck: str | None
    server: str | None
    html: Path | None
    locale: str | None
    reader: str
    """Who reads it (the login name): their saved `quizbot play --locale` counts."""

    @classmethod
    def of(cls, args: Any, reader: str) -> ReportRequest:
        """From `quizbot report`'s parsed options."""
        html = Path(args.html) if args.html else None
        return cls(args.deck, args.server, html, args.locale, reader)


async def report(
    config: Config,
    ops: Operations,
    asked: ReportRequest,
    env: Mapping[str, str],
    out: TextIO,
    err: TextIO,
) -> int:
    """Prints the table (and writes the page); an unknown deck or language is one line."""
    loaded = load_decks(config.question_paths, config.shipped_decks)
    decks = {d.id: d for d in loaded.decks}
    if asked.deck is not None and asked.deck not in decks:
        err.write(f"no deck {asked.deck!r}; the decks are: {', '.join(sorted(decks))}\n")
        return 1
    chosen = [decks[asked.deck]] if asked.deck else sorted(decks.values(), key=lambda d: d.id)
    offered = [loc for loc in dict.fromkeys(loc for d in chosen for loc in d.locales)]
    saved = await ops.saved_locale(LOCAL_SERVER, asked.reader)
    system = system_locale(env)
    wanted = normal(asked.locale)
    if wanted is not None and wanted not in offered:
        said = terminal_locale(
            [loc for loc in LOCALES if loc in offered] or LOCALES,
            asked=None,
            saved=saved,
            system=system,
        )
        line = text(said, "play.unknown_locale", locale=asked.locale, locales=", ".join(offered))
        err.write(line + "\n")
        return 2
    page_locale = terminal_locale(
        [loc for loc in LOCALES if loc in offered] or LOCALES,
        asked=wanted,
        saved=saved,
        system=system,
    )
    rows, reports = await ops.question_health(chosen, asked.server, asked.deck)
    warnings = [w for d in chosen for w in lint(d, loaded.places[d.id])]
    out.write(table(rows, decks) + "\n")
    if warnings:
        out.write("\n" + warning_list(warnings) + "\n")
    if reports:
        out.write("\n" + report_list(reports) + "\n")
    if asked.html is not None:
        made = datetime.now(UTC)
        page = html(
            rows,
            decks,
            page_locale,
            reports,
            server=asked.server,
            made=made,
            warnings=warnings,
        )
        asked.html.write_text(page, encoding="utf-8")
        out.write(
            f"{asked.html}: the report with a map of each deck and a chart per question "
            f"(in {page_locale}; --locale chooses)\n"
        )
    return 0
