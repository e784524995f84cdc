"""Workspace tokens sealed at rest, so a database backup holds no usable Slack token.

OAuth distribution keeps every workspace's bot token in `slack_bots` and
`slack_installations`. `SealedInstallationStore` encrypts the token columns with Fernet under
QUIZBOT_TOKEN_KEY before a row is written and decrypts them after it is read; the rest of the
app and bolt only ever see plain tokens.

QUIZBOT_TOKEN_KEY is one or more Fernet keys separated by commas, newest first: values are
sealed with the first and opened with any, so "new,old" rotates the key. A sealed value is
"fernet:" + the Fernet token; a value without the prefix (written before sealing) is read as
is. `reseal` (run at start) seals plain values and re-seals those of an older key, after
which the old key can be dropped. A value no key opens is logged once, naming the workspace,
and that workspace counts as not installed.
"""

from __future__ import annotations

import binascii
import copy
import logging
from collections.abc import Iterable
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.oauth.installation_store.sqlalchemy import AsyncSQLAlchemyInstallationStore
from sqlalchemy import MetaData, Table, Text, inspect, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger("quizbot.slack")

PREFIX = "fernet:"
ENV = "QUIZBOT_TOKEN_KEY"
MAKE_KEY = (
    'python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"'
)
BOT_FIELDS = ("bot_token", "bot_refresh_token")
INSTALLATION_FIELDS = (*BOT_FIELDS, "user_token", "user_refresh_token")


class BadKey(ValueError):
    """QUIZBOT_TOKEN_KEY is not a list of Fernet keys; the message never holds a key."""


class Unreadable(Exception):
    """A sealed value that no key in QUIZBOT_TOKEN_KEY opens."""


class Sealer:
    """Seals and opens token strings with the keys of QUIZBOT_TOKEN_KEY (newest first)."""

    def __init__(self, keys: str) -> None:
        parts = [k.strip() for k in keys.split(",") if k.strip()]
        if not parts:
            raise BadKey(f"{ENV} is empty; make a key with: {MAKE_KEY}")
        fernets = []
        for n, part in enumerate(parts, 1):
            try:
                fernets.append(Fernet(part))
            except (ValueError, binascii.Error):
                where = f"key {n} of {len(parts)}" if len(parts) > 1 else "the key"
                raise BadKey(
                    f"{ENV}: {where} is not a Fernet key (32 url-safe base64-encoded bytes); "
                    f"make one with: {MAKE_KEY}"
                ) from None
        self._newest = fernets[0]
        self._all = MultiFernet(fernets)

    def seal(self, value: str | None) -> str | None:
        """`value` sealed with the newest key; None and values already sealed as they are."""
        if value is None or value.startswith(PREFIX):
            return value
        return PREFIX + self._all.encrypt(value.encode()).decode()

    def unseal(self, value: str | None) -> str | None:
        """The plain token; a value without the prefix (stored before sealing) as it is."""
        if value is None or not value.startswith(PREFIX):
            return value
        try:
            return self._all.decrypt(value.removeprefix(PREFIX).encode()).decode()
        except InvalidToken:
            raise Unreadable from None

    def current(self, value: str | None) -> bool:
        """Whether `value` is None or sealed with the newest key (nothing to re-seal)."""
        if value is None:
            return True
        if not value.startswith(PREFIX):
            return False
        try:
            self._newest.decrypt(value.removeprefix(PREFIX).encode())
        except InvalidToken:
            return False
        return True

    def reseal(self, value: str) -> str:
        """A plain value or one sealed with an older key, sealed with the newest (Unreadable
        if no key opens it)."""
        plain = self.unseal(value)
        assert plain is not None
        return PREFIX + self._all.encrypt(plain.encode()).decode()


def _widened(table: Table, names: Iterable[str]) -> Table:
    """Token columns as TEXT: a sealed token is two to three times as long as the plain one, and
    slack_sdk's VARCHAR(200) would refuse a long (rotating) one on PostgreSQL."""
    for name in names:
        table.c[name].type = Text()
    return table


