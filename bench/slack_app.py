"""A child process serving Slack's HTTP endpoint for the latency benchmark.

`python -m bench.slack_app quiz API_URL FOLDER`: the real bot (`build_app`, `build_slack`,
`bot.slack.runner.serve`: what `quizbot run` does in HTTP mode) on a SQLite file in FOLDER.
`python -m bench.slack_app bare API_URL FOLDER`: a bare slack-bolt AsyncApp whose listeners
only ack, served by the same aiohttp handler and site.
`QUIZBOT_BENCH_DATABASE_URL` in the environment: the bot's database instead (the soak).
`bare-reply`: the bare app, acking and then posting a fixed private reply to response_url.
`bare-store`: the bare app, storing each click (one INSERT and COMMIT with aiosqlite, on a
SQLite file set up as the bot's: WAL, synchronous=NORMAL), then acking, then posting the
fixed reply: the least an app must do for a click while keeping "an ack is a promise", the
baseline of the bot's ack (whose event loop also carries the replies of earlier clicks).
The bare apps run their listeners inline (`process_before_response`, as the bot does).

Prints `READY <port>`, serves until stdin closes; answers `bench.heap`'s commands on stdin.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import time
from contextlib import AsyncExitStack
from dataclasses import astuple
from pathlib import Path
from typing import Any

import aiosqlite
from slack_bolt.async_app import AsyncApp

from bench.heap import Heap
from bench.procs import database_url, free_port, stdin_closed
from bench.report import ROOT
from bot.bootstrap import build_app, settle_heap
from bot.config import parse_config
from bot.observability.logs import configure
from bot.slack.app import SlackBot, build_slack
from bot.slack.client import web_client
from bot.slack.runner import serve
from bot.testing.fake_slack import BOT_TOKEN
from bot.testing.slack_requests import SIGNING_SECRET


def config_text(api_url: str, folder: Path, port: int) -> str:
    return f"""
[ops]
enabled = false

[database]
url = "{database_url(folder)}"

[questions]
paths = ["{ROOT / "questions"}"]

[slack]
enabled = true
mode = "http"
host = "127.0.0.1"
port = {port}
api_url = "{api_url}"
"""


CLICKS = """CREATE TABLE IF NOT EXISTS clicks (
    team_id TEXT NOT NULL, user_id TEXT NOT NULL, value TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (team_id, user_id, value))"""


async def click_store(folder: Path) -> aiosqlite.Connection:
    """The bare app's store of clicks: the first click of a person on a button stands."""
    db = await aiosqlite.connect(folder / "bare.db")
    await db.execute("PRAGMA journal_mode=WAL")
    await db.execute("PRAGMA synchronous=NORMAL")
    await db.execute(CLICKS)
    await db.commit()
    return db


def bare_bot(api_url: str, reply: bool, store: aiosqlite.Connection | None = None) -> SlackBot:
    bolt = AsyncApp(
        name="bare",
        logger=logging.getLogger("bench.bare"),
        # The least bolt must do: the listener inline, Slack answered when it returns (the
        # default runs it in a task and polls every 10 ms for its ack).
        process_before_response=True,
        signing_secret=SIGNING_SECRET,
        client=web_client(api_url, BOT_TOKEN),
    )

    async def ack_only(ack: Any) -> None:
        await ack()

    async def ack_and_reply(ack: Any, respond: Any) -> None:
        await ack()
        await respond(text="Right!", response_type="ephemeral", replace_original=False)

    async def store_then_ack(ack: Any, body: dict[str, Any], respond: Any) -> None:
        assert store is not None
        await store.execute(
            "INSERT OR IGNORE INTO clicks VALUES (?, ?, ?, ?)",
            (body["team"]["id"], body["user"]["id"], body["actions"][0]["value"], time.time()),
        )
        await store.commit()
        await ack_and_reply(ack, respond)

    listener = store_then_ack if store is not None else ack_and_reply if reply else ack_only
    bolt.action(re.compile(".*"))(listener)
    bolt.command("/quiz")(ack_only)
    return SlackBot(bolt, None, None, SIGNING_SECRET)  # type: ignore[arg-type]


async def main(kind: str, api_url: str, folder: Path) -> None:
    logging.basicConfig(level=logging.WARNING)
    port = free_port()
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET}
    config = parse_config(config_text(api_url, folder, port), "bench.toml", folder, env)
    app = None
    store = await click_store(folder) if kind == "bare-store" else None
    if kind == "quiz":
        # Logs as `quizbot run` writes them (a JSON line per click): that is part of the cost.
        configure("INFO", astuple(config.secrets), json_lines=True)
        app = await build_app(config)
        bot = build_slack(app.services)
        await bot.prepare()
        settle_heap()  # as `quizbot run` does
    else:
        bot = bare_bot(api_url, reply=kind == "bare-reply", store=store)
    try:
        async with AsyncExitStack() as stack:
            await serve(bot, config, stack)
            print(f"READY {port}", flush=True)
            await stdin_closed(Heap().answer)
    finally:
        if app is not None:
            await bot.close()
            await app.close()
        if store is not None:
            await store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
