"""Reliability and security of the Slack side: the real bot (in this process, or as the
`quizbot run` subprocess) against a local fake of Slack that can fail on purpose.

- `FaultySlack`: bot/testing/fake_slack.py's FakeSlack, whose fault plan (bot/testing/faults.py)
  queues faults per Web API method (or "response_url"): a 429 with Retry-After, a 500, a hang
  past the client's timeout, a connection closed without an answer. Every attempt is counted.
- `make_live`: build_app + build_slack + web_app on loopback, on a SQLite file or a store the
  test passes (PostgreSQL through a proxy it can cut).
- `BotProcess`: `python -m bot run --config ...` in HTTP mode, its stderr (JSON log lines) kept.
- `burst`: many signed clicks at once, each remembered with what became of it.

Decks are YAML files written to a temporary folder, so the subprocess and the in-process bot
load the same thing the way `quizbot run` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import sqlite3
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
import yaml
from aiohttp import web
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bot.bootstrap import App, build_app
from bot.config import parse_config
from bot.observability.ops import ops_listener
from bot.service.ports import QuizStore
from bot.slack.app import SlackBot, build_slack
from bot.slack.http import EVENTS_PATH, web_app
from bot.storage import database_url
from bot.testing.fake_slack import FakeSlack, Workspace
from bot.testing.faults import Fault, dropped, failed, hung, rate_limited
from bot.testing.slack_requests import SIGNING_SECRET, SlackTester
from tests.contract.storage.test_store_outage import Proxy
from tests.databases import (
    POSTGRES_URL,
    pg_schema,  # noqa: F401 (a fixture)
)

# Distinctive secrets: the log checks look for these exact strings.
BOT_TOKEN = "xoxb-4242-reliability-bot-token-0123456789"
SECRET = SIGNING_SECRET
DECK = "rel"
QUESTION = "capital"  # choices in this order (shuffle: false): A right, B and C wrong
RIGHT = "✅ Right!"
WRONG = "❌ Not quite."
TRY_AGAIN = "The quiz is busy right now; your answer was not saved. Please click again."
STALE = "That button no longer belongs to an open question."
ADMIN_ONLY = "Only an admin can do that."
LETTERS = "ABCDE"

RELIABILITY_DECK: dict[str, Any] = {
    "id": DECK,
    "title": "Reliability",
    "locales": ["en"],
    "shuffle": False,
    "questions": [
        {
            "id": QUESTION,
            "text": "Which city is the capital of France?",
            "choices": [
                "Paris",
                {"text": "Lyon", "why": "Lyon is the third city of France."},
                {"text": "Marseille", "why": "Marseille is a port."},
            ],
            "answer": 0,
            "explanation": "Paris has been the capital for most of the last 1500 years.",
        },
        {
            "id": "sum",
            "text": "2 + 2 = ?",
            "choices": ["4", {"text": "5", "why": "One too many."}],
            "answer": 0,
            "explanation": "Two and two make four.",
        },
    ],
}


def write_decks(folder: Path, *decks: dict[str, Any]) -> Path:
    """Writes decks as YAML files into `folder` (created); the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for deck in decks or (RELIABILITY_DECK,):
        text = yaml.safe_dump(deck, allow_unicode=True, sort_keys=False)
        (folder / f"{deck['id']}.yaml").write_text(text, encoding="utf-8")
    return folder


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config_text(
    api_url: str,
    decks: Path,
    *,
    database: str = "sqlite:///quiz.db",
    port: int = 3000,
    admins: Iterable[str] = (),
    mode: str = "http",
    discord_urls: tuple[str, str] | None = None,
    slack_extra: str = "",
) -> str:
    """A config for Slack (HTTP or Socket Mode) against the fake at `api_url`, or, with
    `discord_urls` (REST, gateway), for Discord alone."""
    head = f"""
[database]
url = {json.dumps(database)}

[questions]
paths = [{json.dumps(str(decks))}]
shipped = false

[ops]
port = 0
"""
    if discord_urls is not None:
        rest, gateway = discord_urls
        return (
            head
            + f"""
[discord]
enabled = true
api_url = {json.dumps(rest)}
gateway_url = {json.dumps(gateway)}
"""
        )
    return (
        head
        + f"""
[slack]
enabled = true
mode = {json.dumps(mode)}
host = "127.0.0.1"
port = {port}
api_url = {json.dumps(api_url)}
admins = {json.dumps(list(admins))}
{slack_extra}
"""
    )


