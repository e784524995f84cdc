"""`run_slack(app)`: Socket Mode through a local socket-mode server, and HTTP mode on a port."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import aiohttp
import pytest

from bot.config import parse_config
from bot.slack.app import SlackSetupError
from bot.slack.runner import check_setup, run_slack
from tests.slack.conftest import TEST_DECK, SlackFactory
from tests.slack.harness import SIGNING_SECRET, SlackTester, all_text


def _slash_payload(response_url: str, text: str) -> dict[str, str]:
    return {
        "token": "legacy",
        "team_id": "T1",
        "team_domain": "team-t1",
        "channel_id": "C1",
        "channel_name": "general",
        "user_id": "U1",
        "user_name": "u1",
        "command": "/quiz",
        "text": text,
        "api_app_id": "A1",
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": "1.2.3",
    }


async def test_socket_mode_acks_the_envelope_and_replies(make_slack: SlackFactory) -> None:
    slack = await make_slack(mode="socket")
    fake = slack.fake
    task = asyncio.create_task(run_slack(slack.app))
    try:
        await fake.until(lambda: bool(fake.api("apps.connections.open")))
        envelope = {
            "envelope_id": "57d6a792-4d35-4d0b-b6aa-3361493e1caf",
            "type": "slash_commands",
            "accepts_response_payload": True,
            "payload": _slash_payload(fake.response_url("sock"), f"post {TEST_DECK} sum"),
        }
        started = time.perf_counter()
        await fake.socket_send(envelope)
        await fake.until(lambda: bool(fake.socket_received))
        assert time.perf_counter() - started < 3.0
        assert fake.socket_received[0]["envelope_id"] == envelope["envelope_id"]
        await fake.until(lambda: bool(fake.api("chat.postMessage")))
        assert "2 + 2 = ?" in all_text(fake.api("chat.postMessage")[0].params["blocks"])

        envelope2 = {**envelope, "envelope_id": "e2"}
        envelope2["payload"] = _slash_payload(fake.response_url("sock2"), "help")
        await fake.socket_send(envelope2)
        reply = await fake.reply("sock2")
        assert "quizbot: a question at a time" in all_text(reply["blocks"])
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_http_mode_serves_slack_events_on_the_configured_port(
    make_slack: SlackFactory,
) -> None:
    port = _free_port()
    slack = await make_slack(mode="http", port=port)
    task = asyncio.create_task(run_slack(slack.app))
    try:
        url = f"http://127.0.0.1:{port}/slack/events"
        async with aiohttp.ClientSession() as session:
            tester = SlackTester(url, slack.fake, session)
            for _ in range(100):  # until the server is up
                try:
                    sent = await tester.command("help")
                    break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.02)
            assert sent.status == 200
            reply = await slack.fake.reply(sent.key)
            assert "quizbot: a question at a time" in all_text(reply["blocks"])
            forged = await tester.send(
                "text=help", "application/x-www-form-urlencoded", signature="v0=00"
            )
            assert forged.status == 401
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


@pytest.mark.parametrize(
    ("mode", "env", "missing"),
    [
        ("socket", {"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_APP_TOKEN"),
        ("http", {"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
    ],
)
def test_setup_names_the_missing_secret(
    tmp_path: Path, mode: str, env: dict[str, str], missing: str
) -> None:
    config = parse_config(f'[slack]\nenabled = true\nmode = "{mode}"\n', "c.toml", tmp_path, env)
    with pytest.raises(SlackSetupError, match=missing):
        check_setup(config)


async def test_no_token_at_all_is_a_setup_error(tmp_path: Path) -> None:
    from bot.app import build_app
    from bot.slack.app import build_slack
    from tests.slack.conftest import library

    config = parse_config(
        f'[database]\nurl = "sqlite:///{tmp_path}/q.db"\n[slack]\nenabled = true\n',
        "c.toml",
        tmp_path,
        {"SLACK_SIGNING_SECRET": SIGNING_SECRET},
    )
    app = await build_app(config, library=library())
    try:
        with pytest.raises(SlackSetupError, match="SLACK_BOT_TOKEN"):
            build_slack(app)
    finally:
        await app.close()
