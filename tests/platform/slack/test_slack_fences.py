"""Fences around the slack-bolt internals the fast paths use (issue 32, finding 7): each test
fails, never warns, when the installed bolt moves what the bot relies on. slack-bolt and
slack-sdk are pinned to the minor releases these pass on (pyproject.toml, and constraints.txt
for the image).

Everything of bolt's that the bot relies on past its public API is in `bot.slack.fastpath`:

- `Acks`: bolt, with `process_before_response=True`, returns what a listener
  returns when it is a `BoltResponse`, else what `ack()` recorded in `AsyncAck.response`; it
  reads a listener's arguments through `functools.wraps` (`inspect.unwrap`).
- `SocketHandler`: overrides `AsyncSocketModeHandler.handle(client, req)`,
  which bolt registers, bound, as the Socket Mode client's request listener.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
import slack_bolt
import slack_sdk
from packaging.requirements import Requirement
from packaging.version import Version
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.listener.asyncio_runner import AsyncioListenerRunner
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_bolt.util.utils import get_arg_names_of_callable

from bot.slack.fastpath import NOT_ACKED, Acks, SocketHandler
from bot.slack.gate import RequestGate

ROOT = Path(__file__).resolve().parents[3]


async def test_ack_records_its_response_where_acks_reads_it() -> None:
    ack = AsyncAck()
    assert ack.response is None
    said = await ack()
    assert isinstance(said, BoltResponse) and ack.response is said and said.status == 200


def test_bolt_reads_a_wrapped_listeners_arguments_through_functools_wraps() -> None:
    async def listener(ack: Any, body: dict[str, Any], respond: Any) -> None: ...

    async def event(body: dict[str, Any], context: Any) -> None: ...

    acks = Acks()
    assert get_arg_names_of_callable(acks.early(listener)) == ["ack", "body", "respond"]
    assert get_arg_names_of_callable(acks.early(event)) == ["body", "context"]
    runner = inspect.getsource(AsyncioListenerRunner.run)
    assert "if isinstance(returned_value, BoltResponse):" in runner
    assert "response = returned_value" in runner


async def _authorize(**_: Any) -> AuthorizeResult:
    """Every request authorized offline (a token would send auth.test to slack.com)."""
    return AuthorizeResult(enterprise_id=None, team_id="T1", bot_token="xoxb-fence")


def _app() -> AsyncApp:
    return AsyncApp(
        process_before_response=True,
        signing_secret="secret",
        authorize=_authorize,
        request_verification_enabled=False,
    )


def _click(action_id: str) -> AsyncBoltRequest:
    payload = {
        "type": "block_actions",
        "team": {"id": "T1"},
        "user": {"id": "U1", "team_id": "T1"},
        "api_app_id": "A1",
        "container": {"type": "message", "channel_id": "C1", "message_ts": "1.2"},
        "channel": {"id": "C1"},
        "actions": [{"action_id": action_id, "block_id": "b", "value": "v", "type": "button"}],
    }
    return AsyncBoltRequest(body=f"payload={json.dumps(payload)}", headers={})


async def test_bolt_answers_at_the_ack_or_with_what_a_listener_returned() -> None:
    app, acks = _app(), Acks()
    done = asyncio.Event()

    async def acked(ack: Any) -> None:
        await ack()
        await done.wait()  # its work goes on after Slack was answered

    async def never(ack: Any) -> None:
        return None

    app.action("acked")(acks.early(acked))
    app.action("never")(acks.early(never))
    assert (await app.async_dispatch(_click("acked"))).status == 200
    assert not done.is_set()  # answered while the listener still works
    done.set()
    assert (await app.async_dispatch(_click("never"))).status == NOT_ACKED


async def test_the_socket_mode_handler_is_registered_bound_and_overridden() -> None:
    handle = inspect.signature(AsyncSocketModeHandler.handle)
    assert list(handle.parameters) == ["self", "client", "req"]
    handler = SocketHandler(_app(), "xapp-fence", RequestGate())
    assert handler.client.socket_mode_request_listeners == [handler.handle]
    assert handler.handle.__func__ is SocketHandler.handle  # type: ignore[attr-defined]
    assert callable(handler.connect_async)
    await handler.close_async()  # never connected: closes its session


def _pin(text: str, name: str) -> Requirement:
    (pin,) = [
        r
        for line in text.splitlines()
        if line.strip() and not line.startswith("#")
        for r in [Requirement(line)]
        if r.name == name
    ]
    return pin


@pytest.mark.parametrize(
    ("name", "version"),
    [("slack-bolt", slack_bolt.version.__version__), ("slack-sdk", slack_sdk.version.__version__)],
)
def test_bolt_and_the_sdk_are_pinned_to_the_minor_release_these_fences_pass_on(
    name: str, version: str
) -> None:
    pin = _pin((ROOT / "constraints.txt").read_text(encoding="utf-8"), name)
    installed = Version(version)
    assert installed in pin.specifier
    after = Version(f"{installed.major}.{installed.minor + 1}")
    assert after not in pin.specifier, f"constraints.txt lets {name} {after} in untested"
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (range_,) = [
        Requirement(d) for d in declared["project"]["dependencies"] if Requirement(d).name == name
    ]
    assert installed in range_.specifier
    assert after not in range_.specifier, f"pyproject.toml lets {name} {after} in untested"


def test_the_image_installs_with_the_constraints() -> None:
    lines = (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
    assert "COPY constraints.txt ./" in lines
    (install,) = [line for line in lines if "pip install" in line]
    assert "-c constraints.txt" in install
