"""A local Discord: the REST API and the gateway over loopback, as discord.py 2.x uses them.

REST: interaction callbacks (`?with_response=1`, answered like Discord: 200 with
`interaction` and, for messages, `resource.message`), follow-ups, `@original` edits, channel
messages posted and edited (a channel can be made forbidden, 403, or gone, 404), and DMs.
Login, command sync and the gateway (HELLO, IDENTIFY, RESUME, `drop()`): discord_gateway.py.

Messages the bot creates are kept (channel ones and ephemeral ones alike) so a test can
click their buttons with the payload Discord would send: the message as stored. A form (a
modal, callback type 9) is kept with its interaction, so a test can send it back filled in
(a MODAL_SUBMIT interaction, type 5).

An interaction takes one response, as on Discord: a second is answered 400 (code 40060,
"already acknowledged"), and a follow-up before any response 404 (10015, Unknown Webhook).

Faults (bot/testing/faults.py): `fake.faults` is the fault plan, keyed by the route constants
below (`CALLBACK`, `FOLLOWUP`, `ORIGINAL`, `POST_MESSAGE`, `EDIT_MESSAGE`):

    fake.faults.next(CALLBACK, failed(500))                    # the callback not taken
    fake.faults.next(CALLBACK, failed(500, after_work=True))   # taken (and shown), then 500
    fake.faults.next(EDIT_MESSAGE, rate_limited(2), times=3)   # 429s with retry_after 2
    fake.faults.next(POST_MESSAGE, failed(500, after_work=True))  # posted, unconfirmed

A fault is answered as Discord answers (`{"message": ..., "code": 0}`; a 429 carries
`retry_after` and `Retry-After`).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from bot.testing.discord_gateway import Gateway
from bot.testing.discord_wire import (  # the tests read these from here
    ABNORMAL_CLOSE,
    ALREADY_ACKNOWLEDGED,
    API,
    APP_ID,
    BOT,
    CALLBACK,
    EDIT_MESSAGE,
    EDIT_ORIGINAL,
    EPHEMERAL,
    FOLLOWUP,
    GATEWAY_PATH,
    IDENTIFY,
    MODAL,
    ORIGINAL,
    POST_MESSAGE,
    RESUMABLE_CLOSE,
    RESUME,
    RESUME_PATH,
    TOKEN,
    UNKNOWN_WEBHOOK,
    Call,
    Connection,
    Drop,
    GatewaySession,
    Interaction,
    as_json,
    fault_answer,
    guild,
    missing_access,
    route_of,
    user,
)
from bot.testing.faults import FaultPlan

__all__ = [
    "ABNORMAL_CLOSE",
    "ALREADY_ACKNOWLEDGED",
    "API",
    "APP_ID",
    "BOT",
    "CALLBACK",
    "EDIT_MESSAGE",
    "EDIT_ORIGINAL",
    "EPHEMERAL",
    "FOLLOWUP",
    "GATEWAY_PATH",
    "IDENTIFY",
    "MODAL",
    "ORIGINAL",
    "POST_MESSAGE",
    "RESUMABLE_CLOSE",
    "RESUME",
    "RESUME_PATH",
    "TOKEN",
    "UNKNOWN_WEBHOOK",
    "Call",
    "Connection",
    "Drop",
    "FakeDiscord",
    "GatewaySession",
    "Interaction",
    "as_json",
    "guild",
    "missing_access",
    "user",
]


class FakeDiscord(Gateway):
    def __init__(self, guilds: list[int]) -> None:
        super().__init__(guilds)
        self.calls: list[Call] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.channel_edits: list[tuple[str, dict[str, Any]]] = []
        self.channel_posts: list[tuple[str, dict[str, Any]]] = []
        """Messages the bot posted itself (no interaction behind them): (channel id, body)."""
        self.dm_channels: dict[str, str] = {}
        """DM channel id -> the user it is with."""
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
        """What the next calls of a route meet (bot/testing/faults.py)."""
        self._runner: web.AppRunner | None = None

    # Running -------------------------------------------------------------

    async def start(self) -> None:
        faults = self.faults.middleware(route_of, fault_answer)
        app = web.Application(middlewares=[self.activity.middleware, self._record, faults])
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

    async def stop(self) -> None:
        self.faults.clear()
        for ws in list(self.sessions.values()):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

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

    # REST ------------------------------------------------------------------

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



