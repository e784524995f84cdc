"""The `quizbot` command: play, validate, run, db upgrade, schema, discord sync/invite.

Every failure a person can fix prints one clear message and a non-zero exit status;
a traceback means a bug.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import logging
import os
import shutil
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot import __version__
from bot.config import Config, ConfigError, SetupError, load_config

if TYPE_CHECKING:
    from bot.domain.health import Try
    from bot.domain.problems import ProblemReport

log = logging.getLogger("quizbot")
DRAIN_SECONDS = 10.0


async def drain(seconds: float) -> None:
    """Waits for work still in flight (a click acknowledged but not yet answered)."""
    others = {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}
    if others:
        _, late = await asyncio.wait(others, timeout=seconds)
        if late:
            log.warning("%d tasks still running after %ss; stopping them", len(late), seconds)


def _play_help() -> Callable[[str], str]:
    """`quizbot play --help` in the system's language (LC_ALL, LC_MESSAGES, LANG), as the
    terminal quiz itself speaks it before a player has chosen one."""
    from bot.console.language import system_locale
    from bot.presentation.locales import LOCALES, text

    system = system_locale(os.environ)
    locale = system if system in LOCALES else "en"
    return lambda key: text(locale, f"play.{key}")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="quizbot", description="A quiz bot for team channels.")
    p.add_argument("--version", action="version", version=f"quizbot {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    say = _play_help()
    play = sub.add_parser("play", help=say("help_play"), description=say("help_play"))
    play.add_argument("--deck", help=say("help_deck"))
    play.add_argument("--locale", help=say("help_locale"))
    play.add_argument("--user", help=say("help_user"))
    play.add_argument("--review", action="store_true", help=say("help_review"))
    play.add_argument("--topic", help=say("help_topic"))
    play.add_argument("--config", help=say("help_config"))

    validate = sub.add_parser("validate", help="check deck files")
    validate.add_argument("paths", nargs="*", help="files or folders (default: configured paths)")
    validate.add_argument(
        "--strict", action="store_true", help="fail (exit 1) on warnings too, not only problems"
    )
    validate.add_argument("--config", help="config file")

    run = sub.add_parser("run", help="run every platform the config enables")
    run.add_argument("--config", help="config file")
    run.add_argument("--log-level", default="INFO", help="DEBUG, INFO, WARNING or ERROR")

    db = sub.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", metavar="ACTION")
    upgrade = db_sub.add_parser("upgrade", help="apply migrations")
    upgrade.add_argument("--config", help="config file")

    sub.add_parser("schema", help="print the JSON Schema of a deck file")

    export = sub.add_parser(
        "export", help="write a server's answers and leaderboards as CSV, or a deck as a file"
    )
    what = export.add_mutually_exclusive_group(required=True)
    what.add_argument("--server", help='server id, e.g. "slack:T0123", "local"')
    what.add_argument("--deck", help="deck id, e.g. distributed-training")
    export.add_argument("--format", help="with --deck: gift, moodle-xml or csv")
    export.add_argument("--locale", help="with --deck: the language of a GIFT or Moodle XML file")
    export.add_argument(
        "--out",
        help="--server: folder for the CSV files (default: here); "
        "--deck: file or folder (default: DECK.SUFFIX here; - for standard output)",
    )
    export.add_argument("--config", help="config file")

    report = sub.add_parser("report", help="question health for deck authors")
    report.add_argument("--deck", help="one deck (default: every deck)")
    report.add_argument("--server", help='one server, e.g. "slack:T0123" (default: all)')
    report.add_argument("--html", help="also write the report, with charts, to this file")
    report.add_argument("--locale", help="the language of the questions in the HTML")
    report.add_argument("--config", help="config file")

    forget = sub.add_parser(
        "forget", help="delete everything kept about one user in one server (privacy)"
    )
    forget.add_argument("--server", required=True, help='server id, e.g. "slack:T0123"')
    forget.add_argument("--user", required=True, help='user id, e.g. "U0456" (Discord: digits)')
    forget.add_argument("--config", help="config file")

    imp = sub.add_parser("import", help="turn another quiz tool's file into a deck")
    imp.add_argument(
        "file",
        help="GIFT, Moodle XML, Aiken, Open Trivia DB, CSV, Kahoot, quiz JSON, Red trivia list, "
        "Moodle CSV or Bengali exam text",
    )
    imp.add_argument(
        "--format",
        help="gift, moodle-xml, aiken, opentdb, csv, kahoot, json, red, moodle-csv or bn-mcq "
        "(guessed from the content)",
    )
    imp.add_argument("--out", help="deck file to write (default: questions/ID.yaml)")
    imp.add_argument("--locale", help="the file's language (default: from its script, else en)")
    imp.add_argument("--id", dest="deck_id", help="deck id (default: from the file name)")
    imp.add_argument(
        "--split",
        type=int,
        metavar="N",
        help="N questions per deck (decks ID-1, ID-2...); a file too big for one deck is "
        "split without it",
    )
    imp.add_argument("--config", help="config file")

    discord = sub.add_parser("discord", help="Discord set-up")
    d_sub = discord.add_subparsers(dest="discord_command", metavar="ACTION")
    sync = d_sub.add_parser("sync", help="register the slash commands with Discord")
    sync.add_argument("--guild", type=int, help="sync to one guild (instant) instead of globally")
    sync.add_argument("--config", help="config file")
    invite = d_sub.add_parser("invite", help="print the URL that adds the bot to a server")
    invite.add_argument("--config", help="config file")
    return p


def _validate(config: Config, paths: Sequence[str], strict: bool = False) -> int:
    """Problems (the deck cannot load) fail; warnings (it teaches less) fail only if strict."""
    from bot.decks.lint import lint
    from bot.decks.loading import load_decks

    if paths:
        report = load_decks([Path(p) for p in paths])
    else:
        report = load_decks(config.question_paths, config.shipped_decks)
    for problem in report.problems:
        print(problem)
    warnings = [w for deck in report.decks for w in lint(deck, report.places[deck.id])]
    for warning in warnings:
        print(warning)
    if not report.ok:
        return 1
    print(report.summary(len(warnings)))
    return 1 if strict and warnings else 0


async def _play(config: Config, args: argparse.Namespace) -> int:
    from bot.bootstrap import build_app
    from bot.console.language import system_locale
    from bot.console.play import Terminal, play

    app = await build_app(config)
    try:
        columns = shutil.get_terminal_size().columns  # $COLUMNS, the terminal, else 80
        term = Terminal(
            sys.stdin, sys.stdout, sys.stderr, sys.stdin.isatty(), width=max(20, columns - 1)
        )
        user = args.user or getpass.getuser() or "player"
        return await play(
            app.quiz,
            term,
            user,
            args.deck,
            args.locale,
            review=args.review,
            topic=args.topic,
            system_locale=system_locale(os.environ),
        )
    finally:
        await app.close()


async def _run(config: Config) -> int:
    from bot.bootstrap import NothingToRun, build_app, check_platforms, run_platforms, settle_heap

    try:
        check_platforms(config)  # before migrations, so a missing token is said first
    except NothingToRun as e:
        print(e, file=sys.stderr)
        return 1
    app = await build_app(config)
    settle_heap()
    runner = asyncio.create_task(run_platforms(app))
    stopping = asyncio.Event()

    def stop() -> None:
        if not stopping.is_set():
            log.info("stopping: finishing in-flight work", extra={"event": "stopping"})
            stopping.set()
            runner.cancel()

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    try:
        await runner
    except asyncio.CancelledError:
        if not stopping.is_set():
            raise
    finally:
        await drain(DRAIN_SECONDS)
        await app.close()
    log.info("stopped", extra={"event": "stopped"})
    return 0


async def _upgrade(config: Config) -> int:
    from bot.storage.engine import CannotWrite, upgrade
    from bot.storage.url import database_url

    try:
        await upgrade(database_url(config.database_url, config.base_dir))
    except CannotWrite as e:  # read-only, full, locked, unreachable: not "up to date"
        print(f"cannot upgrade: {e}", file=sys.stderr)
        return 1
    print("database is up to date")
    return 0


async def _export(config: Config, server_id: str, out: Path) -> int:
    from bot.storage.export import export_server
    from bot.storage.url import database_url

    written = await export_server(
        database_url(config.database_url, config.base_dir), server_id, out
    )
    if not written:
        print(
            f"nothing stored for server {server_id!r}: no answers, reviews or problem reports; "
            "no files written (a Slack server is slack:T..., a Discord one discord:<guild id>, "
            "the terminal's local)",
            file=sys.stderr,
        )
        return 1
    for path, rows in written.items():
        print(f"{path}: {rows} rows")
    return 0


async def _answer_log(
    config: Config, server: str | None, deck: str | None
) -> tuple[list[Try], list[ProblemReport]]:
    from bot.storage import open_store
    from bot.storage.url import database_url

    store = await open_store(database_url(config.database_url, config.base_dir))
    try:
        log = list(await store.answer_log(server, deck))
        return log, list(await store.problem_reports(server, deck))
    finally:
        await store.close()


def _report(config: Config, args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from bot.decks.lint import lint
    from bot.decks.loading import load_decks
    from bot.domain.health import health
    from bot.presentation.health_report import html, report_list, table, warning_list

    loaded = load_decks(config.question_paths, config.shipped_decks)
    decks = {d.id: d for d in loaded.decks}
    if args.deck is not None and args.deck not in decks:
        print(f"no deck {args.deck!r}; the decks are: {', '.join(sorted(decks))}", file=sys.stderr)
        return 1
    chosen = [decks[args.deck]] if args.deck else sorted(decks.values(), key=lambda d: d.id)
    log, reports = asyncio.run(_answer_log(config, args.server, args.deck))
    questions = {(d.id, q.id): (len(q.choices), q.answer) for d in chosen for q in d.questions}
    rows = health(log, questions, [(r.deck_id, r.question_id) for r in reports])
    warnings = [w for d in chosen for w in lint(d, loaded.places[d.id])]
    print(table(rows, decks))
    if warnings:
        print()
        print(warning_list(warnings))
    if reports:
        print()
        print(report_list(reports))
    if args.html:
        made = datetime.now(UTC)
        page = html(
            rows, decks, args.locale, reports, server=args.server, made=made, warnings=warnings
        )
        Path(args.html).write_text(page, encoding="utf-8")
        print(f"{args.html}: the report with a chart per question")
    return 0


async def _forget(config: Config, server_id: str, user_id: str) -> int:
    from bot.storage import open_store
    from bot.storage.url import database_url

    store = await open_store(database_url(config.database_url, config.base_dir))
    try:
        answers = await store.forget_user(server_id, user_id)
    finally:
        await store.close()
    print(
        f"forgot {user_id} in {server_id}: {answers} answers, and their runs, points, "
        f"first meetings and settings, deleted"
    )
    return 0


def _import(config: Config, args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from bot.decks.formats import import_file

    folders = [path for path in config.question_paths if path.is_dir()]
    outcome = import_file(
        Path(args.file),
        fmt=args.format,
        out=Path(args.out) if args.out else None,
        locale=args.locale,
        deck_id=args.deck_id,
        today=datetime.now(UTC).date(),
        questions_dir=folders[0] if folders else Path("questions"),
        split=args.split,
    )
    for line in outcome.lines:
        print(line, file=sys.stdout if outcome.status == 0 else sys.stderr)
    return outcome.status


def _export_deck(config: Config, args: argparse.Namespace) -> int:
    from bot.decks.formats import EXPORT_FORMATS, ExportError, export_deck, export_file_name
    from bot.decks.loading import load_decks

    if args.format is None:
        print(f"--deck needs --format {'|'.join(EXPORT_FORMATS)}", file=sys.stderr)
        return 2
    decks = {
        deck.id: deck for deck in load_decks(config.question_paths, config.shipped_decks).decks
    }
    deck = decks.get(args.deck)
    if deck is None:
        print(f"no deck {args.deck!r}; the decks are: {', '.join(sorted(decks))}", file=sys.stderr)
        return 1
    try:
        text = export_deck(deck, args.format, args.locale)
    except ExportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    out = Path(args.out or ".")
    if out.is_dir():
        out = out / export_file_name(deck, args.format)
    out.write_text(text, encoding="utf-8")
    print(f"{out}: {len(deck.questions)} questions of {deck.id} as {args.format}")
    return 0


async def _discord(config: Config, args: argparse.Namespace) -> int:
    if args.discord_command == "invite":
        from bot.discord.sync import application_id_from_token, invite_url

        token = config.secrets.discord_token
        if not token:
            print("Set DISCORD_TOKEN to print the invite URL.", file=sys.stderr)
            return 1
        print(invite_url(application_id_from_token(token)))
        return 0
    if args.discord_command == "sync":
        from bot.bootstrap import build_app
        from bot.discord.runner import sync_commands

        if not config.secrets.discord_token:
            print("Set DISCORD_TOKEN to sync the commands.", file=sys.stderr)
            return 1
        app = await build_app(config)
        try:
            print(await sync_commands(app, args.guild))
        finally:
            await app.close()
        return 0
    print("usage: quizbot discord sync [--guild ID] | quizbot discord invite", file=sys.stderr)
    return 2


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "schema":
        from bot.decks.schema import deck_json_schema

        print(json.dumps(deck_json_schema(), indent=2, ensure_ascii=False))
        return 0
    config = load_config(getattr(args, "config", None))
    if args.command == "validate":
        return _validate(config, args.paths, args.strict)
    if args.command == "play":
        return asyncio.run(_play(config, args))
    if args.command == "run":
        from dataclasses import astuple

        from bot.observability.logs import configure

        configure(args.log_level, astuple(config.secrets), json_lines=not sys.stderr.isatty())
        return asyncio.run(_run(config))
    if args.command == "db":
        if args.db_command != "upgrade":
            print("usage: quizbot db upgrade", file=sys.stderr)
            return 2
        return asyncio.run(_upgrade(config))
    if args.command == "import":
        return _import(config, args)
    if args.command == "report":
        return _report(config, args)
    if args.command == "forget":
        return asyncio.run(_forget(config, args.server, args.user))
    if args.command == "export" and args.deck is not None:
        return _export_deck(config, args)
    if args.command == "export":
        out = Path(args.out or ".")
        out.mkdir(parents=True, exist_ok=True)
        return asyncio.run(_export(config, args.server, out))
    if args.command == "discord":
        return asyncio.run(_discord(config, args))
    raise AssertionError(args.command)


def main(argv: Sequence[str] | None = None) -> int:
    from bot.bootstrap import DeckError

    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return _dispatch(args)
    except ConfigError as e:
        print(f"config error: {e}", file=sys.stderr)
        return 2
    except SetupError as e:
        print(f"cannot start: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # e.g. no network, a port in use, a database that does not answer
        print(f"cannot start: {e}", file=sys.stderr)
        return 1
    except DeckError as e:
        print(e, file=sys.stderr)
        print(
            f"{len(e.report.problems)} problem(s) in the decks; the bot did not start.",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        return 130
    except ValueError as e:  # e.g. a database URL the store cannot use
        print(f"error: {e}", file=sys.stderr)
        return 2
