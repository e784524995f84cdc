"""`run_slack(app)`: serves Slack until cancelled, in Socket Mode or HTTP mode ([slack] mode).

Socket Mode needs SLACK_APP_TOKEN (xapp-, connections:write); HTTP mode needs
SLACK_SIGNING_SECRET and serves `/slack/events` on [slack] host and port. With OAuth
distribution the install pages are served on host and port in either mode. Once Slack is
up, the app's scheduler posts Slack's daily questions through `SlackDelivery`.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AsyncExitStack

from aiohttp import web

from bot.config import Config
from bot.service.services import Services
from bot.slack.app import SlackBot, build_slack
from bot.slack.fastpath import SocketHandler
from bot.slack.http import web_app
from bot.slack.setup import check_setup, verify_credentials

__all__ = ["check_setup", "run_slack", "serve"]

log = logging.getLogger("quizbot.slack")

LISTEN_BACKLOG = 1024
"""Connections the kernel holds before the bot accepts them (aiohttp's default is 128): a
question posted to a big workspace gets hundreds of clicks in its first second, and a
refused connection is a click Slack reports as failed."""


async def serve(bot: SlackBot, config: Config, stack: AsyncExitStack) -> None:
    """Starts what the config asks for; `stack` stops it again."""
    settings = config.file.slack
    socket = settings.mode == "socket"
    if not socket or bot.bolt.oauth_flow is not None:
        runner = web.AppRunner(web_app(bot, events=not socket), access_log=None)  # clicks log
        # lines of their own (`"event": "click"`); an access line per click would double them
        await runner.setup()
        stack.push_async_callback(runner.cleanup)
        await web.TCPSite(runner, settings.host, settings.port, backlog=LISTEN_BACKLOG).start()
        log.info("Slack HTTP on %s:%s", settings.host, settings.port)
    if socket:
        handler = SocketHandler(bot.bolt, config.secrets.slack_app_token, bot.requests)
        await handler.connect_async()  # type: ignore[no-untyped-call]
        stack.push_async_callback(handler.close_async)
        log.info("Slack Socket Mode connected")


async def run_slack(app: Services) -> None:
    """Serves Slack for `app` until cancelled."""
    check_setup(app.config)
    bot = build_slack(app)
    try:
        await verify_credentials(bot.bolt.client, app.config, oauth=bot.oauth is not None)
        await bot.prepare()
        async with AsyncExitStack() as stack:
            await serve(bot, app.config, stack)
            stack.push_async_callback(bot.quiesce)  # first on the way out: answer what was
            # admitted while the socket or the HTTP server is still there to ack it
            if bot.delivery is not None:
                app.deliveries.register("slack", bot.delivery)  # daily questions from now on
            await asyncio.Event().wait()
    finally:
        await bot.close()
