"""OAuth distribution: installations and OAuth state in the project's database.

slack_sdk's async SQLAlchemy stores keep their own tables (`slack_installations`,
`slack_bots`, `slack_oauth_states`) beside the quiz's; `prepare` creates them if missing.
Tokens in them are sealed with QUIZBOT_TOKEN_KEY (`bot.slack.sealing`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.oauth.state_store.sqlalchemy import AsyncSQLAlchemyOAuthStateStore
from sqlalchemy import desc, select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.slack.sealing import SealedInstallationStore, Unreadable
from bot.slack.setup import token_sealer

SCOPES = ("commands", "chat:write", "chat:write.public", "users:read")
"""Bot scopes; slack-manifest.yaml asks for the same."""
STATE_SECONDS = 600


@dataclass
class OAuth:
    settings: AsyncOAuthSettings
    authorize: AsyncInstallationStoreAuthorize
    """Bolt's installation lookup, with its auth.test answer kept per token: without the
    cache every click would wait for an auth.test call before it could be acked."""
    installations: SealedInstallationStore
    states: AsyncSQLAlchemyOAuthStateStore
    engine: AsyncEngine

    async def prepare(self) -> None:
        """Creates the tables if missing, then seals any token stored plain or with an older
        key (so the old key of a rotation can be dropped once this has run)."""
        await self.installations.create_tables()  # type: ignore[no-untyped-call]
        await self.states.create_tables()  # type: ignore[no-untyped-call]
        await self.installations.widen()
        await self.installations.reseal()

    async def close(self) -> None:
        await self.engine.dispose()

    async def bot_token(self, server_id: str) -> str | None:
        """The newest bot token of a server ("slack:T123", or "slack:E123" for an org-wide
        install), for work no request brings a token for (the daily question).

        Asked by team id alone: a workspace of an Enterprise Grid org is stored with its
        enterprise id too, which a server id does not keep."""
        ident = server_id.removeprefix("slack:")
        c = self.installations.bots.c
        where = (
            (c.enterprise_id == ident) & c.team_id.is_(None)
            if ident.startswith("E")
            else c.team_id == ident
        )
        query = (
            select(c.bot_token)
            .where(c.client_id == self.installations.client_id, where, c.bot_token.is_not(None))
            .order_by(desc(c.installed_at))
            .limit(1)
        )
        async with self.engine.connect() as conn:
            token: str | None = await conn.scalar(query)
        try:
            return self.installations.sealer.unseal(token)
        except Unreadable:
            enterprise = ident if ident.startswith("E") else None
            self.installations.report(enterprise, None if enterprise else ident)
            return None


def oauth(client_id: str, client_secret: str, engine: AsyncEngine, token_key: str | None) -> OAuth:
    """Bolt's OAuth settings (/slack/install, /slack/oauth_redirect) on the given engine,
    tokens sealed with `token_key` (QUIZBOT_TOKEN_KEY; SlackSetupError if missing or bad)."""
    installations = SealedInstallationStore(client_id, engine, token_sealer(token_key))
    states = AsyncSQLAlchemyOAuthStateStore(expiration_seconds=STATE_SECONDS, engine=engine)
    settings = AsyncOAuthSettings(
        client_id=client_id,
        client_secret=client_secret,
        scopes=list(SCOPES),
        installation_store=installations,
        state_store=states,
        state_expiration_seconds=STATE_SECONDS,
    )
    authorize = AsyncInstallationStoreAuthorize(
        logger=logging.getLogger("quizbot.slack.bolt"),
        installation_store=installations,
        client_id=client_id,
        client_secret=client_secret,
        cache_enabled=True,
    )
    return OAuth(settings, authorize, installations, states, engine)
