"""Starting the platforms the config enables and running them under supervision, beside the
scheduler, the games and the other background work (`quizbot run`); the half of the
composition root that runs what `bot.bootstrap` built."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

from bot.bootstrap import App
from bot.config import Config, SetupError
from bot.observability.ops import ops_listener
from bot.service.catalog import Catalog
from bot.service.supervision import Supervisor

log = logging.getLogger("quizbot")


class NothingToRun(Exception):
    """`quizbot run` with no platform enabled: the message says what to set."""


def enabled_platforms(config: Config) -> list[str]:
    return [
        name
        for name, on in (
            ("slack", config.slack_enabled),
            ("discord", config.discord_enabled),
        )
        if on
    ]


def nothing_to_run_message(config: Config) -> str:
    where = str(config.source) if config.source else "config.toml (copy config.example.toml)"
    hints = []
    slack, discord = config.file.slack.enabled, config.file.discord.enabled
    secrets = config.secrets
    if slack is False and (secrets.slack_bot_token or secrets.slack_client_id):
        hints.append(
            f"Slack credentials are set in the environment, but {where} has "
            "[slack] enabled = false."
        )
    elif slack is None and (secrets.slack_bot_token or secrets.slack_client_id):
        needs = (
            "SLACK_APP_TOKEN with SLACK_BOT_TOKEN or SLACK_CLIENT_ID"
            if config.file.slack.mode == "socket"
            else "SLACK_SIGNING_SECRET with SLACK_BOT_TOKEN or SLACK_CLIENT_ID"
        )
        hints.append(f"Slack {config.file.slack.mode} mode needs {needs} in the environment.")
    elif slack is None and (secrets.slack_app_token or secrets.slack_signing_secret):
        hints.append(
            f"{'SLACK_APP_TOKEN' if secrets.slack_app_token else 'SLACK_SIGNING_SECRET'} is "
            "set, but Slack also needs SLACK_BOT_TOKEN (the Bot User OAuth Token, xoxb-...), "
            "or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET for OAuth distribution."
        )
    if discord is False and secrets.discord_token:
        hints.append(f"DISCORD_TOKEN is set, but {where} has [discord] enabled = false.")
    return "\n".join(
        [
            "No platform is enabled, so there is nothing to run.",
            *hints,
            "To run on Slack: export SLACK_BOT_TOKEN and SLACK_APP_TOKEN (Socket Mode), or set "
            f'[slack] enabled = true and mode = "http" in {where} and export '
            "SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET.",
            "To run on Discord: export DISCORD_TOKEN.",
            "To take the quiz in this terminal without any chat account: quizbot play",
        ]
    )


def check_platforms(config: Config) -> None:
    """Checks every enabled platform's secrets before anything starts (SetupError)."""
    names = enabled_platforms(config)
    if not names:
        raise NothingToRun(nothing_to_run_message(config))
    if "slack" in names:
        from bot.slack.runner import check_setup as check_slack

        check_slack(config)
    if "discord" in names:
        from bot.discord.runner import check_setup as check_discord

        check_discord(config)


async def run_platforms(app: App) -> None:
    """Runs every enabled platform in this process, with the game loop and the scheduler.
    A platform that stops is started again; one that cannot work as configured stops the
    process (`PlatformStopped`, or the SetupError of its first start)."""
    config = app.services.config
    check_platforms(config)
    names = enabled_platforms(config)
    reload_on_sighup(app.services.catalog)
    ops = config.file.ops
    try:
        async with contextlib.AsyncExitStack() as stack:
            if ops.enabled:
                await stack.enter_async_context(
                    ops_listener(app.store.writable, app.services.metrics, ops.host, ops.port)
                )
            await _run_each(app, names)
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None


def reload_on_sighup(catalog: Catalog) -> None:
    """`kill -HUP <pid>` reloads the decks (where the platform has signals)."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, AttributeError):
        loop.add_signal_handler(signal.SIGHUP, catalog.reload)


async def _run_each(app: App, names: list[str]) -> None:
    """The loops and the platforms side by side, each supervised: a fault in one never
    ends another (`bot.service.supervision`); only a platform that cannot work as
    configured ends them all, with its reason."""
    services = app.services
    supervisor = Supervisor(services.clock)
    async with asyncio.TaskGroup() as group:
        group.create_task(services.scheduler.run())
        group.create_task(services.games.run())
        group.create_task(services.suggestions.run())
        if "slack" in names:
            from bot.slack.runner import run_slack

            group.create_task(
                supervisor.platform("Slack", lambda: run_slack(services), cannot_work)
            )
        if "discord" in names:
            from bot.discord.runner import run_discord

            group.create_task(
                supervisor.platform("Discord", lambda: run_discord(services), cannot_work)
            )


DISCORD_FATAL_CLOSES = {
    4004: "Discord refused DISCORD_TOKEN (gateway close 4004)",
    4010: "Discord refused the shard settings (gateway close 4010): check [discord] shard_ids",
    4011: "Discord requires sharding for this bot (gateway close 4011): set [discord] shard_count",
    4012: "Discord refused the gateway version (gateway close 4012): upgrade quizbot",
    4013: "Discord refused the gateway intents (gateway close 4013)",
    4014: "the bot asks for an intent not enabled in the Developer Portal (gateway close 4014)",
}
"""Gateway closes that no reconnect fixes (discord.py raises them from `connect`)."""


def cannot_work(error: BaseException, starts: int) -> str | None:
    """Why a platform whose task raised `error` cannot work as configured (the process
    ends), or None (it is started again). A SetupError says what a person must fix, except
    a restart's "cannot reach" (the network, which comes back); on Discord, a login refused,
    an intent the portal does not grant, or a gateway close no reconnect fixes."""
    if isinstance(error, SetupError):
        if starts > 0 and _network(error):
            return None
        return str(error)
    if "discord" in sys.modules:
        import discord

        if isinstance(error, discord.LoginFailure | discord.PrivilegedIntentsRequired):
            return str(error) or type(error).__name__
        if isinstance(error, discord.ConnectionClosed) and error.code in DISCORD_FATAL_CLOSES:
            return DISCORD_FATAL_CLOSES[error.code]
    return None


def _network(error: BaseException) -> bool:
    """Whether `error` came of a connection that failed or a platform that answered 5xx (its
    cause or context, however deep, is an OSError, a timeout, an aiohttp error, or has an
    HTTP `status` of 500 or more)."""
    import aiohttp

    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, OSError | TimeoutError | aiohttp.ClientError):
            return True
        status = getattr(cause, "status", None)
        if isinstance(status, int) and status >= 500:
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False