class SealedInstallationStore(AsyncSQLAlchemyInstallationStore):
    """slack_sdk's installation store with the token columns sealed by `sealer`."""

    def __init__(self, client_id: str, engine: AsyncEngine, sealer: Sealer) -> None:
        super().__init__(client_id=client_id, engine=engine)
        self.sealer = sealer
        self._reported: set[str | None] = set()

    @classmethod
    def build_installations_table(cls, metadata: MetaData, table_name: str) -> Table:
        table = super().build_installations_table(metadata, table_name)
        return _widened(table, INSTALLATION_FIELDS)

    @classmethod
    def build_bots_table(cls, metadata: MetaData, table_name: str) -> Table:
        return _widened(super().build_bots_table(metadata, table_name), BOT_FIELDS)

    def report(self, enterprise_id: str | None, team_id: str | None) -> None:
        """Logs an unreadable token once per workspace (never the value)."""
        workspace = team_id or enterprise_id
        if workspace in self._reported:
            return
        self._reported.add(workspace)
        log.error(
            "the stored Slack token of workspace %s cannot be decrypted with any key in %s: "
            "treated as not installed (restore the key that sealed it, or reinstall the app "
            "in that workspace)",
            workspace,
            ENV,
            extra={"event": "token_unreadable", "team": team_id, "enterprise": enterprise_id},
        )

    def _sealed(self, entity: Any, fields: Iterable[str]) -> Any:
        sealed = copy.copy(entity)
        for name in fields:
            setattr(sealed, name, self.sealer.seal(getattr(entity, name)))
        return sealed

    def _opened(self, entity: Any, fields: Iterable[str]) -> Any:
        try:
            for name in fields:
                setattr(entity, name, self.sealer.unseal(getattr(entity, name)))
        except Unreadable:
            self.report(entity.enterprise_id, entity.team_id)
            return None
        self._reported.discard(entity.team_id or entity.enterprise_id)  # readable again: a
        # reinstall, or the key restored; a later failure is news again
        return entity

    async def async_save(self, installation: Installation) -> None:
        # the base class saves the bot part through async_save_bot, which finds it sealed
        await super().async_save(self._sealed(installation, INSTALLATION_FIELDS))

    async def async_save_bot(self, bot: Bot) -> None:
        await super().async_save_bot(self._sealed(bot, BOT_FIELDS))

    async def async_find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        bot = await super().async_find_bot(
            enterprise_id=enterprise_id,
            team_id=team_id,
            is_enterprise_install=is_enterprise_install,
        )
        found: Bot | None = None if bot is None else self._opened(bot, BOT_FIELDS)
        return found

    async def async_find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        # the base class may copy the bot fields over from async_find_bot, already opened
        installation = await super().async_find_installation(
            enterprise_id=enterprise_id,
            team_id=team_id,
            user_id=user_id,
            is_enterprise_install=is_enterprise_install,
        )
        found: Installation | None = (
            None if installation is None else self._opened(installation, INSTALLATION_FIELDS)
        )
        return found

    async def widen(self) -> None:
        """Makes existing VARCHAR token columns TEXT on PostgreSQL (SQLite ignores lengths);
        tables that `create_tables` made already have TEXT."""
        if self.engine.dialect.name != "postgresql":
            return
        wanted = {self.bots.name: BOT_FIELDS, self.installations.name: INSTALLATION_FIELDS}

        def narrow(conn: Connection) -> list[tuple[str, str]]:
            found = []
            inspector = inspect(conn)
            for table, names in wanted.items():
                for column in inspector.get_columns(table):
                    length = getattr(column["type"], "length", None)
                    if column["name"] in names and length is not None:
                        found.append((table, column["name"]))
            return found

        async with self.engine.begin() as conn:
            for table, column in await conn.run_sync(narrow):
                # constant names from slack_sdk's tables, never input
                await conn.execute(text(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE TEXT'))

    async def reseal(self) -> int:
        """Seals plain token values and re-seals those of an older key with the newest; the
        number of values rewritten. A value no key opens is reported and left alone."""
        rewritten = 0
        for table, names in (
            (self.bots, BOT_FIELDS),
            (self.installations, INSTALLATION_FIELDS),
        ):
            c = table.c
            columns = [c.id, c.enterprise_id, c.team_id, *(c[n] for n in names)]
            async with self.engine.connect() as conn:
                rows = (
                    await conn.execute(select(*columns).where(c.client_id == self.client_id))
                ).all()
            for row in rows:
                changes: dict[str, str] = {}
                for name in names:
                    value = getattr(row, name)
                    if self.sealer.current(value):
                        continue
                    try:
                        changes[name] = self.sealer.reseal(value)
                    except Unreadable:
                        self.report(row.enterprise_id, row.team_id)
                if not changes:
                    continue
                # only if the row still holds what was read: another process may reseal too
                same = [c[n] == getattr(row, n) for n in changes]
                async with self.engine.begin() as conn:
                    result = await conn.execute(
                        update(table).where(c.id == row.id, *same).values(**changes)
                    )
                rewritten += len(changes) if result.rowcount else 0
        if rewritten:
            log.info("sealed %d stored Slack token(s) with the newest key", rewritten)
        return rewritten
