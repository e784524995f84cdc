"""Requests to the app as Slack sends them: signed, and shaped like Slack's documented payloads."""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import aiohttp
from slack_sdk.signature import SignatureVerifier

from bot.testing.fake_slack import FakeSlack

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
VERIFICATION_TOKEN = "legacy-verification-token"


@dataclass
class Sent:
    status: int
    body: str
    elapsed: float
    key: str
    """The response_url key this request carried (replies land in fake.replies(key))."""


class SlackTester:
    """Sends slash commands, button clicks and events to the app's /slack/events."""

    def __init__(self, url: str, fake: FakeSlack, session: aiohttp.ClientSession) -> None:
        self.url = url
        self.fake = fake
        self.session = session
        self.verifier = SignatureVerifier(SIGNING_SECRET)
        self._keys = itertools.count(1)

    def new_key(self) -> str:
        return f"k{next(self._keys)}"

    async def send(
        self,
        body: str,
        content_type: str,
        *,
        key: str = "",
        timestamp: str | None = None,
        signature: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Sent:
        timestamp = timestamp or str(int(time.time()))
        if signature is None:
            signature = str(self.verifier.generate_signature(timestamp=timestamp, body=body))
        all_headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": timestamp,
            "X-Slack-Signature": signature,
            **(headers or {}),
        }
        started = time.perf_counter()
        async with self.session.post(self.url, data=body.encode(), headers=all_headers) as resp:
            text = await resp.text()
            return Sent(resp.status, text, time.perf_counter() - started, key)

    async def command(
        self,
        text: str,
        *,
        user: str = "U1",
        team: str = "T1",
        channel: str = "C1",
        enterprise: str | None = None,
        org_wide: bool = False,
    ) -> Sent:
        key = self.new_key()
        form = {
            "token": VERIFICATION_TOKEN,
            "team_id": team,
            "team_domain": f"team-{team.lower()}",
            "channel_id": channel,
            "channel_name": "general",
            "user_id": user,
            "user_name": user.lower(),
            "command": "/quiz",
            "text": text,
            "api_app_id": "A1",
            "is_enterprise_install": "true" if org_wide else "false",
            "response_url": self.fake.response_url(key),
            "trigger_id": "13345224609.738474920.8088930838d88f008e0",
        }
        if enterprise:
            form["enterprise_id"] = enterprise
            form["enterprise_name"] = "Org"
        return await self.send(urlencode(form), "application/x-www-form-urlencoded", key=key)

    def action_payload(
        self,
        action_id: str,
        value: str,
        *,
        user: str = "U1",
        team: str = "T1",
        channel: str = "C1",
        message_ts: str = "1700000001.000100",
        ephemeral: bool = False,
        key: str,
        blocks: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "type": "block_actions",
            "team": {"id": team, "domain": f"team-{team.lower()}"},
            "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": team},
            "api_app_id": "A1",
            "token": VERIFICATION_TOKEN,
            "container": {
                "type": "message",
                "message_ts": message_ts,
                "channel_id": channel,
                "is_ephemeral": ephemeral,
            },
            "trigger_id": "12466734323.1395872398.7ccc3e57d1fa2a2e2a2a2a2a2a2a2a2a",
            "channel": {"id": channel, "name": "general"},
            "response_url": self.fake.response_url(key),
            "actions": [
                {
                    "action_id": action_id,
                    "block_id": "quiz_choices",
                    "text": {"type": "plain_text", "text": "A", "emoji": True},
                    "value": value,
                    "type": "button",
                    "action_ts": f"{time.time():.6f}",
                }
            ],
        }
        if not ephemeral:
            payload["message"] = {
                "type": "message",
                "user": "UBOT",
                "ts": message_ts,
                "text": "Quiz",
                "blocks": blocks or [],
            }
        return payload

    async def send_payload(self, payload: dict[str, Any], key: str) -> Sent:
        body = urlencode({"payload": json.dumps(payload)})
        return await self.send(body, "application/x-www-form-urlencoded", key=key)

    async def click(self, action_id: str, value: str, **kwargs: Any) -> Sent:
        key = self.new_key()
        return await self.send_payload(
            self.action_payload(action_id, value, key=key, **kwargs), key
        )

    async def press(self, blocks: list[dict[str, Any]], label: str, **kwargs: Any) -> Sent:
        """Clicks the button labelled `label` among `blocks`."""
        button = next(b for b in buttons(blocks) if b["text"]["text"] == label)
        return await self.click(button["action_id"], button["value"], **kwargs)

    async def event(
        self,
        event: dict[str, Any],
        *,
        team: str = "T1",
        event_id: str = "Ev0001",
        retry: int | None = None,
    ) -> Sent:
        body = {
            "token": VERIFICATION_TOKEN,
            "team_id": team,
            "api_app_id": "A1",
            "event": event,
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [
                {
                    "enterprise_id": None,
                    "team_id": team,
                    "user_id": "UBOT",
                    "is_bot": True,
                    "is_enterprise_install": False,
                }
            ],
            "is_ext_shared_channel": False,
        }
        headers = {}
        if retry is not None:
            headers = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
        return await self.send(json.dumps(body), "application/json", headers=headers)


def buttons(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e
        for b in blocks
        if b.get("type") == "actions"
        for e in b.get("elements", [])
        if e.get("type") == "button"
    ]


def all_text(blocks: list[dict[str, Any]]) -> str:
    """Every text in the blocks, one per line (for assertions)."""
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                out.append(node["text"])
            for value in node.values():
                if isinstance(value, dict | list):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(blocks)
    return "\n".join(out)


def report_submission(
    key: str, reason: str, details: str | None, user: str = "U9"
) -> dict[str, Any]:
    """A view_submission of the report form, as Slack sends it."""
    values: dict[str, Any] = {
        "reason": {
            "reason": {
                "type": "static_select",
                "selected_option": {
                    "text": {"type": "plain_text", "text": reason, "emoji": True},
                    "value": reason,
                },
            }
        },
        "details": {"details": {"type": "plain_text_input", "value": details}},
    }
    return {
        "type": "view_submission",
        "team": {"id": "T1", "domain": "team-t1"},
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": "T1"},
        "api_app_id": "A1",
        "token": VERIFICATION_TOKEN,
        "trigger_id": "12345.98765.abcd2358fdea",
        "view": {
            "id": "V2",
            "team_id": "T1",
            "type": "modal",
            "blocks": [],
            "private_metadata": key,
            "callback_id": "quiz_report_form",
            "state": {"values": values},
            "hash": f"{int(time.time())}.abc",
            "title": {"type": "plain_text", "text": "Report a problem"},
            "app_id": "A1",
            "bot_id": "B1",
        },
        "response_urls": [],
        "is_enterprise_install": False,
        "enterprise": None,
    }
