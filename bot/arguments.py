"""The `quizbot` command line's arguments: every command, option and its help, in one place
(`bot.cli` runs them)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from bot import __version__


def parser(argv: Sequence[str]) -> argparse.ArgumentParser:
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
    export.add_argument("--server", help='server id, e.g. "slack:T0123", "local"')
    export.add_argument(
        "--deck",
        help="deck id, e.g. distributed-training; with --server, `team` is that server's own "
        "deck (its approved suggestions)",
    )
    export.add_argument("--format", help="with --deck: yaml, gift, moodle-xml or csv")
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
