"""A child process serving Slack's HTTP endpoint for the latency benchmark.

`python -m bench.slack_app quiz API_URL FOLDER`: the real bot (`build_app`, `build_slack`,
`bot.slack.runner.serve`: what `quizbot run` does in HTTP mode) on a SQLite file in FOLDER.
`python -m bench.slack_app bare API_URL FOLDER`: a bare slack-bolt AsyncApp whose listeners
only ack, served by the same aiohttp handler and site.
`bare-reply`: the bare app, acking and then posting a fixed private reply to response_url.
Both bare apps run their listeners inline (`process_before_response`, as the bot does).

Prints `READY <port>`, serves until stdin closes.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from contextlib import AsyncExitStack
from dataclasses import astuple
from pathlib import Path
from typing import Any

from slack_bolt.async_app import AsyncApp

from bench.procs import free_port, stdin_closed
from bench.report import ROOT
from bot.bootstrap import build_app, settle_heap
from bot.config import parse_config
from bot.observability.logs import configure
from bot.slack.app import SlackBot, build_slack
from bot.slack.client import web_client
from bot.slack.runner import serve
from tests.slack.fake_slack import BOT_TOKEN
from tests.slack.harness import SIGNING_SECRET


def config_text(api_url: str, folder: Path, port: int) -> str:
    return f"""
[ops]
enabled = false

[database]
url = "sqlite:///{folder / "quiz.db"}"

[questions]
paths = ["{ROOT / "questions"}"]

[slack]
enabled = true
mode = "http"
host = "127.0.0.1"
port = {port}
api_url = "{api_url}"
"""


def bare_bot(api_url: str, reply: bool) -> SlackBot:
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

    bolt.action(re.compile(".*"))(ack_and_reply if reply else ack_only)
    bolt.command("/quiz")(ack_only)
    return SlackBot(bolt, None, None, SIGNING_SECRET)  # type: ignore[arg-type]


async def main(kind: str, api_url: str, folder: Path) -> None:
    logging.basicConfig(level=logging.WARNING)
    port = free_port()
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET}
    config = parse_config(config_text(api_url, folder, port), "bench.toml", folder, env)
    app = None
    if kind == "quiz":
        # Logs as `quizbot run` writes them (a JSON line per click): that is part of the cost.
        configure("INFO", astuple(config.secrets), json_lines=True)
        app = await build_app(config)
        bot = build_slack(app.services)
        await bot.prepare()
        settle_heap()  # as `quizbot run` does
    else:
        bot = bare_bot(api_url, reply=kind == "bare-reply")
    try:
        async with AsyncExitStack() as stack:
            await serve(bot, config, stack)
            print(f"READY {port}", flush=True)
            await stdin_closed()
    finally:
        if app is not None:
            await bot.close()
            await app.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
