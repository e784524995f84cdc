"""What Slack needs before it can start: the secrets for the configured mode, and tokens that
Slack accepts. Both problems are a `SlackSetupError`, printed by the CLI as one line."""

from __future__ import annotations

from collections.abc import Awaitable

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Config, SetupError, Unreachable
from bot.slack.sealing import ENV, MAKE_KEY, BadKey, Sealer

_BOT_TOKEN_HINT = (
    "copy the Bot User OAuth Token (xoxb-...) from OAuth & Permissions again "
    "(reinstalling the app changes it)"
)
_APP_TOKEN_HINT = (
    "it must be an app-level token (xapp-...) with the connections:write scope, "
    "from Basic Information -> App-Level Tokens"
)


class SlackSetupError(SetupError):
    """A missing secret or setting, or a token Slack refused; the message says what to set."""


class SlackUnreachable(SlackSetupError, Unreachable):
    """Slack did not answer: the network, not the setup (a later start may succeed)."""


def missing_secrets(config: Config) -> list[str]:
    """Every secret the configured Slack setup lacks, each with what it is for."""
    secrets = config.secrets
    mode = config.file.slack.mode
    missing = []
    oauth_id, oauth_secret = secrets.slack_client_id, secrets.slack_client_secret
    if oauth_id and not oauth_secret:
        missing.append(
            "SLACK_CLIENT_SECRET (SLACK_CLIENT_ID is set: OAuth distribution needs both)"
        )
    elif oauth_secret and not oauth_id:
        missing.append(
            "SLACK_CLIENT_ID (SLACK_CLIENT_SECRET is set: OAuth distribution needs both)"
        )
    elif not oauth_id and not secrets.slack_bot_token:
        missing.append(
            "SLACK_BOT_TOKEN (one workspace; or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET "
            "for OAuth distribution)"
        )
    if (oauth_id or oauth_secret) and not secrets.token_key:
        missing.append(
            "QUIZBOT_TOKEN_KEY (OAuth distribution stores workspace tokens encrypted with it; "
            f"make one with: {MAKE_KEY})"
        )
    if mode == "socket" and not secrets.slack_app_token:
        missing.append(
            "SLACK_APP_TOKEN ([slack] mode is socket: an app-level xapp- token with "
            'connections:write; or set mode = "http" and SLACK_SIGNING_SECRET)'
        )
    if mode == "http" and not secrets.slack_signing_secret:
        missing.append("SLACK_SIGNING_SECRET ([slack] mode is http)")
    return missing


def check_setup(config: Config) -> None:
    """Raises SlackSetupError naming every secret that is missing, at once, a token not
    shaped as its variable needs (before any call to Slack), or a QUIZBOT_TOKEN_KEY that is
    not a list of Fernet keys."""
    missing = missing_secrets(config)
    if missing:
        raise SlackSetupError("Slack needs, in the environment: " + "; ".join(missing))
    problem = token_shape_problem(config)
    if problem:
        raise SlackSetupError(problem)
    if config.secrets.slack_client_id:
        token_sealer(config.secrets.token_key)


BOT_PREFIXES = ("xoxb-", "xoxe.xoxb-")
"""A bot token, or one that rotates (token rotation on)."""


def token_shape_problem(config: Config) -> str | None:
    """A sentence naming the variable whose token has the wrong shape (the two swapped, a
    user token, something else pasted); None when they look right. Slack would only say
    `invalid_auth` or `not_allowed_token_type`, after a connection."""
    bot, app = config.secrets.slack_bot_token or "", config.secrets.slack_app_token or ""
    bot_bad = bool(bot) and not bot.startswith(BOT_PREFIXES)
    app_bad = config.file.slack.mode == "socket" and bool(app) and not app.startswith("xapp-")
    if bot.startswith("xapp-") and app.startswith(BOT_PREFIXES):
        return (
            "SLACK_BOT_TOKEN and SLACK_APP_TOKEN are swapped: SLACK_BOT_TOKEN holds the "
            "app-level token (xapp-...) and SLACK_APP_TOKEN the bot token (xoxb-...); "
            "exchange them"
        )
    if bot_bad:
        kind = {
            "xapp-": "holds an app-level token (xapp-...), which goes in SLACK_APP_TOKEN",
            "xoxp-": "holds a user token (xoxp-...)",
        }.get(bot[:5], "does not look like a bot token")
        return f"SLACK_BOT_TOKEN {kind}: it takes a bot token (xoxb-...); {_BOT_TOKEN_HINT}"
    if app_bad:
        kind = (
            "holds a bot token (xoxb-...), which goes in SLACK_BOT_TOKEN"
            if app.startswith(BOT_PREFIXES)
            else "does not look like an app-level token (xapp-...)"
        )
        return f"SLACK_APP_TOKEN {kind}: {_APP_TOKEN_HINT}"
    return None


def token_sealer(token_key: str | None) -> Sealer:
    """The sealer of OAuth tokens for QUIZBOT_TOKEN_KEY; SlackSetupError if it is unset or
    malformed (the message never holds a key)."""
    if token_key is None:
        raise SlackSetupError(
            f"{ENV} is not set: OAuth distribution stores workspace tokens encrypted with it; "
            f"make a key with: {MAKE_KEY}"
        )
    try:
        return Sealer(token_key)
    except BadKey as error:
        raise SlackSetupError(str(error)) from None


async def verify_credentials(client: AsyncWebClient, config: Config, *, oauth: bool) -> None:
    """Asks Slack once whether it takes the tokens (auth.test for the bot token of a single
    workspace, apps.connections.open for the Socket Mode token), so a wrong token stops the
    start with its name instead of being retried for ever."""
    secrets = config.secrets
    if not oauth and secrets.slack_bot_token:
        await _ask(
            client.auth_test(token=secrets.slack_bot_token),
            "SLACK_BOT_TOKEN",
            _BOT_TOKEN_HINT,
            config,
        )
    if config.file.slack.mode == "socket" and secrets.slack_app_token:
        await _ask(
            client.apps_connections_open(app_token=secrets.slack_app_token),
            "SLACK_APP_TOKEN",
            _APP_TOKEN_HINT,
            config,
        )


async def _ask(call: Awaitable[object], name: str, hint: str, config: Config) -> None:
    try:
        await call
    except SlackApiError as error:
        code = error.response.get("error") or error.response.status_code
        raise SlackSetupError(f"Slack refused {name} ({code}): {hint}") from None
    except (aiohttp.ClientError, TimeoutError) as error:
        raise SlackUnreachable(unreachable(config.file.slack.api_url, error)) from None


def unreachable(url: str, error: BaseException) -> str:
    """A sentence for a Slack that does not answer, as Discord's says it: what failed in
    words (aiohttp's own message, not its repr), then what to check."""
    said = str(error).strip() or "no answer in time"
    return (
        f"cannot reach the Slack Web API at {url} ({type(error).__name__}: {said}); "
        "check the network, a proxy or firewall, or [slack] api_url"
    )
