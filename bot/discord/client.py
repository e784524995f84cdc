"""The discord.py client: the app, the command tree, the buttons, and the post messages.

It is an `AutoShardedClient` so `[discord] shard_count` and `shard_ids` split the guilds
over processes sharing one database (without them Discord says how many shards to run).
It asks for the `guilds` intent only (not privileged; discord.py's state needs it); slash
commands and buttons need no message content.
"""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
import discord

from bot.config import SetupError, Unreachable
from bot.discord import buttons, clicks, fastpath, reports, suggestions, sync
from bot.discord.commands import QuizTree
from bot.discord.delivery import DiscordDelivery
from bot.discord.posts import Messages
from bot.discord.translator import CatalogTranslator
from bot.service.clicks import Outcome, Stale
from bot.service.intake import Intake
from bot.service.services import Services

log = logging.getLogger("quizbot.discord")

INTENTS = discord.Intents(guilds=True)
CLOSE_SECONDS = 10.0
"""How long closing waits for admitted clicks to be answered."""
REFRESH_INTERVAL = 3.0
"""Seconds between redraws of a post's "N answered" count, however many click."""


def login_token(services: Services) -> str:
    token = services.config.secrets.discord_token
    if not token:
        raise SetupError(
            "DISCORD_TOKEN is not set: the Discord bot's token comes from the environment"
        )
    return token


async def login(client: discord.Client, token: str) -> None:
    """Logs in over REST (`GET /users/@me`, then the application). What a person must fix
    (a refused token, no way to reach Discord) is a SetupError of one line, no traceback."""
    try:
        await client.login(token)
    except discord.LoginFailure as e:
        raise SetupError(
            "Discord refused DISCORD_TOKEN (401 Unauthorized); copy the bot's token again "
            "(Developer Portal -> your application -> Bot -> Reset Token)"
        ) from e
    except (aiohttp.ClientError, OSError, TimeoutError) as e:
        raise Unreachable(
            f"cannot reach Discord at {discord.http.Route.BASE} "
            f"({type(e).__name__}: {e}); check the network, a proxy or firewall, "
            "or [discord] api_url"
        ) from e
    except discord.HTTPException as e:
        raise SetupError(
            f"Discord answered HTTP {e.status} to the login ({e.text or 'no detail'}); "
            "try again in a few minutes"
        ) from e


class QuizClient(discord.AutoShardedClient):
    def __init__(
        self,
        services: Services,
        *,
        auto_sync: bool = True,
        refresh_interval: float = REFRESH_INTERVAL,
    ) -> None:
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice here
        config = services.config.file.discord
        options: dict[str, Any] = {}
        if config.shard_ids is not None:
            options["shard_ids"] = config.shard_ids
        super().__init__(
            intents=INTENTS,
            allowed_mentions=discord.AllowedMentions.none(),
            max_messages=None,
            shard_count=config.shard_count,
            **options,
        )
        self.services = services
        self.metrics = services.metrics
        """Every click, command and unexpected error is counted there."""
        self.auto_sync = auto_sync
        self.tree = QuizTree(self, services.metrics)
        self.posts = services.live_posts(refresh_interval)
        self.messages = Messages(self)
        self.delivery = DiscordDelivery(self, services.catalog, self.posts, self.messages)
        self.intake = Intake(
            services, services.admission, self.posts, services.metrics, clicks.PLATFORM
        )
        self._replies: aiohttp.ClientSession | None = None

    @property
    def reply_session(self) -> aiohttp.ClientSession:
        """The connections clicks' private replies go over (`replies.reply_privately`),
        made on first use (inside the event loop)."""
        if self._replies is None or self._replies.closed:
            self._replies = aiohttp.ClientSession(headers={"User-Agent": self.http.user_agent})
        return self._replies

    async def setup_hook(self) -> None:
        """After the login, before the gateway: REST works, so daily questions can go out."""
        self.add_dynamic_items(*buttons.DYNAMIC_ITEMS, suggestions.SuggestionButton)
        fastpath.skip_messages(self, buttons.ANSWER)  # before the gateway
        self.services.deliveries.register("discord", self.delivery)
        await self.tree.set_translator(CatalogTranslator())
        if self.auto_sync and self.application_id is not None:
            try:
                await sync.sync_if_changed(self.tree, self.services, self.application_id)
            except discord.HTTPException:
                log.exception("slash command sync failed; Discord keeps the last synced commands")

    def dispatch(self, event: str, /, *args: Any, **kwargs: Any) -> None:
        """Notes when an interaction arrived, as the gateway hands it over: its callbacks are
        tasks that may wait for their turn on a busy event loop, and a click's latency
        counts that wait."""
        if event == "interaction" and args and isinstance(args[0], discord.Interaction):
            clicks.arrival(args[0])
        super().dispatch(event, *args, **kwargs)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Answer clicks are routed here (`buttons.answer_click`: in a burst, discord.py's
        dynamic-item dispatch rebuilt the clicked message's view per click). Clicks that none
        of our buttons take would fail silently: they get a reply (and count as stale
        clicks). Forms sent back are all taken here (`bot.discord.reports` says why):
        discord.py keeps none of ours."""
        if interaction.data is None:
            return
        if interaction.type is discord.InteractionType.modal_submit:
            if suggestions.is_ours(str(interaction.data.get("custom_id", ""))):
                await suggestions.submitted(interaction)
            else:
                await reports.submitted(interaction)
            return
        if interaction.type is not discord.InteractionType.component:
            return
        custom_id = str(interaction.data.get("custom_id", ""))
        if answer := buttons.ANSWER.fullmatch(custom_id):  # the burst's button: routed here
            await buttons.answer_click(interaction, answer)
        elif not buttons.known(custom_id) and not suggestions.known(custom_id):
            log.info("click on unknown custom_id %r", custom_id[:100])
            await clicks.take(interaction, Stale(), _nothing)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        """An event handler raised (a bug: interactions report their own failures)."""
        self.metrics.error(clicks.PLATFORM, "event")
        log.exception("the %s handler failed", event_method)

    async def on_ready(self) -> None:
        log.info(
            "Discord ready: %s in %d servers", self.user, len(self.guilds), extra={"event": "ready"}
        )

    async def close(self) -> None:
        """Admits no more clicks and answers the ones admitted (up to CLOSE_SECONDS) while
        the connection is still there to answer them, then draws the last counts."""
        admission = self.services.admission
        if not await admission.quiesce(CLOSE_SECONDS):
            log.warning("%d admitted clicks still unanswered at close", admission.pending)
        self.services.deliveries.unregister("discord", self.delivery)  # its session is closing
        await self.posts.flush()  # the last counts are drawn before the connection goes
        if self._replies is not None:
            await self._replies.close()
        await super().close()


async def _nothing(said: Outcome) -> None:
    """A click on no button of ours is refused before anything is looked up: only its
    refusal is shown (`clicks.take` reports it)."""
