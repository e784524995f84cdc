"""`quizbot run` with `[discord] enabled`: the bot until it is cancelled."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.config import Config, SetupError
from bot.discord.client import QuizClient, login, login_token, use_endpoints

if TYPE_CHECKING:
    from bot.bootstrap import App


def check_setup(config: Config) -> None:
    """Raises SetupError before anything starts when the Discord token is missing."""
    if not config.secrets.discord_token:
        raise SetupError(
            "[discord] enabled = true needs DISCORD_TOKEN in the environment "
            "(Developer Portal -> your application -> Bot -> Reset Token)"
        )


async def run_discord(app: App) -> None:
    """Logs in, syncs the commands if they changed, and serves until cancelled."""
    token = login_token(app)
    use_endpoints(app.config.file.discord)
    client = QuizClient(app)
    try:
        await login(client, token)
        await client.connect()
    finally:
        await client.close()
