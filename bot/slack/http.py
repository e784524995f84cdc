"""HTTP mode: `/slack/events` (and the OAuth pages) on aiohttp. Nothing operational here: the
health check and metrics are on the ops listener (`bot.observability.ops`), not on this port.

A request's body is read whole (within `BODY_SECONDS`, at most `BODY_LIMIT` bytes: 408 or 413
otherwise) and its signature checked before it passes the request gate (`bot.slack.gate`),
so a slow or unsigned request holds up no click and no graceful stop.

Every request to `/slack/events` is checked here before bolt sees it: a signature that is not
Slack's over these exact bytes (or a timestamp more than five minutes off, or not a number)
is 401; the same signed request a second time is a replay, answered 200 and not handled
again; a signed body bolt cannot parse is 400. A signed request no listener takes (an event
the bot does not handle) is acknowledged with 200, so Slack does not retry it. Never a 500.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.oauth.async_oauth_flow import AsyncOAuthFlow
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.service.admission import Closing
from bot.slack.app import SlackBot
from bot.slack.dedup import SeenSignatures
from bot.slack.fastpath import NOT_ACKED

log = logging.getLogger("quizbot.slack")
EVENTS_PATH = "/slack/events"
BODY_LIMIT = 256 * 1024
"""The largest body taken: Slack's payloads (a modal's view state at most) are far smaller."""
BODY_SECONDS = 2.0
"""How long a body may take to arrive; Slack sends it at once and waits 3 s for the ack."""
MAX_AGE = 300
"""Slack's limit on a request's age (and on its clock running ahead of ours), in seconds."""
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
FirstSeen = Callable[[str, float], Awaitable[bool]]
"""Whether a key is new to every process sharing the database (`ProcessState.first_seen`)."""


def web_app(bot: SlackBot, *, events: bool = True) -> web.Application:
    """The aiohttp application: events (unless Socket Mode carries them) and the OAuth
    pages."""
    application = web.Application(client_max_size=BODY_LIMIT)
    if events:
        application.router.add_post(EVENTS_PATH, _events_handler(bot))
    flow = bot.bolt.oauth_flow
    if flow is not None:
        application.router.add_get(flow.install_path, _oauth_handler(flow, install=True))
        application.router.add_get(flow.redirect_uri_path, _oauth_handler(flow, install=False))
    return application


def signed(secret: bytes, body: bytes, timestamp: str, signature: str, now: float) -> bool:
    """Slack's `v0` signature over the raw body, with a timestamp within five minutes.

    Computed here on the bytes as they arrived: slack_sdk's verifier wants text, and raises
    on a timestamp that is not a number."""
    try:
        when = int(timestamp)
    except ValueError:
        return False
    if abs(now - when) > MAX_AGE:
        return False
    base = b"v0:" + timestamp.encode("utf-8", "surrogateescape") + b":" + body
    expected = b"v0=" + hmac.new(secret, base, hashlib.sha256).hexdigest().encode()
    return hmac.compare_digest(expected, signature.encode("utf-8", "surrogateescape"))


def _events_handler(bot: SlackBot) -> Handler:
    app = bot.app
    shared = app.state.first_seen if app is not None and app.config.file.slack.shared_seen else None
    return _Events(bot, shared).handle


class _Events:
    """`/slack/events`: each request read, checked and let through the request gate to bolt."""

    def __init__(self, bot: SlackBot, shared: FirstSeen | None) -> None:
        self.bot = bot
        self.secret = bot.signing_secret.encode()
        self.seen = SeenSignatures(window=MAX_AGE)
        self.shared = shared
        """Signatures seen by any process sharing the database (`[slack] shared_seen`)."""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        arrived = time.monotonic()
        if (request.content_length or 0) > BODY_LIMIT:
            return web.Response(status=413)
        try:
            async with asyncio.timeout(BODY_SECONDS):  # no task of its own, as wait_for makes
                raw = await request.read()
        except TimeoutError:
            log.info("refused a Slack request whose body did not arrive in time")
            return web.Response(status=408)
        except web.HTTPRequestEntityTooLarge:
            return web.Response(status=413)
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        signature = request.headers.get("X-Slack-Signature", "")
        if not signed(self.secret, raw, timestamp, signature, time.time()):
            log.info("refused a Slack request with a bad or old signature")
            return web.Response(status=401)
        try:
            async with self.bot.requests.enter():
                return await self.checked(request, raw, timestamp, signature, arrived)
        except Closing:  # stopping: nothing more is acknowledged
            return web.Response(status=503)

    async def checked(
        self, request: web.Request, raw: bytes, timestamp: str, signature: str, arrived: float
    ) -> web.StreamResponse:
        try:
            bolt_request = AsyncBoltRequest(
                body=raw.decode("utf-8"),
                query=request.query_string,
                headers=dict(request.headers),
                context={"arrived": arrived},
            )
        except Exception:
            log.warning("unparseable Slack request (signed)")
            return web.Response(status=400)
        if await self.replayed(signature, int(timestamp)):
            log.warning(
                "a replayed Slack request was ignored (its signature was seen before)",
                extra={"event": "replay"},
            )
            return web.Response(status=200)
        try:
            response = await self.bot.bolt.async_dispatch(bolt_request)
        except Exception as error:  # bolt itself tripped on the body's shape (`view: null`)
            log.warning("a signed Slack request bolt could not handle: %s", type(error).__name__)
            return web.Response(status=400)
        if response.status == NOT_ACKED:  # no listener took it (bolt's 404 too)
            admission = self.bot.admission
            if admission is not None and admission.closing:
                return web.Response(status=503)  # a click refused while stopping: unacked
            return web.Response(status=200)  # an event the bot does not handle: acknowledged
        return await to_aiohttp_response(response)

    async def replayed(self, signature: str, timestamp: int) -> bool:
        if not self.seen.first_time(signature, timestamp):
            return True
        shared = self.shared
        return shared is not None and not await shared(f"signature:{signature}", 2 * MAX_AGE)


def _oauth_handler(flow: AsyncOAuthFlow, *, install: bool) -> Handler:
    async def handle(request: web.Request) -> web.StreamResponse:
        bolt_request = await to_bolt_request(request)
        if install:
            response = await flow.handle_installation(bolt_request)
        else:
            response = await flow.handle_callback(bolt_request)
        return await to_aiohttp_response(response)

    return handle
