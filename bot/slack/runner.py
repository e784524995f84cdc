"""`run_slack(app)`: serves Slack until cancelled, in Socket Mode or HTTP mode ([slack] mode).

Socket Mode needs SLACK_APP_TOKEN (xapp-, connections:write); HTTP mode needs
SLACK_SIGNING_SECRET and serves `/slack/events` on [slack] host and port. With OAuth
distribution the install pages are served on host and port in either mode.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AsyncExitStack

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

from bot.app import App
from bot.config import Config
from bot.slack.app import SlackBot, SlackSetupError, build_slack
from bot.slack.http import web_app

log = logging.getLogger("quizbot.slack")


def check_setup(config: Config) -> None:
    """Raises SlackSetupError naming what is missing for the configured mode."""
    mode = config.file.slack.mode
    secrets = config.secrets
    if mode == "socket" and not secrets.slack_app_token:
        raise SlackSetupError(
            "[slack] mode is socket, which needs SLACK_APP_TOKEN (an app-level xapp- token "
            'with connections:write); or set mode = "http" and SLACK_SIGNING_SECRET'
        )
    if mode == "http" and not secrets.slack_signing_secret:
        raise SlackSetupError("[slack] mode is http, which needs SLACK_SIGNING_SECRET")


async def serve(bot: SlackBot, config: Config, stack: AsyncExitStack) -> None:
    """Starts what the config asks for; `stack` stops it again."""
    settings = config.file.slack
    socket = settings.mode == "socket"
    if not socket or bot.bolt.oauth_flow is not None:
        runner = web.AppRunner(web_app(bot, events=not socket))
        await runner.setup()
        stack.push_async_callback(runner.cleanup)
        await web.TCPSite(runner, settings.host, settings.port).start()
        log.info("Slack HTTP on %s:%s", settings.host, settings.port)
    if socket:
        handler = AsyncSocketModeHandler(bot.bolt, config.secrets.slack_app_token)
        await handler.connect_async()  # type: ignore[no-untyped-call]
        stack.push_async_callback(handler.close_async)
        log.info("Slack Socket Mode connected")


async def run_slack(app: App) -> None:
    """Serves Slack for `app` until cancelled."""
    check_setup(app.config)
    bot = build_slack(app)
    await bot.prepare()
    try:
        async with AsyncExitStack() as stack:
            await serve(bot, app.config, stack)
            await asyncio.Event().wait()
    finally:
        await bot.close()
