"""A local server that speaks enough of Slack for the real slack-bolt app to run against it.

Like bolt's own tests/mock_web_api_server, but on aiohttp in the test's event loop: the Web
API under /api/<method>, response_url endpoints under /respond/<key>, and a Socket Mode
websocket under /ws. Every call is recorded, in order.

Faults (bot/testing/faults.py): `fake.faults` is the fault plan, keyed by Web API method or
"response_url":

    fake.faults.next("chat.update", rate_limited(retry_after=2), times=3)  # 429s
    fake.faults.next("chat.postMessage", failed(500, after_work=True))     # posted, then 500
    fake.faults.next("response_url", failed(503))
    fake.faults.next("response_url", dropped())                           # connection cut
    fake.faults.next("chat.postMessage", hung(3))                         # no answer for 3 s

A fault is answered as Slack answers (`{"ok": false, "error": "ratelimited"}` with
`Retry-After`, `internal_error` for a 5xx). Socket Mode: `await fake.drop_socket()` cuts the
bot's websocket without a close frame (the SDK notices on its next ping and reconnects),
`drop_socket("close")` closes it as Slack does when it moves a connection (the SDK reconnects
at once); envelopes sent meanwhile wait for the new connection. The older knobs (`throttle`,
`errors`, `slow`) stay for the tests written with them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from bot.testing.activity import Activity
from bot.testing.faults import Fault, FaultPlan, retry_after_header

BOT_TOKEN = "xoxb-test-token"
APP_TOKEN = "xapp-test-token"


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    token: str | None
    status: int = 200
    """429 for a call answered with a rate limit."""
    answer: dict[str, Any] | None = None
    """What the fake answered."""


@dataclass
class Posted:
    """A post to a response_url."""

    key: str
    body: dict[str, Any]


@dataclass
class Workspace:
    team_id: str
    bot_user_id: str = "UBOT"
    bot_id: str = "BBOT"


@dataclass
class FakeSlack:
    tokens: dict[str, Workspace] = field(default_factory=lambda: {BOT_TOKEN: Workspace("T1")})
    admins: set[str] = field(default_factory=set)
    org_admins: set[str] = field(default_factory=set)
    """Enterprise Grid org admins: users.info says `enterprise_user.is_admin`."""
    owners: set[str] = field(default_factory=set)
    refuse_channels: set[str] = field(default_factory=set)
    """Channels the bot is not in: chat.postMessage and chat.update get `not_in_channel`."""
    app_tokens: set[str] = field(default_factory=lambda: {APP_TOKEN})
    throttle: dict[str, int] = field(default_factory=dict)
    """method (or "response_url") -> how many of its next calls get HTTP 429 with
    `Retry-After: retry_after`."""
    retry_after: int = 1
    errors: dict[str, str] = field(default_factory=dict)
    slow: dict[str, float] = field(default_factory=dict)
    """Web API method -> seconds its answer is held back (Slack being slow)."""
    """method -> the error every call of it gets (`{"ok": false, "error": ...}`)."""
    refuse_in_channel: bool = False
    """response_url answers in_channel posts with 404."""
    keep_alive: bool = True
    """Off: every response closes its connection, so no server task outlives its request
    (tests that wait for every task started by a request, `settle`, need that)."""
    throttled: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when a call was answered with 429."""
    oauth_codes: dict[str, str] = field(default_factory=dict)
    """code -> team id that oauth.v2.access installs."""
    faults: FaultPlan = field(default_factory=FaultPlan)
    """What the next calls of a method (or "response_url") meet: bot/testing/faults.py."""
    calls: list[Call] = field(default_factory=list)
    responses: list[Posted] = field(default_factory=list)
    socket_received: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    activity: Activity = field(default_factory=lambda: Activity(long_lived=("/ws",)))
    """Requests in flight and the last one's time: `until_idle` (bot/testing/activity.py)."""
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    _ts: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _sockets: list[web.WebSocketResponse] = field(default_factory=list)
    _socket_transports: dict[int, asyncio.Transport | None] = field(default_factory=dict)
    _runner: web.AppRunner | None = None

    # Server ---------------------------------------------------------------------

    async def start(self) -> None:
        application = web.Application(
            middlewares=[
                self.activity.middleware,
                self.faults.middleware(_route_of, self._fault_answer),
            ]
        )
        application.router.add_post("/api/{method}", self._api)
        application.router.add_get("/api/{method}", self._api)
        application.router.add_post("/respond/{key}", self._respond)
        application.router.add_get("/ws", self._socket)
        self._runner = web.AppRunner(application)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        self.faults.clear()
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    def response_url(self, key: str) -> str:
        return f"http://127.0.0.1:{self.port}/respond/{key}"

    async def _add(self, items: list[Any], item: Any) -> None:
        async with self._changed:
            items.append(item)
            self._changed.notify_all()

    async def until(self, predicate: Callable[[], bool], seconds: float = 5.0) -> None:
        """Waits until `predicate()` holds for what has been recorded."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), seconds)

    async def until_idle(self, quiet: float = 0.3, within: float = 10.0) -> None:
        """Waits until no call is in flight and none came for `quiet` seconds: then what
        was coming has come (a test proving that nothing more arrives)."""
        await self.activity.until_idle(quiet, within)

    def _fault_answer(self, fault: Fault) -> web.Response:
        """A planned fault, as Slack says it."""
        assert fault.status is not None
        if fault.status == 429:
            self.throttled.set()
        error = "ratelimited" if fault.status == 429 else "internal_error"
        return web.json_response(
            {"ok": False, "error": error}, status=fault.status, headers=retry_after_header(fault)
        )

    # Web API --------------------------------------------------------------------

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            params.update(await request.json())
        elif request.can_read_body:
            params.update(dict(await request.post()))
        for key in ("blocks", "view"):
            if isinstance(params.get(key), str):
                params[key] = json.loads(params[key])
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
        call = Call(method, params, token)
        if self.throttle.get(method, 0) > 0:
            self.throttle[method] -= 1
            call.status = 429
            await self._add(self.calls, call)
            self.throttled.set()
            return web.json_response(
                {"ok": False, "error": "ratelimited"},
                status=429,
                headers={"Retry-After": str(self.retry_after)},
            )
        await self._add(self.calls, call)
        if method in self.slow:
            await asyncio.sleep(self.slow[method])
        call.answer = self._answer(call)
        return self._closing(web.json_response(call.answer))

    def _answer(self, call: Call) -> dict[str, Any]:
        if call.method == "oauth.v2.access":
            return self._oauth(call)
        if call.method == "apps.connections.open":
            if call.token not in self.app_tokens:
                return {"ok": False, "error": "invalid_auth"}
            return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/ws"}
        workspace = self.tokens.get(call.token or "")
        if workspace is None:
            return {"ok": False, "error": "invalid_auth"}
        p = call.params
        if call.method in self.errors:
            return {"ok": False, "error": self.errors[call.method]}
        if call.method == "auth.test":
            return {
                "ok": True,
                "url": "https://test.slack.com/",
                "team": "Test",
                "team_id": workspace.team_id,
                "user": "quizbot",
                "user_id": workspace.bot_user_id,
                "bot_id": workspace.bot_id,
            }
        if call.method == "chat.postMessage":
            channel = str(p.get("channel"))
            if channel in self.refuse_channels:
                return {"ok": False, "error": "not_in_channel"}
            if channel[:1] in ("U", "W"):  # a user id: the bot's DM with that user
                channel = "D" + channel[1:]
            ts = f"{1700000000 + next(self._ts)}.000100"
            return {"ok": True, "channel": channel, "ts": ts, "message": {"ts": ts}}
        if call.method == "chat.update":
            if p.get("channel") in self.refuse_channels:
                return {"ok": False, "error": "not_in_channel"}
            return {"ok": True, "channel": p.get("channel"), "ts": p.get("ts")}
        if call.method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"{1700000000 + next(self._ts)}.000200"}
        if call.method == "views.publish":
            return {"ok": True, "view": {"id": "V1", **(p.get("view") or {})}}
        if call.method == "views.open":
            if not p.get("trigger_id"):
                return {"ok": False, "error": "invalid_trigger_id"}
            return {"ok": True, "view": {"id": "V2", **(p.get("view") or {})}}
        if call.method == "views.update":
            if not p.get("view_id"):
                return {"ok": False, "error": "not_found"}
            return {"ok": True, "view": {"id": p.get("view_id"), **(p.get("view") or {})}}
        if call.method == "users.info":
            user = str(p.get("user"))
            return {
                "ok": True,
                "user": {
                    "id": user,
                    "team_id": workspace.team_id,
                    "is_admin": user in self.admins,
                    "is_owner": user in self.owners,
                    "is_primary_owner": False,
                    **(
                        {"enterprise_user": {"id": user, "is_admin": True, "is_owner": False}}
                        if user in self.org_admins
                        else {}
                    ),
                },
            }
        return {"ok": False, "error": "unknown_method"}

    def _oauth(self, call: Call) -> dict[str, Any]:
        team = self.oauth_codes.get(str(call.params.get("code")))
        if team is None:
            return {"ok": False, "error": "invalid_code"}
        token = f"xoxb-{team}"
        self.tokens[token] = Workspace(team, bot_user_id=f"UBOT{team}", bot_id=f"B{team}")
        return {
            "ok": True,
            "app_id": "A1",
            "authed_user": {"id": "UINSTALLER"},
            "scope": "commands,chat:write,chat:write.public,users:read",
            "token_type": "bot",
            "access_token": token,
            "bot_user_id": f"UBOT{team}",
            "team": {"id": team, "name": f"Team {team}"},
            "enterprise": None,
            "is_enterprise_install": False,
        }

    # response_url -----------------------------------------------------------------

    async def _respond(self, request: web.Request) -> web.Response:
        posted = Posted(request.match_info["key"], await request.json())
        if self.throttle.get("response_url", 0) > 0:
            self.throttle["response_url"] -= 1
            self.throttled.set()
            return web.Response(status=429, headers={"Retry-After": str(self.retry_after)})
        if self.refuse_in_channel and posted.body.get("response_type") == "in_channel":
            return web.Response(status=404, text="channel_not_found")
        await self._add(self.responses, posted)
        return self._closing(web.Response(text="ok"))

    def _closing(self, response: web.Response) -> web.Response:
        if not self.keep_alive:
            response.force_close()
        return response

    # Socket Mode --------------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._socket_transports[id(ws)] = request.transport
        await self._add(self._sockets, ws)
        await ws.send_json(
            {
                "type": "hello",
                "num_connections": 1,
                "debug_info": {"host": "fake", "approximate_connection_time": 18060},
                "connection_info": {"app_id": "A1"},
            }
        )
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                data: dict[str, Any] = json.loads(message.data)
                await self._add(self.socket_received, data)
        if ws in self._sockets:
            self._sockets.remove(ws)
        self._socket_transports.pop(id(ws), None)
        return ws

    async def socket_send(self, envelope: dict[str, Any]) -> None:
        await self.until(lambda: bool(self._sockets), 60)
        await self._sockets[-1].send_json(envelope)

    @property
    def socket_connections(self) -> int:
        """How many Socket Mode connections were opened so far."""
        return len(self.api("apps.connections.open"))

    async def drop_socket(self, how: str = "abort") -> None:
        """Ends the bot's live Socket Mode connection: "abort" cuts it without a close frame,
        "close" closes it (1001, as Slack does when it moves a connection). Envelopes sent from
        now on wait for the next connection."""
        ws = self._sockets.pop()  # no envelope goes to it any more
        if how == "abort":
            transport = self._socket_transports.get(id(ws))
            assert transport is not None
            transport.abort()
        else:
            await ws.close(code=1001, message=b"going away")

    # Reading what was recorded ------------------------------------------------------

    def api(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def replies(self, key: str) -> list[dict[str, Any]]:
        return [r.body for r in self.responses if r.key == key]

    async def reply(self, key: str, count: int = 1, seconds: float = 5.0) -> dict[str, Any]:
        """The `count`-th post to response_url `key` (waits for it)."""
        await self.until(lambda: len(self.replies(key)) >= count, seconds)
        return self.replies(key)[count - 1]


def _route_of(request: web.Request) -> str | None:
    """A request's route in the fault plan: the Web API method, or "response_url"."""
    if request.path.startswith("/api/"):
        return request.match_info.get("method")
    if request.path.startswith("/respond/"):
        return "response_url"
    return None
