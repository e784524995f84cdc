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
from collections.abc import Sequence
from pathlib import Path

from bot import __version__
from bot.config import Config, ConfigError, SetupError, Unreachable, load_config

log = logging.getLogger("quizbot")
DRAIN_SECONDS = 10.0
SETUP = 2
"""The exit status when the setup must change before a start can succeed (a config error, a
missing, malformed or refused secret, no platform enabled): a supervisor should not restart
(deploy/quizbot.service's RestartPreventExitStatus=, the compose file's command)."""


async def drain(seconds: float) -> None:
    """Waits for work still in flight (a click acknowledged but not yet answered)."""
    others = {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}
    if others:
        _, late = await asyncio.wait(others, timeout=seconds)
        if late:
            log.warning("%d tasks still running after %ss; stopping them", len(late), seconds)


def _parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="quizbot", description="A quiz bot for team channels.")
    p.add_argument("--version", action="version", version=f"quizbot {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    from bot.console.play import add_play_command
    from bot.console.report import add_report_command

    add_play_command(sub, argv, os.environ)
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
    backup = db_sub.add_parser(
        "backup", help="copy the SQLite database to PATH, consistent while the bot runs"
    )
    backup.add_argument("path", help="the copy to write (a new file)")
    backup.add_argument("--config", help="config file")

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

    add_report_command(sub, argv, os.environ)

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
        "Moodle CSV, Bengali exam text or OpenTriviaQA text",
    )
    imp.add_argument(
        "--format",
        help="gift, moodle-xml, aiken, opentdb, csv, kahoot, json, red, moodle-csv, bn-mcq or "
        "opentriviaqa (guessed from the content)",
    )
    imp.add_argument(
        "--out",
        help="deck file to write (default: ID.yaml in the first [questions] paths folder, "
        "created if missing)",
    )
    imp.add_argument("--locale", help="the file's language (default: found from its text)")
    imp.add_argument(
        "--columns",
        metavar="NAMES",
        help="a CSV's columns in order: text, choice (one per column), choices (one column, "
        "'|' or ';' between), answer, wrong, explanation, tags, id, skip",
    )
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
    from bot.decks.lint import lint_decks
    from bot.decks.loading import load_decks

    if paths:
        report = load_decks([Path(p) for p in paths])
    else:
        report = load_decks(config.question_paths, config.shipped_decks)
    for problem in report.problems:
        print(problem)
    decks = report.decks
    shipped = None if paths else config.shipped_decks
    if shipped is not None:  # first, so that a team's deck repeating one is the one warned
        decks = sorted(decks, key=lambda d: not Path(d.source).is_relative_to(shipped))
    warnings = lint_decks(decks, report.places)
    for warning in warnings:
        print(warning)
    if not report.ok:
        return 1
    print(report.summary(len(warnings)))
    return 1 if strict and warnings else 0


async def _play(config: Config, args: argparse.Namespace) -> int:
    from bot.bootstrap import build_app, load_library
    from bot.console.language import system_locale
    from bot.console.play import Terminal, play

    library = load_library(config)
    config.check_default_deck(library.ids())
    app = await build_app(config, library=library)
    try:
        columns = shutil.get_terminal_size().columns  # $COLUMNS, the terminal, else 80
        term = Terminal(
            sys.stdin, sys.stdout, sys.stderr, sys.stdin.isatty(), width=max(20, columns - 1)
        )
        user = args.user or getpass.getuser() or "player"
        return await play(
            app.services,
            term,
            user,
            args.deck,
            args.locale,
            review=args.review,
            topic=args.topic,
            system_locale=system_locale(os.environ),
            default_deck=config.default_deck,
        )
    finally:
        await app.close()


async def _run(config: Config) -> int:
    from bot.bootstrap import (
        NothingToRun,
        build_app,
        check_platforms,
        load_library,
        run_platforms,
        settle_heap,
    )

    try:
        check_platforms(config)  # before migrations, so a missing token is said first
    except NothingToRun as e:
        print(e, file=sys.stderr)
        return SETUP
    library = load_library(config)
    config.check_default_deck(library.ids())
    app = await build_app(config, library=library)
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
    from bot.bootstrap import operations
    from bot.console.data import export

    async with operations(config) as ops:
        return await export(ops, server_id, out, sys.stdout, sys.stderr)


async def _report(config: Config, args: argparse.Namespace) -> int:
    from bot.bootstrap import operations
    from bot.console.report import ReportRequest, report

    asked = ReportRequest.of(args, getpass.getuser() or "player")
    async with operations(config) as ops:
        return await report(config, ops, asked, os.environ, sys.stdout, sys.stderr)


async def _forget(config: Config, server_id: str, user_id: str) -> int:
    from bot.bootstrap import operations
    from bot.console.data import forget

    async with operations(config) as ops:
        return await forget(ops, server_id, user_id, sys.stdout)


def _import(config: Config, args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from bot.decks.formats import import_file

    outcome = import_file(
        Path(args.file),
        fmt=args.format,
        out=Path(args.out) if args.out else None,
        locale=args.locale,
        deck_id=args.deck_id,
        today=datetime.now(UTC).date(),
        questions_dir=config.deck_folder,  # the team's deck folder, never the shipped decks
        split=args.split,
        columns=args.columns,
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
            print(await sync_commands(app.services, args.guild))
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
        if args.db_command == "backup":
            from bot.storage.backup import backup_sqlite

            print(backup_sqlite(config.database_url, config.base_dir, Path(args.path)))
            return 0
        if args.db_command != "upgrade":
            print("usage: quizbot db upgrade | quizbot db backup PATH", file=sys.stderr)
            return 2
        return asyncio.run(_upgrade(config))
    if args.command == "import":
        return _import(config, args)
    if args.command == "report":
        return asyncio.run(_report(config, args))
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
    from bot.service.supervision import PlatformStopped

    argv = sys.argv[1:] if argv is None else argv
    parser = _parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        status = _dispatch(args)
        sys.stdout.flush()  # here, so a reader gone (`| head`) is met below, not at exit
        return status
    except ConfigError as e:
        print(f"config error: {e}", file=sys.stderr)
        return SETUP
    except PlatformStopped as e:  # it ran, then its platform refused it for good
        print(f"quizbot stopped: {e}", file=sys.stderr)
        return 1
    except Unreachable as e:  # the network, not the setup: a restart may well succeed
        print(f"cannot start: {e}", file=sys.stderr)
        return 1
    except SetupError as e:
        print(f"cannot start: {e}", file=sys.stderr)
        return SETUP
    except BrokenPipeError:  # `quizbot play | head`: the reader is gone. Standard output to
        # /dev/null, so the interpreter's last flush is quiet too (as Python's docs advise)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
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
