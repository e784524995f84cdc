"""A local Discord: the REST API and the gateway over loopback, as discord.py 2.x uses them.

REST: login (`GET /users/@me`, `GET /oauth2/applications/@me`), `GET /gateway/bot`, command
sync (recorded), interaction callbacks (`?with_response=1`, answered like Discord: 200 with
`interaction` and, for messages, `resource.message`), follow-ups, `@original` edits, channel
messages posted and edited (a channel can be made forbidden, 403, or gone, 404), and DMs.
The gateway says HELLO, answers heartbeats, takes IDENTIFY (shard and
intents recorded) and sends READY and, with the guilds intent, GUILD_CREATE per guild.

Each IDENTIFY starts a session that outlives its connection, as Discord's does: every
dispatch in it is kept by sequence number. A test can `drop()` the connection (cut the TCP
connection, close it with 4000, send op 7 RECONNECT, or op 9 INVALID_SESSION, which ends the
session); dispatches sent meanwhile queue in the session, and a RESUME (op 6, at READY's
`resume_gateway_url`) with the session id and the client's last sequence gets the ones it
missed, then RESUMED. Every connection and the ops it sent are recorded.

Messages the bot creates are kept (channel ones and ephemeral ones alike) so a test can
click their buttons with the payload Discord would send: the message as stored. A form (a
modal, callback type 9) is kept with its interaction, so a test can send it back filled in
(a MODAL_SUBMIT interaction, type 5).

An interaction takes one response, as on Discord: a second is answered 400 (code 40060,
"already acknowledged"), and a follow-up before any response 404 (10015, Unknown Webhook).

Faults (tests/faults.py): `fake.faults` is the fault plan, keyed by the route constants
below (`CALLBACK`, `FOLLOWUP`, `ORIGINAL`, `POST_MESSAGE`, `EDIT_MESSAGE`):

    fake.faults.next(CALLBACK, failed(500))                    # the callback not taken
    fake.faults.next(CALLBACK, failed(500, after_work=True))   # taken (and shown), then 500
    fake.faults.next(EDIT_MESSAGE, rate_limited(2), times=3)   # 429s with retry_after 2
    fake.faults.next(POST_MESSAGE, failed(500, after_work=True))  # posted, unconfirmed

A fault is answered as Discord answers (`{"message": ..., "code": 0}`; a 429 carries
`retry_after` and `Retry-After`). The gateway: `drop("abort")` cuts the connection (the
client sees close code 1006), `drop("close")` sends a close frame with code 4000 (or `code=`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import discord
from aiohttp import WSMsgType, web

from tests.faults import Fault, FaultPlan, retry_after_header

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


class FakeDiscord:
    def __init__(self, guilds: list[int]) -> None:
        self.guilds = guilds
        self.calls: list[Call] = []
        self.interactions: dict[str, Interaction] = {}
        self.messages: dict[str, dict[str, Any]] = {}
        self.channel_edits: list[tuple[str, dict[str, Any]]] = []
        self.channel_posts: list[tuple[str, dict[str, Any]]] = []
        """Messages the bot posted itself (no interaction behind them): (channel id, body)."""
        self.dm_channels: dict[str, str] = {}
        """DM channel id -> the user it is with."""
        self.command_puts: list[tuple[str | None, list[dict[str, Any]]]] = []
        self.identifies: list[dict[str, Any]] = []
        self.resumes: list[dict[str, Any]] = []
        """The `d` of every RESUME received, valid or not."""
        self.replayed: list[int] = []
        """For each accepted RESUME, how many missed dispatches it was sent."""
        self.connections: list[Connection] = []
        self.drops: list[tuple[int, Drop]] = []
        """(shard, how) for each `drop()`."""
        self.sessions: dict[int, web.WebSocketResponse] = {}
        """Shard -> the connection its session is live on (none while it is away)."""
        self.gateway_sessions: dict[int, GatewaySession] = {}
        """Shard -> its current session (from its last IDENTIFY, until invalidated)."""
        self.shard_count = 1
        self.forbidden_channels: set[str] = set()
        """Channels the bot cannot see: REST calls on them get Discord's 403 Missing Access."""
        self.gone_channels: set[str] = set()
        """Channels that were deleted: 404 Unknown Channel."""
        self.closed_dms: set[str] = set()
        """Users who take no DMs from server members: 403 Cannot send messages to this user."""
        self.roles: dict[str, dict[str, int]] = {}
        """Guild -> its roles' permission bits by role id (the guild's own id is @everyone)."""
        self.members: dict[tuple[str, str], list[str]] = {}
        """(guild, user) -> the member's role ids; anyone else gets 404 Unknown Member."""
        self.refuse_callbacks = 0
        """How many of the next message responses (types 4 and 5) get a 400, as Discord
        answers a body it will not take."""
        self.lose_post_answers = 0
        """How many of the next channel messages are created but answered 502 (a proxy that
        timed out after Discord stored it): a client that retries without a nonce posts twice."""
        self._nonces: dict[tuple[str, str], str] = {}
        """(channel, nonce) -> message id: with `enforce_nonce`, Discord answers a repeat of a
        recent nonce with the message it already created."""
        self.faults = FaultPlan()
        """What the next calls of a route meet (tests/faults.py)."""
        self._ids = itertools.count(1)
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.url = ""

    # Running -------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application(
            middlewares=[self._record, self.faults.middleware(_route_of, _fault_answer)]
        )
        api = API
        app.router.add_get(f"{api}/users/@me", self._me)
        app.router.add_get(f"{api}/oauth2/applications/@me", self._application)
        app.router.add_get(f"{api}/gateway/bot", self._gateway_bot)
        app.router.add_put(f"{api}/applications/{{app}}/commands", self._put_commands)
        app.router.add_put(
            f"{api}/applications/{{app}}/guilds/{{guild}}/commands", self._put_commands
        )
        app.router.add_post(f"{api}/interactions/{{id}}/{{token}}/callback", self._callback)
        app.router.add_post(f"{api}/webhooks/{{app}}/{{token}}", self._followup)
        app.router.add_patch(
            f"{api}/webhooks/{{app}}/{{token}}/messages/{{message}}", self._edit_webhook
        )
        app.router.add_get(
            f"{api}/webhooks/{{app}}/{{token}}/messages/{{message}}", self._get_webhook
        )
        app.router.add_delete(
            f"{api}/webhooks/{{app}}/{{token}}/messages/{{message}}", self._delete_webhook
        )
        app.router.add_patch(f"{api}/channels/{{channel}}/messages/{{message}}", self._edit_channel)
        app.router.add_post(f"{api}/channels/{{channel}}/messages", self._post_channel)
        app.router.add_post(f"{api}/users/@me/channels", self._open_dm)
        app.router.add_get(f"{api}/guilds/{{guild}}/members/{{user}}", self._member)
        app.router.add_get(f"{api}/guilds/{{guild}}/roles", self._roles)
        app.router.add_get(GATEWAY_PATH, self._gateway)
        app.router.add_get(RESUME_PATH, self._gateway)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.url.rsplit(':', 1)[1]}{GATEWAY_PATH}"

    @property
    def resume_gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.url.rsplit(':', 1)[1]}{RESUME_PATH}"

    async def stop(self) -> None:
        self.faults.clear()
        for ws in list(self.sessions.values()):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def snowflake(self) -> str:
        return str(discord.utils.time_snowflake(datetime.now(UTC)) + next(self._ids))

    async def until(self, check: Callable[[], bool], within: float = 10.0) -> None:
        """Waits until `check()` holds, re-checking after every request the bot makes."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(check), within)

    async def _changed_now(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    @web.middleware
    async def _record(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if request.path not in (GATEWAY_PATH, RESUME_PATH):
            raw = await request.read()
            body = json.loads(raw) if raw and request.content_type == "application/json" else None
            self.calls.append(
                Call(request.method, request.path, dict(request.query), body, time.monotonic())
            )
        response: web.StreamResponse = await handler(request)
        await self._changed_now()
        return response

    # Gateway ---------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        connection = Connection(request.path, ws, request.transport)
        self.connections.append(connection)
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
        session: GatewaySession | None = None
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                continue
            frame = json.loads(msg.data)
            connection.ops.append(frame["op"])
            if frame["op"] == HEARTBEAT:
                await ws.send_json({"op": 11, "d": None, "s": None, "t": None})
                continue
            if frame["op"] == IDENTIFY:
                session = await self._identify(ws, frame["d"])
            elif frame["op"] == RESUME:
                session = await self._resume(ws, frame["d"])
            await self._changed_now()
        if session is not None and session.ws is ws:
            session.ws = None
        if session is not None and self.sessions.get(session.shard_id) is ws:
            del self.sessions[session.shard_id]
        await self._changed_now()
        return ws

    async def _identify(
        self, ws: web.WebSocketResponse, identify: dict[str, Any]
    ) -> GatewaySession:
        self.identifies.append(identify)
        shard_id, self.shard_count = identify.get("shard", [0, 1])
        session = GatewaySession(f"session-{shard_id}-{len(self.identifies)}", shard_id, ws=ws)
        self.gateway_sessions[shard_id] = session
        self.sessions[shard_id] = ws
        await self._ready(session, identify["intents"])
        return session

    async def _resume(
        self, ws: web.WebSocketResponse, resume: dict[str, Any]
    ) -> GatewaySession | None:
        """Replays what the client missed (dispatches after its `seq`), then RESUMED; an
        unknown session or a sequence the session never reached gets op 9 (not resumable)."""
        self.resumes.append(resume)
        session = next(
            (s for s in self.gateway_sessions.values() if s.id == resume.get("session_id")), None
        )
        seq = resume.get("seq")
        if (
            session is None
            or resume.get("token") != TOKEN
            or not isinstance(seq, int)
            or not 0 <= seq <= session.seq
        ):
            await ws.send_json({"op": INVALID_SESSION, "d": False, "s": None, "t": None})
            return None
        sent = seq
        while sent < session.seq:  # dispatches queued while this runs go out here too
            await ws.send_json(session.dispatches[sent])
            sent += 1
        self.replayed.append(sent - seq)
        session.ws = ws
        self.sessions[session.shard_id] = ws
        await self._emit(session, "RESUMED", {})
        return session

    def _guilds_of(self, shard_id: int) -> list[int]:
        return [g for g in self.guilds if (g >> 22) % self.shard_count == shard_id]

    async def _ready(self, session: GatewaySession, intents: int) -> None:
        shard_id = session.shard_id
        guilds = self._guilds_of(shard_id)
        ready = {
            "v": 10,
            "user": BOT,
            "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "resume_gateway_url": self.resume_gateway_url,
            "application": {"id": str(APP_ID), "flags": 0},
            "shard": [shard_id, self.shard_count],
        }
        await self._emit(session, "READY", ready)
        if intents & GUILDS_INTENT:
            for g in guilds:
                await self._emit(session, "GUILD_CREATE", guild(g))

    async def _emit(self, session: GatewaySession, event: str, data: dict[str, Any]) -> None:
        """Adds a dispatch to the session and sends it if the session is live. One sent on a
        connection that is going is not lost: it is replayed if the client resumes."""
        frame = {"op": 0, "t": event, "s": session.seq + 1, "d": data}
        session.dispatches.append(frame)
        if session.ws is not None:
            with contextlib.suppress(ConnectionResetError):
                await session.ws.send_json(frame)

    def connected(self, shard_id: int = 0) -> bool:
        return shard_id in self.sessions

    async def drop(
        self, how: Drop = "abort", shard_id: int = 0, code: int = RESUMABLE_CLOSE
    ) -> GatewaySession:
        """Ends the shard's live connection `how`; from now on its dispatches queue in the
        session (or, after "invalidate", the shard has no session until it IDENTIFYs)."""
        session = self.gateway_sessions[shard_id]
        ws = session.ws
        assert ws is not None, f"shard {shard_id} is not connected"
        session.ws = None
        del self.sessions[shard_id]
        self.drops.append((shard_id, how))
        if how == "abort":
            transport = next(c.transport for c in self.connections if c.ws is ws)
            assert transport is not None
            transport.abort()
        elif how == "close":
            await ws.close(code=code, message=b"unknown error")
        elif how == "reconnect":
            await ws.send_json({"op": RECONNECT, "d": None, "s": None, "t": None})
        else:
            del self.gateway_sessions[shard_id]
            await ws.send_json({"op": INVALID_SESSION, "d": False, "s": None, "t": None})
        await self._changed_now()
        return session

    async def dispatch_interaction(self, payload: dict[str, Any]) -> Interaction:
        """Sends INTERACTION_CREATE on the shard of its guild (queued in its session while
        the client is away); Discord's clock starts now."""
        shard_id = (
            (int(payload["guild_id"]) >> 22) % self.shard_count if "guild_id" in payload else 0
        )
        session = self.gateway_sessions.get(shard_id)
        assert session is not None, f"shard {shard_id} has no session: nothing would arrive"
        record = Interaction(payload["id"], payload["token"], payload, time.monotonic())
        self.interactions[payload["token"]] = record
        await self._emit(session, "INTERACTION_CREATE", payload)
        return record

    # REST ------------------------------------------------------------------

    async def _me(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bot {TOKEN}":
            return as_json({"message": "401: Unauthorized", "code": 0}, status=401)
        return as_json(BOT)

    async def _application(self, request: web.Request) -> web.Response:
        return as_json(
            {
                "id": str(APP_ID),
                "name": "quizbot",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": user(1, "owner"),
                "verify_key": "0" * 64,
                "flags": 0,
                "team": None,
                "summary": "",
            }
        )

    async def _gateway_bot(self, request: web.Request) -> web.Response:
        return as_json(
            {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    async def _put_commands(self, request: web.Request) -> web.Response:
        payload = await request.json()
        self.command_puts.append((request.match_info.get("guild"), payload))
        return as_json(
            [
                {**c, "id": self.snowflake(), "application_id": str(APP_ID), "version": "1"}
                for c in payload
            ]
        )

    def _message(
        self, data: dict[str, Any], channel_id: str, *, message_id: str | None = None
    ) -> dict[str, Any]:
        return {
            "id": message_id or self.snowflake(),
            "channel_id": channel_id,
            "type": 20,
            "author": BOT,
            "content": data.get("content") or "",
            "embeds": data.get("embeds", []),
            "components": data.get("components", []),
            "flags": data.get("flags", 0),
            "attachments": [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None,
            "webhook_id": str(APP_ID),
            "application_id": str(APP_ID),
        }

    def _apply(self, message_id: str, data: dict[str, Any]) -> dict[str, Any]:
        message = self.messages[message_id]
        for key in ("content", "embeds", "components"):
            if key in data:
                message[key] = (
                    data[key] if data[key] is not None else ([] if key != "content" else "")
                )
        message["edited_timestamp"] = datetime.now(UTC).isoformat()
        return message

    async def _callback(self, request: web.Request) -> web.Response:
        record = self.interactions[request.match_info["token"]]
        assert request.match_info["id"] == record.id
        # Discord answers 204 with no body unless asked to send the callback's result back
        # (`with_response`, as discord.py always asks).
        echo = request.query.get("with_response") in ("1", "true", "True")
        body = await request.json()
        if record.callbacks:  # an interaction takes one response
            record.refused.append(body)
            return as_json(
                {
                    "message": "Interaction has already been acknowledged.",
                    "code": ALREADY_ACKNOWLEDGED,
                },
                status=400,
            )
        if self.refuse_callbacks and body["type"] in (4, 5):
            self.refuse_callbacks -= 1
            return as_json({"message": "Invalid Form Body", "code": 50035}, status=400)
        record.callbacks.append((time.monotonic(), body))
        kind, data = body["type"], body.get("data") or {}
        channel_id = record.payload["channel_id"]
        result: dict[str, Any] = {
            "id": record.id,
            "type": record.payload["type"],
            "response_message_loading": kind == 5,
            "response_message_ephemeral": bool(data.get("flags", 0) & EPHEMERAL),
        }
        resource: dict[str, Any] | None = None
        if kind in (4, 5):
            message = self._message(data, channel_id)
            self.messages[message["id"]] = message
            record.original_id = message["id"]
            result["response_message_id"] = message["id"]
            resource = {"type": kind, "message": message}
        elif kind in (6, 7):
            original = record.payload["message"]["id"]
            record.original_id = original
            if kind == 7:
                resource = {"type": 7, "message": self._apply(original, data)}
        if not echo:
            return web.Response(status=204)
        if kind in (8, MODAL):  # autocomplete choices, or a form opened: no message
            return as_json({"interaction": result}, status=200)
        reply: dict[str, Any] = {"interaction": result}
        if resource is not None:
            reply["resource"] = resource
        return as_json(reply)

    async def _followup(self, request: web.Request) -> web.Response:
        record = self.interactions[request.match_info["token"]]
        assert request.query.get("wait") in ("1", "true", "True")
        if not record.callbacks:  # a follow-up needs a response first
            return as_json({"message": "Unknown Webhook", "code": UNKNOWN_WEBHOOK}, status=404)
        data = await request.json()
        record.followups.append(data)
        first_kind = record.callbacks[0][1]["type"]
        if first_kind == 5 and len(record.followups) == 1 and record.original_id in self.messages:
            # Discord: the first follow-up after a "thinking" deferral replaces that message,
            # keeping the deferral's ephemeral flag.
            record.followup_ids.append(record.original_id)
            return as_json(self._apply(record.original_id, data))
        message = self._message(data, record.payload["channel_id"])
        self.messages[message["id"]] = message
        record.followup_ids.append(message["id"])
        return as_json(message)

    async def _edit_webhook(self, request: web.Request) -> web.Response:
        record = self.interactions[request.match_info["token"]]
        assert request.match_info["message"] == "@original" and record.original_id is not None
        data = await request.json()
        record.original_edits.append(data)
        return as_json(self._apply(record.original_id, data))

    async def _get_webhook(self, request: web.Request) -> web.Response:
        record = self.interactions[request.match_info["token"]]
        assert request.match_info["message"] == "@original"
        message = self.messages.get(record.original_id or "")
        if message is None:
            return as_json({"message": "Unknown Message", "code": 10008}, status=404)
        return as_json(message)

    async def _delete_webhook(self, request: web.Request) -> web.Response:
        record = self.interactions[request.match_info["token"]]
        record.deleted_original = True
        if record.original_id is not None:
            self.messages.pop(record.original_id, None)
        return web.Response(status=204)

    async def _edit_channel(self, request: web.Request) -> web.Response:
        message_id = request.match_info["message"]
        if request.match_info["channel"] in self.forbidden_channels:
            return missing_access()
        if message_id not in self.messages:
            return as_json({"message": "Unknown Message", "code": 10008}, status=404)
        data = await request.json()
        self.channel_edits.append((message_id, data))
        return as_json(self._apply(message_id, data))

    async def _post_channel(self, request: web.Request) -> web.Response:
        channel_id = request.match_info["channel"]
        if channel_id in self.gone_channels:
            return as_json({"message": "Unknown Channel", "code": 10003}, status=404)
        if channel_id in self.forbidden_channels:
            return missing_access()
        if self.dm_channels.get(channel_id) in self.closed_dms:
            return as_json(
                {"message": "Cannot send messages to this user", "code": 50007}, status=403
            )
        data = await request.json()
        self.channel_posts.append((channel_id, data))
        nonce = (channel_id, str(data.get("nonce")))
        if data.get("enforce_nonce") and nonce in self._nonces:
            return as_json(self.messages[self._nonces[nonce]])
        message = self._message(data, channel_id)
        message["type"] = 0
        message.pop("webhook_id")
        self.messages[message["id"]] = message
        if data.get("enforce_nonce") and data.get("nonce") is not None:
            self._nonces[nonce] = message["id"]
        if self.lose_post_answers:
            self.lose_post_answers -= 1
            return as_json({"message": "Bad Gateway", "code": 0}, status=502)
        return as_json(message)

    async def _open_dm(self, request: web.Request) -> web.Response:
        recipient = str((await request.json())["recipient_id"])
        channel_id = next((c for c, u in self.dm_channels.items() if u == recipient), None)
        if channel_id is None:
            channel_id = self.snowflake()
            self.dm_channels[channel_id] = recipient
        return as_json(
            {
                "id": channel_id,
                "type": 1,
                "last_message_id": None,
                "recipients": [user(int(recipient), f"user{recipient}")],
            }
        )

    async def _member(self, request: web.Request) -> web.Response:
        guild_id, user_id = request.match_info["guild"], request.match_info["user"]
        roles = self.members.get((guild_id, user_id))
        if roles is None:
            return as_json({"message": "Unknown Member", "code": 10007}, status=404)
        return as_json(
            {
                "user": user(int(user_id), f"user{user_id}"),
                "roles": roles,
                "joined_at": datetime.now(UTC).isoformat(),
                "deaf": False,
                "mute": False,
                "flags": 0,
            }
        )

    async def _roles(self, request: web.Request) -> web.Response:
        guild_id = request.match_info["guild"]
        roles = {guild_id: 0} | self.roles.get(guild_id, {})
        return as_json(
            [
                {
                    "id": role_id,
                    "name": "@everyone" if role_id == guild_id else f"role {role_id}",
                    "color": 0,
                    "hoist": False,
                    "position": 0 if role_id == guild_id else 1,
                    "permissions": str(bits),
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
                for role_id, bits in roles.items()
            ]
        )

    def posts_in(self, channel_id: int | str) -> list[dict[str, Any]]:
        """The messages the bot posted itself in a channel, oldest first, as they are now."""
        return [
            m
            for m in self.messages.values()
            if m["channel_id"] == str(channel_id) and m["type"] == 0
        ]

    def dms_to(self, user_id: int | str) -> list[dict[str, Any]]:
        channels = {c for c, u in self.dm_channels.items() if u == str(user_id)}
        return [data for c, data in self.channel_posts if c in channels]

    # What the bot sent -----------------------------------------------------

    def sent_messages(self) -> list[dict[str, Any]]:
        """Every message body the bot sent or edited (for the limits check)."""
        bodies: list[dict[str, Any]] = []
        for record in self.interactions.values():
            for _, body in record.callbacks:
                if body.get("data") and body["type"] != MODAL:
                    bodies.append(body["data"])
            bodies.extend(record.followups)
            bodies.extend(record.original_edits)
        bodies.extend(data for _, data in self.channel_edits)
        bodies.extend(data for _, data in self.channel_posts)
        return bodies

    def sent_forms(self) -> list[dict[str, Any]]:
        """Every form (modal) the bot opened."""
        return [
            body["data"]
            for record in self.interactions.values()
            for _, body in record.callbacks
            if body["type"] == MODAL
        ]


def _route_of(request: web.Request) -> str | None:
    """A REST request's route in the fault plan (`CALLBACK`, ...); None for the gateway."""
    if not request.path.startswith(API):
        return None
    resource = request.match_info.route.resource
    canonical = resource.canonical if resource is not None else request.path
    return f"{request.method} {canonical.removeprefix(API)}"


def _fault_answer(fault: Fault) -> web.Response:
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
