"""The gateway of the local Discord (`FakeDiscord`'s base): HELLO, heartbeats, IDENTIFY with
READY and GUILD_CREATE, sessions that outlive their connection, `drop()` in four ways, and
RESUME replaying what the client missed. Interactions go out here (`dispatch_interaction`).
Login (`GET /users/@me`, the application, `GET /gateway/bot`) and command sync (recorded in
`command_puts`) are answered here too.

Each IDENTIFY starts a session that outlives its connection, as Discord's does: every
dispatch in it is kept by sequence number. A test can `drop()` the connection (cut the TCP
connection, close it with 4000, send op 7 RECONNECT, or op 9 INVALID_SESSION, which ends the
session); dispatches sent meanwhile queue in the session, and a RESUME (op 6, at READY's
`resume_gateway_url`) with the session id and the client's last sequence gets the ones it
missed, then RESUMED. Every connection and the ops it sent are recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import discord
from aiohttp import WSMsgType, web

from bot.testing.activity import Activity
from bot.testing.discord_wire import (
    APP_ID,
    BOT,
    GATEWAY_PATH,
    GUILDS_INTENT,
    HEARTBEAT,
    IDENTIFY,
    INVALID_SESSION,
    RECONNECT,
    RESUMABLE_CLOSE,
    RESUME,
    RESUME_PATH,
    TOKEN,
    Connection,
    Drop,
    GatewaySession,
    Interaction,
    as_json,
    guild,
    user,
)


class Gateway:
    """The gateway half of `FakeDiscord`, and the waiting both halves share."""

    def __init__(self, guilds: list[int]) -> None:
        self.guilds = guilds
        self.interactions: dict[str, Interaction] = {}
        self.identifies: list[dict[str, Any]] = []
        self.readied = 0
        """IDENTIFYs answered with READY and every GUILD_CREATE: the client may be driven
        (discord.py itself calls `on_ready` only after 2 s without another GUILD_CREATE)."""
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
        self._ids = itertools.count(1)
        self.command_puts: list[tuple[str | None, list[dict[str, Any]]]] = []
        self._changed = asyncio.Condition()
        self.activity = Activity(long_lived=(GATEWAY_PATH, RESUME_PATH))
        """REST calls in flight, and when the last call or gateway frame came: `until_idle`."""
        self.url = ""

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.url.rsplit(':', 1)[1]}{GATEWAY_PATH}"

    @property
    def resume_gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.url.rsplit(':', 1)[1]}{RESUME_PATH}"

    def snowflake(self) -> str:
        return str(discord.utils.time_snowflake(datetime.now(UTC)) + next(self._ids))

    async def until_idle(self, quiet: float = 0.3, within: float = 10.0) -> None:
        """Waits until no REST call is in flight and nothing (call or frame) came for `quiet`
        seconds: then what was coming has come (a test proving that nothing more arrives)."""
        await self.activity.until_idle(quiet, within)

    async def until(self, check: Callable[[], bool], within: float = 10.0) -> None:
        """Waits until `check()` holds, re-checking after every request the bot makes."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(check), within)

    async def _changed_now(self) -> None:
        async with self._changed:
            self._changed.notify_all()


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
            self.activity.touch()
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
        self.readied += 1
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

    # Login and command sync ----------------------------------------------

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
