"""`run_slack(services)`: Socket Mode through a local socket-mode server, and HTTP mode on a
port."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from pathlib import Path

import aiohttp
import pytest
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler

from bot.config import parse_config
from bot.slack.app import SlackSetupError
from bot.slack.delivery import SlackDelivery
from bot.slack.runner import check_setup, run_slack
from tests.slack.conftest import TEST_DECK, SlackFactory
from tests.slack.fake_slack import BOT_TOKEN
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
    task = asyncio.create_task(run_slack(slack.app.services))
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
    task = asyncio.create_task(run_slack(slack.app.services))
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
            delivery = slack.app.services.deliveries.get("slack")  # daily questions go out now
            assert isinstance(delivery, SlackDelivery)
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
        ("socket", {"SLACK_BOT_TOKEN": "xoxb-1"}, ["SLACK_APP_TOKEN"]),
        ("http", {"SLACK_BOT_TOKEN": "xoxb-1"}, ["SLACK_SIGNING_SECRET"]),
        (
            "socket",
            {},
            ["SLACK_BOT_TOKEN", "SLACK_CLIENT_ID and SLACK_CLIENT_SECRET", "SLACK_APP_TOKEN"],
        ),
        ("http", {}, ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"]),
        ("http", {"SLACK_CLIENT_ID": "1.2"}, ["SLACK_CLIENT_SECRET", "SLACK_SIGNING_SECRET"]),
        ("socket", {"SLACK_CLIENT_SECRET": "s", "SLACK_APP_TOKEN": "xapp-1"}, ["SLACK_CLIENT_ID"]),
    ],
)
def test_setup_names_every_missing_secret_at_once(
    tmp_path: Path, mode: str, env: dict[str, str], missing: list[str]
) -> None:
    config = parse_config(f'[slack]\nenabled = true\nmode = "{mode}"\n', "c.toml", tmp_path, env)
    with pytest.raises(SlackSetupError) as raised:
        check_setup(config)
    message = str(raised.value)
    assert "\n" not in message
    for name in missing:
        assert name in message, (name, message)
    for name in {"SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET"} - set(missing):
        assert f"{name} (" not in message


@pytest.mark.parametrize(
    ("mode", "env"),
    [
        ("socket", {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}),
        (
            "http",
            {
                "SLACK_CLIENT_ID": "1.2",
                "SLACK_CLIENT_SECRET": "s",
                "SLACK_SIGNING_SECRET": "x",
                "QUIZBOT_TOKEN_KEY": "cXVpemJvdC10ZXN0cy10b2tlbi1rZXktMzItYnl0ZXM=",
            },
        ),
    ],
)
def test_a_complete_setup_passes(tmp_path: Path, mode: str, env: dict[str, str]) -> None:
    config = parse_config(f'[slack]\nenabled = true\nmode = "{mode}"\n', "c.toml", tmp_path, env)
    check_setup(config)


async def test_a_refused_bot_token_stops_the_start_and_names_it(
    make_slack: SlackFactory,
) -> None:
    slack = await make_slack(mode="socket")
    slack.fake.tokens.clear()  # Slack no longer knows the bot token
    with pytest.raises(SlackSetupError, match=r"Slack refused SLACK_BOT_TOKEN \(invalid_auth\)"):
        await asyncio.wait_for(run_slack(slack.app.services), 10)
    assert len(slack.fake.api("auth.test")) == 1
    assert not slack.fake.api("apps.connections.open")


async def test_a_refused_app_token_stops_the_start_and_names_it(
    make_slack: SlackFactory,
) -> None:
    slack = await make_slack(mode="socket")
    slack.fake.app_tokens.clear()
    started = time.perf_counter()
    with pytest.raises(SlackSetupError, match=r"Slack refused SLACK_APP_TOKEN \(invalid_auth\)"):
        await asyncio.wait_for(run_slack(slack.app.services), 10)
    assert time.perf_counter() - started < 3.0  # no reconnect loop
    assert len(slack.fake.api("apps.connections.open")) == 1
    assert [c.token for c in slack.fake.api("auth.test")] == [BOT_TOKEN]


async def test_an_unreachable_slack_is_a_setup_error(make_slack: SlackFactory) -> None:
    slack = await make_slack(mode="http", port=_free_port())
    await slack.fake.stop()
    with pytest.raises(
        SlackSetupError, match=r"cannot reach the Slack Web API at http://127\.0\.0\.1"
    ):
        await asyncio.wait_for(run_slack(slack.app.services), 20)


async def test_no_token_at_all_is_a_setup_error(tmp_path: Path) -> None:
    from bot.bootstrap import build_app
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
            build_slack(app.services)
    finally:
        await app.close()


async def test_bolt_is_built_without_the_unused_token_warning(
    make_slack: SlackFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)  # bolt reads it from os.environ itself
    caplog.set_level(logging.DEBUG)
    slack = await make_slack()
    assert not [r for r in caplog.records if "unused" in r.getMessage()]
    client = slack.bot.bolt.client
    assert client.token == BOT_TOKEN and client.base_url == slack.fake.api_url
    assert any(isinstance(h, AsyncRateLimitErrorRetryHandler) for h in client.retry_handlers)
    post_id = await slack.post(f"{TEST_DECK} sky")  # requests reach the fake, with the token
    assert slack.fake.api("chat.postMessage")[-1].token == BOT_TOKEN
    assert post_id
