"""What a local Discord says and keeps: the API's constants, the records of what the bot sent
and received (`Call`, `Interaction`), and the gateway's sessions and connections."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from aiohttp import web

from bot.testing.faults import Fault, retry_after_header

APP_ID = 900000000000000001
BOT = {
    "id": str(APP_ID),
    "username": "quizbot",
    "discriminator": "0",
    "global_name": "quizbot",
    "avatar": None,
    "bot": True,
}
TOKEN = "OTAwMDAwMDAwMDAwMDAwMDAx.G7xYzA.fake-discord-bot-token-for-tests"
"""Shaped as a real bot token (base64 of APP_ID, a timestamp, an HMAC): `quizbot run` checks
the shape before it connects."""
EPHEMERAL = 64
MODAL = 9
"""The interaction callback type that opens a form."""
GUILDS_INTENT = 1
GATEWAY_PATH = "/gateway"
RESUME_PATH = "/resume"
"""READY's `resume_gateway_url` points here: a client that resumes shows it read READY."""
HEARTBEAT, IDENTIFY, RESUME, RECONNECT, INVALID_SESSION = 1, 2, 6, 7, 9
RESUMABLE_CLOSE = 4000
"""Discord's "unknown error" close code: the client should reconnect and resume."""

ABNORMAL_CLOSE = 1006
"""What a client reports when the connection ends without a close frame ("abort")."""

Drop = Literal["abort", "close", "reconnect", "invalidate"]
"""How `FakeDiscord.drop` ends a connection: "abort" cuts it without a close frame (the
client sees 1006); "close" closes it with code 4000 (or the `code` given); "reconnect" sends
op 7 RECONNECT (the client closes and resumes); "invalidate" sends op 9 INVALID_SESSION with
d=false and ends the session (the client must IDENTIFY again)."""

API = "/api/v10"
CALLBACK = "POST /interactions/{id}/{token}/callback"
"""The routes a fault plan names (`fake.faults.next(CALLBACK, ...)`): the interaction
callback (the first response), a follow-up, the original response (read or edited), a
channel message posted or edited."""
FOLLOWUP = "POST /webhooks/{app}/{token}"
ORIGINAL = "GET /webhooks/{app}/{token}/messages/{message}"
EDIT_ORIGINAL = "PATCH /webhooks/{app}/{token}/messages/{message}"
POST_MESSAGE = "POST /channels/{channel}/messages"
EDIT_MESSAGE = "PATCH /channels/{channel}/messages/{message}"
ALREADY_ACKNOWLEDGED = 40060
UNKNOWN_WEBHOOK = 10015


def as_json(data: Any, status: int = 200) -> web.Response:
    """JSON as Discord sends it: discord.py parses only an exact `application/json`."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, content_type="application/json"
    )


def user(user_id: int, name: str) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
    }


@dataclass
class Call:
    """One REST request the bot made."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    at: float


@dataclass
class GatewaySession:
    """One shard's session, as Discord keeps it across connections."""

    id: str
    shard_id: int
    dispatches: list[dict[str, Any]] = field(default_factory=list)
    """Every dispatch (op 0) frame of the session in order: frame `s` is at index `s - 1`."""
    ws: web.WebSocketResponse | None = None
    """The connection it is live on; None while the client is away (dispatches queue)."""

    @property
    def seq(self) -> int:
        return len(self.dispatches)


@dataclass
class Connection:
    """One websocket connection to the gateway: where it came, and the ops it sent."""

    path: str
    ws: web.WebSocketResponse
    transport: asyncio.Transport | None
    ops: list[int] = field(default_factory=list)

    @property
    def opened_with(self) -> int | None:
        """The first op other than a heartbeat: IDENTIFY (2) or RESUME (6)."""
        return next((op for op in self.ops if op != HEARTBEAT), None)


@dataclass
class Interaction:
    """What Discord knows about one interaction it sent: its responses and follow-ups."""

    id: str
    token: str
    payload: dict[str, Any]
    sent_at: float
    callbacks: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    """Responses sent after the first was taken (answered 400, 40060)."""
    followups: list[dict[str, Any]] = field(default_factory=list)
    followup_ids: list[str] = field(default_factory=list)
    original_edits: list[dict[str, Any]] = field(default_factory=list)
    original_id: str | None = None
    deleted_original: bool = False

    @property
    def first_response_after(self) -> float | None:
        return self.callbacks[0][0] - self.sent_at if self.callbacks else None




def guild(guild_id: int) -> dict[str, Any]:
    return {
        "id": str(guild_id),
        "name": f"guild {guild_id}",
        "unavailable": False,
        "owner_id": "1",
        "member_count": 3,
        "large": False,
        "roles": [],
        "emojis": [],
        "stickers": [],
        "features": [],
        "channels": [],
        "threads": [],
        "members": [],
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "preferred_locale": "en-US",
        "joined_at": datetime.now(UTC).isoformat(),
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "premium_progress_bar_enabled": False,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "vanity_url_code": None,
    }


def route_of(request: web.Request) -> str | None:
    """A REST request's route in the fault plan (`CALLBACK`, ...); None for the gateway."""
    if not request.path.startswith(API):
        return None
    resource = request.match_info.route.resource
    canonical = resource.canonical if resource is not None else request.path
    return f"{request.method} {canonical.removeprefix(API)}"


def fault_answer(fault: Fault) -> web.Response:
    """A planned fault, as Discord says it."""
    assert fault.status is not None
    headers = retry_after_header(fault)
    if fault.status == 429:
        body = {"message": "You are being rate limited.", "retry_after": fault.retry_after or 1.0}
        return web.Response(
            body=json.dumps({**body, "global": False}).encode(),
            status=429,
            content_type="application/json",
            # discord.py takes a 429 without `Via` for a Cloudflare ban, and gives up
            headers={**headers, "X-RateLimit-Scope": "user", "Via": "1.1 google"},
        )
    response = as_json({"message": f"{fault.status}: Server Error", "code": 0}, fault.status)
    response.headers.update(headers)
    return response


def missing_access() -> web.Response:
    return as_json({"message": "Missing Access", "code": 50001}, status=403)