# The fake Slack, with faults ----------------------------------------------------------

FAULTS = ("429", "500", "hang", "close")
HANG_SECONDS = 3.0


def fault_named(name: str) -> Fault:
    """The faults these tests name, as bot/testing/faults.py plans them: "429" (Retry-After 1),
    "500", "500-done" (the call is done, then answered 500), "hang" (no answer for
    HANG_SECONDS), "close" (the connection is closed without an answer)."""
    return {
        "429": rate_limited(1),
        "500": failed(500),
        "500-done": failed(500, after_work=True),
        "hang": hung(HANG_SECONDS),
        "close": dropped(),
    }[name]


@dataclass
class FaultySlack(FakeSlack):
    """FakeSlack with the reliability tests' token, closing each connection after its
    answer; its fault plan (`faults`, bot/testing/faults.py) makes calls fail on purpose."""

    def __post_init__(self) -> None:
        self.tokens = {BOT_TOKEN: Workspace("T1")}
        self.keep_alive = False  # `settle` waits for every task a request started

    def successful(self, method: str) -> list[Any]:
        return [c for c in self.api(method) if c.status == 200 and (c.answer or {}).get("ok")]


def post_id_of(call_params: dict[str, Any]) -> int:
    """The post id in a question message's answer buttons (`p:<post>:<shown>`)."""
    value = next(
        e["value"]
        for b in call_params["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if str(e.get("value", "")).startswith("p:")
    )
    return int(value.split(":")[1])


def reply_text(body: dict[str, Any]) -> str:
    """Every text in a response_url post (fallback and blocks), for assertions."""
    out = [str(body.get("text", ""))]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                out.append(node["text"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(body.get("blocks", []))
    return "\n".join(out)


# Clicks --------------------------------------------------------------------------------


@dataclass
class Shot:
    """One click: who, which button, where its reply goes, and what the HTTP request got."""

    user: str
    shown: int
    key: str
    sent: bool = False
    status: int | None = None
    """None: no HTTP answer (refused, reset, the bot died) or not sent."""
    elapsed: float = 0.0


def click_payload(tester: SlackTester, post_id: int, shot: Shot, team: str = "T1") -> str:
    payload = tester.action_payload(
        f"quiz_answer_{LETTERS[shot.shown]}",
        f"p:{post_id}:{shot.shown}",
        user=shot.user,
        team=team,
        key=shot.key,
    )
    return json.dumps(payload)


async def send_click(tester: SlackTester, post_id: int, shot: Shot) -> Shot:
    from urllib.parse import urlencode

    body = urlencode({"payload": click_payload(tester, post_id, shot)})
    started = time.perf_counter()
    shot.sent = True
    try:
        sent = await tester.send(body, "application/x-www-form-urlencoded", key=shot.key)
        shot.status = sent.status
    except (aiohttp.ClientError, TimeoutError):
        shot.status = None
    shot.elapsed = time.perf_counter() - started
    return shot


async def burst(
    tester: SlackTester,
    post_id: int,
    shots: list[Shot],
    *,
    concurrency: int = 40,
    acked: Callable[[int], None] | None = None,
    patient: asyncio.Event | None = None,
) -> list[Shot]:
    """Sends every click, at most `concurrency` at a time; `acked(n)` after each 200.

    With `patient`, a click keeps its place until its reply arrives (as a person waits for
    the answer before the next one clicks), or until `patient` is set (the bot is gone)."""
    gate = asyncio.Semaphore(concurrency)
    count = 0

    async def replied(shot: Shot) -> None:
        assert patient is not None
        waiting = asyncio.ensure_future(
            tester.fake.until(lambda: bool(tester.fake.replies(shot.key)), seconds=120)
        )
        gone = asyncio.ensure_future(patient.wait())
        await asyncio.wait([waiting, gone], return_when=asyncio.FIRST_COMPLETED)
        for task in (waiting, gone):
            task.cancel()

    async def one(shot: Shot) -> Shot:
        nonlocal count
        async with gate:
            if patient is not None and patient.is_set():
                return shot  # never sent: the bot is gone
            await send_click(tester, post_id, shot)
            if shot.status == 200 and patient is not None:
                await replied(shot)
        if shot.status == 200:
            count += 1
            if acked is not None:
                acked(count)
        return shot

    return list(await asyncio.gather(*(one(s) for s in shots)))


Database = Path | str
"""Where a bot keeps its answers: a SQLite file, or a PostgreSQL URL."""


def rows_of(database: Database, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """Rows straight from the bot's database (`$1`-style parameters), read synchronously so
    that `eventually` checks can call it: SQLite with `sqlite3`, PostgreSQL with asyncpg on a
    thread of its own (the test's event loop is running)."""
    if isinstance(database, Path):
        with contextlib.closing(sqlite3.connect(database)) as con:
            return con.execute(re.sub(r"\$\d+", "?", sql), params).fetchall()

    async def fetch() -> list[tuple[Any, ...]]:
        url = database.replace("postgresql+asyncpg://", "postgresql://")
        conn = await asyncpg.connect(url)
        try:
            return [tuple(r) for r in await conn.fetch(sql, *params)]
        finally:
            await conn.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, fetch()).result()


def answers_by_user(db: Database, post_id: int) -> dict[str, list[int]]:
    """user -> the choices stored for them on the post, straight from the database."""
    rows = rows_of(
        db, "SELECT user_id, choice FROM answers WHERE post_id = $1 ORDER BY id", post_id
    )
    out: dict[str, list[int]] = {}
    for user, choice in rows:
        out.setdefault(user, []).append(choice)
    return out


async def eventually(
    check: Callable[[], Awaitable[bool]] | Callable[[], bool], seconds: float = 30.0
) -> None:
    """Waits until `check()` holds (work done after the ack, in the background)."""
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if isinstance(result, Awaitable):
            result = await result
        if result:
            return
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def settle(before: set[asyncio.Task[Any]], seconds: float = 30.0) -> None:
    """Waits for every task started since `before` was taken: the work behind an ack.

    Use it with requests on connections that close after each request (`force_close`), so
    no server task outlives its request."""
    me = asyncio.current_task()
    deadline = time.monotonic() + seconds
    while True:
        pending = {
            t for t in asyncio.all_tasks() if t not in before and t is not me and not t.done()
        }
        if not pending:
            return
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"work still running: {pending}"
        await asyncio.wait(pending, timeout=remaining)


# The bot as `quizbot run` ------------------------------------------------------------------


def bot_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SLACK_", "DISCORD_", "QUIZBOT_CONFIG"))
    }
    return {**env, "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SECRET, **extra}


class BotProcess:
    """`python -m bot run --config <folder>/config.toml`: Slack in HTTP mode on a free port
    (or Socket Mode, `mode="socket"`), or Discord (`discord_urls`: the fake's REST base and
    gateway); ready once a line of its log contains `ready` (or once `ready()` holds)."""

    def __init__(
        self,
        folder: Path,
        api_url: str,
        decks: Path,
        *,
        db: Database | None = None,
        log_level: str = "INFO",
        mode: str = "http",
        env: dict[str, str] | None = None,
        ready: str | Callable[[], bool] = "Slack HTTP on",
        discord_urls: tuple[str, str] | None = None,
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.port = free_port()
        self.log_level = log_level
        self.config = folder / "config.toml"
        self.db = db or folder / "quiz.db"
        self.env = env or {}
        self.ready = ready
        self.config.write_text(
            config_text(
                api_url,
                decks,
                database=self.db if isinstance(self.db, str) else f"sqlite:///{self.db}",
                port=self.port,
                mode=mode,
                discord_urls=discord_urls,
            )
        )
        self.lines: list[str] = []
        self.proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    @property
    def events_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{EVENTS_PATH}"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, seconds: float = 120.0) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            "--config",
            str(self.config),
            "--log-level",
            self.log_level,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=bot_env(**self.env),
            cwd=self.folder,
        )
        self._reader = asyncio.create_task(self._read())
        deadline = time.monotonic() + seconds
        while not self._ready():
            if self.proc.returncode is not None:
                await self._reader
                raise AssertionError(f"the bot exited at start:\n{self.stderr}")
            assert time.monotonic() < deadline, f"the bot did not start:\n{self.stderr}"
            await asyncio.sleep(0.05)

    def _ready(self) -> bool:
        if callable(self.ready):
            return self.ready()
        ready = self.ready
        return any(ready in line for line in self.lines)

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        async for line in self.proc.stderr:
            self.lines.append(line.decode("utf-8", "replace"))

    @property
    def stderr(self) -> str:
        return "".join(self.lines)

    def events(self, name: str) -> list[dict[str, Any]]:
        """The JSON log lines whose `event` is `name`."""
        out = []
        for line in self.lines:
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict) and record.get("event") == name:
                    out.append(record)
        return out

    def signal(self, sig: signal.Signals) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    async def wait(self, seconds: float = 60.0) -> int:
        assert self.proc is not None
        code = await asyncio.wait_for(self.proc.wait(), seconds)
        if self._reader is not None:
            await asyncio.wait_for(self._reader, seconds)
        return code

    async def stop(self) -> None:
        """Kills the process if it still runs (test teardown)."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 10)


SECRET_STRINGS = (BOT_TOKEN, SECRET)


def assert_no_secrets(text: str) -> None:
    for secret in SECRET_STRINGS:
        assert secret not in text, "a secret reached the logs"
    assert "xoxb-4242" not in text  # not even a prefix of the token


async def proxied_postgres(schema: str) -> tuple[Proxy, str]:
    """A cuttable TCP proxy in front of the test PostgreSQL, and the URL through it."""
    from sqlalchemy.engine import make_url

    from bot.storage import database_url

    target = make_url(database_url(POSTGRES_URL, Path.cwd()))
    proxy = Proxy(target.host or "127.0.0.1", target.port or 5432)
    await proxy.start()
    url = target.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    return proxy, url


# The bot in this process ------------------------------------------------------------------


@dataclass
class Live:
    fake: FaultySlack
    app: App
    bot: SlackBot
    tester: SlackTester
    base: str
    """The events port (`/slack/events`, the OAuth pages)."""
    ops: str
    """The ops listener (`/healthz`, `/metrics`)."""
    session: aiohttp.ClientSession
    command_elapsed: float = 0.0
    """How long the last `post` took to be acknowledged."""

    async def post(self, ref: str = f"{DECK} {QUESTION}", **kwargs: Any) -> int:
        """`/quiz post REF`; waits for the message to be sent and stored; the post id."""
        before = len(self.fake.successful("chat.postMessage"))
        sent = await self.tester.command(f"post {ref}", **kwargs)
        assert sent.status == 200, sent
        self.command_elapsed = sent.elapsed
        await eventually(lambda: len(self.fake.successful("chat.postMessage")) > before)
        post_id = post_id_of(self.fake.successful("chat.postMessage")[-1].params)

        async def stored() -> bool:
            post = await self.app.store.post(post_id)
            return post is not None and post.message_ref is not None

        await eventually(stored)
        return post_id

    async def get(self, path: str, *, port: str | None = None) -> tuple[int, str, str]:
        """GET `path` on the ops listener (or on `port`, a base URL): status, content type
        header, body."""
        async with self.session.get((port or self.ops) + path) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), await resp.text()

    async def reply(self, key: str, count: int = 1, seconds: float = 30.0) -> dict[str, Any]:
        return await self.fake.reply(key, count, seconds)


LiveFactory = Callable[..., Awaitable[Live]]


@pytest.fixture
def decks(tmp_path: Path) -> Path:
    return write_decks(tmp_path / "questions")


@pytest.fixture
async def make_live(tmp_path: Path, decks: Path) -> AsyncIterator[LiveFactory]:
    made: list[tuple[Live, web.AppRunner, contextlib.AsyncExitStack]] = []
    counter = iter(range(1000))

    async def make(
        *,
        store: QuizStore | None = None,
        admins: Iterable[str] = ("UADMIN",),
        refresh_interval: float = 0.2,
        deck_folder: Path | None = None,
        fake: FaultySlack | None = None,
        slack_extra: str = "",
    ) -> Live:
        fake = fake or FaultySlack()
        await fake.start()
        folder = tmp_path / f"live{next(counter)}"
        folder.mkdir()
        env = {"SLACK_SIGNING_SECRET": SECRET, "SLACK_BOT_TOKEN": BOT_TOKEN}
        text = config_text(
            fake.api_url, deck_folder or decks, admins=admins, slack_extra=slack_extra
        )
        config = parse_config(text, "test.toml", folder, env)
        app = await build_app(config, store=store)
        bot = build_slack(app.services, refresh_interval=refresh_interval)
        await bot.prepare()
        runner = web.AppRunner(web_app(bot))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        stack = contextlib.AsyncExitStack()
        ops_port = await stack.enter_async_context(
            ops_listener(app.store.writable, app.services.metrics, "127.0.0.1", 0)
        )
        # A connection per request: no server task outlives its request (see `settle`).
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, force_close=True))
        tester = SlackTester(base + EVENTS_PATH, fake, session)
        live = Live(fake, app, bot, tester, base, f"http://127.0.0.1:{ops_port}", session)
        made.append((live, runner, stack))
        return live

    yield make
    for live, runner, stack in made:
        await live.bot.posts.flush()
        await live.session.close()
        await stack.aclose()
        await runner.cleanup()
        await live.bot.close()
        await live.app.close()
        await live.fake.stop()


TRACEBACK = re.compile(r"Traceback|File \"|site-packages|\w+Error\(|\w+Exception\b|line \d+, in")


def assert_no_traceback(fake: FakeSlack) -> None:
    """Nothing the bot sent to Slack looks like a stack trace or an exception's repr."""
    for posted in fake.responses:
        text = json.dumps(posted.body, ensure_ascii=False)
        assert not TRACEBACK.search(text), text[:500]
    for call in fake.calls:
        text = json.dumps(call.params, ensure_ascii=False, default=str)
        assert not TRACEBACK.search(text), text[:500]


@contextlib.asynccontextmanager
async def fresh_pg_database() -> AsyncIterator[str]:
    """A fresh PostgreSQL database of its own (the bot's config cannot name a schema)."""
    url = database_url(POSTGRES_URL, Path.cwd())
    name = f"quizbot_fault_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f"CREATE DATABASE {name}"))
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
        async with admin.connect() as conn:
            await conn.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
    finally:
        await admin.dispose()


@pytest.fixture
async def pg_database() -> AsyncIterator[str]:
    async with fresh_pg_database() as url:
        yield url


@pytest.fixture
async def bot_database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """The bot's database: a SQLite file, or with `parametrize("bot_database",
    ["postgresql"], indirect=True)` a PostgreSQL database of its own."""
    if getattr(request, "param", "sqlite") == "postgresql":
        async with fresh_pg_database() as url:
            yield url
    else:
        yield tmp_path / "quiz.db"
