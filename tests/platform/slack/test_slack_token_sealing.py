"""Workspace tokens sealed at rest with QUIZBOT_TOKEN_KEY: no plain token in the database,
rotation with "new,old", pre-upgrade plain rows, unreadable rows, and keys that are missing
or malformed. Through the fake Slack where a request is involved, on SQLite and PostgreSQL
where only the store is."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import astuple
from datetime import timedelta
from pathlib import Path

import aiohttp
import pytest
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.oauth.installation_store.sqlalchemy import AsyncSQLAlchemyInstallationStore
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.config import Secrets, parse_config
from bot.domain.clock import ManualClock
from bot.observability.logs import Redactor
from bot.slack.oauth import OAuth, oauth
from bot.slack.sealing import INSTALLATION_FIELDS, PREFIX, Sealer
from bot.slack.setup import SlackSetupError, check_setup
from bot.storage.engine import store_engine
from tests.databases import SQL, database
from tests.platform.slack.conftest import TEST_DECK, TOKEN_KEY, Slack, SlackFactory
from tests.platform.slack.test_slack_oauth import _install
from tests.platform.slack.test_slack_schedule import ADMIN, NINE, START, _say, _slack, _tick_at
from tests.reliability.processes.test_cli import quizbot

CLIENT_ID = "111.222"
OLD = Fernet.generate_key().decode()
NEW = Fernet.generate_key().decode()


def _store(slack: Slack) -> OAuth:
    assert slack.bot.oauth is not None
    return slack.bot.oauth


async def _raw(engine: AsyncEngine, table: str) -> list[dict[str, str | None]]:
    """The token columns of every row, as stored."""
    store = AsyncSQLAlchemyInstallationStore(client_id=CLIENT_ID, engine=engine)
    t = store.bots if table == "bots" else store.installations
    names = [n for n in INSTALLATION_FIELDS if n in t.c]
    async with engine.connect() as conn:
        rows = (await conn.execute(select(*(t.c[n] for n in names)))).all()
    return [dict(zip(names, row, strict=True)) for row in rows]


def _opens_with(key: str, value: str | None) -> str:
    assert value is not None and value.startswith(PREFIX), value
    return Fernet(key.encode()).decrypt(value.removeprefix(PREFIX).encode()).decode()


async def test_an_installed_workspace_token_is_stored_sealed_and_still_works(
    make_slack: SlackFactory,
) -> None:
    clock = ManualClock(START)
    slack = await _slack(make_slack, clock, oauth=True)
    async with aiohttp.ClientSession() as session:
        await _install(slack, session, "TA")
    engine = _store(slack).engine
    for table in ("bots", "installations"):
        [row] = await _raw(engine, table)
        assert "xoxb-TA" not in str(row)
        assert _opens_with(TOKEN_KEY, row["bot_token"]) == "xoxb-TA"
    database = engine.url.database
    assert database is not None
    files = [p for p in Path(database).parent.iterdir() if p.name.startswith("quiz.db")]
    assert files and not any(b"xoxb-TA" in p.read_bytes() for p in files)  # nor in a backup

    post_id = await slack.post(f"{TEST_DECK} sky", team="TA", channel="CTA")
    assert slack.fake.api("chat.postMessage")[-1].token == "xoxb-TA"
    right = await slack.right_shown(post_id)
    sent = await slack.tester.click(
        f"quiz_answer_{'AB'[right]}", f"p:{post_id}:{right}", user="UTA", team="TA"
    )
    assert "right" in str(await slack.fake.reply(sent.key)).lower()

    reply = await _say(
        slack, f"schedule set 09:00 Asia/Dhaka {TEST_DECK}", team="TA", channel="CTA", user=ADMIN
    )
    assert "Daily question set for" in str(reply)
    [daily] = await _tick_at(slack, clock, NINE + timedelta(seconds=5))
    assert (daily.params["channel"], daily.token) == ("CTA", "xoxb-TA")


async def test_a_token_no_key_opens_is_logged_once_and_counts_as_not_installed(
    make_slack: SlackFactory, caplog: pytest.LogCaptureFixture
) -> None:
    slack = await make_slack(oauth=True)
    async with aiohttp.ClientSession() as session:
        await _install(slack, session, "TA")
    lost = PREFIX + Fernet(Fernet.generate_key()).encrypt(b"xoxb-TA").decode()
    store = _store(slack).installations
    async with store.engine.begin() as conn:  # as if sealed with a key since thrown away
        for table in (store.bots, store.installations):
            await conn.execute(update(table).values(bot_token=lost))

    for _ in range(2):
        sent = await slack.tester.command(f"post {TEST_DECK} sky", team="TA")
        assert sent.status == 200
        assert "reinstall this app" in (await slack.fake.reply(sent.key))["text"]
    assert await _store(slack).bot_token("slack:TA") is None  # the daily question: not installed
    assert not slack.fake.api("chat.postMessage")

    errors = [
        r for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("quizbot")
    ]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    message = errors[0].getMessage()
    assert "TA" in message and "QUIZBOT_TOKEN_KEY" in message
    assert "xoxb-TA" not in caplog.text and lost not in caplog.text
    assert errors[0].exc_info is None  # no traceback


@pytest.fixture(params=SQL)
async def engine(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    async with database(request.param, tmp_path) as db:
        engine = store_engine(db.url, schema=db.schema)
        try:
            yield engine
        finally:
            await engine.dispose()


def _installation(team: str, token: str) -> Installation:
    return Installation(
        app_id="A1",
        team_id=team,
        user_id="UINSTALLER",
        bot_token=token,
        bot_id=f"B{team}",
        bot_user_id=f"UBOT{team}",
        bot_scopes="commands,chat:write",
    )


async def test_a_row_sealed_with_the_old_key_is_read_with_new_old_and_resealed_with_new(
    engine: AsyncEngine,
) -> None:
    before = oauth(CLIENT_ID, "client-secret", engine, OLD)
    await before.prepare()
    await before.installations.async_save(_installation("TA", "xoxb-TA"))
    assert _opens_with(OLD, (await _raw(engine, "bots"))[0]["bot_token"]) == "xoxb-TA"

    rotated = oauth(CLIENT_ID, "client-secret", engine, f" {NEW} , {OLD} ")
    store = rotated.installations
    bot = await store.async_find_bot(enterprise_id=None, team_id="TA")
    assert bot is not None and bot.bot_token == "xoxb-TA"
    assert await rotated.bot_token("slack:TA") == "xoxb-TA"
    installation = await store.async_find_installation(enterprise_id=None, team_id="TA")
    assert installation is not None and installation.bot_token == "xoxb-TA"

    await store.async_save_bot(bot)  # a save (a refreshed token) seals with the new key
    assert _opens_with(NEW, (await _raw(engine, "bots"))[0]["bot_token"]) == "xoxb-TA"
    assert _opens_with(OLD, (await _raw(engine, "installations"))[0]["bot_token"])

    await rotated.prepare()  # at start: every row still sealed with the old key is resealed
    for table in ("bots", "installations"):
        [row] = await _raw(engine, table)
        assert _opens_with(NEW, row["bot_token"]) == "xoxb-TA"
    assert await rotated.installations.reseal() == 0  # nothing left to do

    after = oauth(CLIENT_ID, "client-secret", engine, NEW)  # the old key dropped
    assert await after.bot_token("slack:TA") == "xoxb-TA"
    found = await after.installations.async_find_installation(enterprise_id=None, team_id="TA")
    assert found is not None and found.bot_token == "xoxb-TA"


async def test_a_plain_row_from_before_sealing_is_read_then_sealed(engine: AsyncEngine) -> None:
    legacy = AsyncSQLAlchemyInstallationStore(client_id=CLIENT_ID, engine=engine)
    await legacy.create_tables()  # slack_sdk's own tables: VARCHAR(200) token columns
    await legacy.async_save(_installation("TA", "xoxb-TA"))

    sealed = oauth(CLIENT_ID, "client-secret", engine, NEW)
    bot = await sealed.installations.async_find_bot(enterprise_id=None, team_id="TA")
    assert bot is not None and bot.bot_token == "xoxb-TA"
    assert await sealed.bot_token("slack:TA") == "xoxb-TA"

    await sealed.prepare()
    for table in ("bots", "installations"):
        [row] = await _raw(engine, table)
        assert "xoxb-TA" not in str(row)
        assert _opens_with(NEW, row["bot_token"]) == "xoxb-TA"
    found = await sealed.installations.async_find_installation(enterprise_id=None, team_id="TA")
    assert found is not None and found.bot_token == "xoxb-TA"

    # a rotating token is long, and sealed it no longer fits slack_sdk's VARCHAR(200)
    long = "xoxe.xoxb-1-" + "x" * 150
    await sealed.installations.async_save(_installation("TB", long))
    assert await sealed.bot_token("slack:TB") == long


def test_the_sealer_keeps_none_and_plain_values_and_seals_once() -> None:
    sealer = Sealer(NEW)
    assert sealer.seal(None) is None and sealer.unseal(None) is None
    assert sealer.unseal("xoxb-plain") == "xoxb-plain"
    sealed = sealer.seal("xoxb-1")
    assert sealed is not None and sealed.startswith(PREFIX) and "xoxb-1" not in sealed
    assert sealer.seal(sealed) == sealed
    assert sealer.unseal(sealed) == "xoxb-1"
    assert sealer.current(sealed) and not sealer.current("xoxb-plain")
    assert not Sealer(f"{OLD},{NEW}").current(sealed)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("", "QUIZBOT_TOKEN_KEY"),
        ("not-a-key", "QUIZBOT_TOKEN_KEY: the key is not a Fernet key"),
        (f"{NEW},short", "QUIZBOT_TOKEN_KEY: key 2 of 2 is not a Fernet key"),
        (" , ", "QUIZBOT_TOKEN_KEY is empty"),
    ],
    ids=["unset", "not-a-key", "second-too-short", "only-commas"],  # keys are random
)
async def test_a_missing_or_malformed_key_is_a_setup_error(
    key: str, message: str, tmp_path: Path
) -> None:
    config = parse_config(
        '[slack]\nenabled = true\nmode = "http"\n',
        "test.toml",
        tmp_path,
        {
            "SLACK_CLIENT_ID": CLIENT_ID,
            "SLACK_CLIENT_SECRET": "s",
            "SLACK_SIGNING_SECRET": "x",
            "QUIZBOT_TOKEN_KEY": key,
        },
    )
    with pytest.raises(SlackSetupError, match=message) as raised:
        check_setup(config)
    assert "generate_key" in str(raised.value)
    assert "short" not in str(raised.value) and "not-a-key" not in str(raised.value)
    engine = store_engine(f"sqlite:///{tmp_path / 'q.db'}")
    try:
        with pytest.raises(SlackSetupError, match="QUIZBOT_TOKEN_KEY"):
            oauth(CLIENT_ID, "s", engine, config.secrets.token_key)
    finally:
        await engine.dispose()


def test_a_single_workspace_needs_no_key(tmp_path: Path) -> None:
    config = parse_config(
        '[slack]\nenabled = true\nmode = "http"\n',
        "test.toml",
        tmp_path,
        {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "x"},
    )
    check_setup(config)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (None, "QUIZBOT_TOKEN_KEY (OAuth distribution stores workspace tokens encrypted"),
        ("nope", "QUIZBOT_TOKEN_KEY: the key is not a Fernet key"),
    ],
)
def test_quizbot_run_names_the_key_before_anything_starts(
    tmp_path: Path, key: str | None, message: str
) -> None:
    env = {"SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": "s", "SLACK_SIGNING_SECRET": "x"}
    if key is not None:
        env["QUIZBOT_TOKEN_KEY"] = key
    proc = quizbot(tmp_path, '[slack]\nenabled = true\nmode = "http"\n', "run", env=env)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("cannot start: ")
    assert message in proc.stderr and "Fernet.generate_key()" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "quizbot.db").exists()


def test_the_key_is_read_from_the_environment_and_kept_out_of_logs() -> None:
    secrets = Secrets.from_env({"QUIZBOT_TOKEN_KEY": f"{NEW},{OLD}"})
    assert secrets.token_key == f"{NEW},{OLD}"
    assert NEW not in repr(secrets)
    redact = Redactor(astuple(secrets))  # what `quizbot run` gives the log handler
    assert NEW not in redact(f"key={NEW},{OLD} ")
