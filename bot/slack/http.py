"""HTTP mode: `/slack/events` (and the OAuth pages) on aiohttp.

Bolt verifies each request's signature (401 when it is forged or older than five minutes).
A body bolt cannot even parse gets 400 if it is signed and 401 if not, never a 500.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.oauth.async_oauth_flow import AsyncOAuthFlow
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

from bot.slack.app import SlackBot

log = logging.getLogger("quizbot.slack")
EVENTS_PATH = "/slack/events"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def web_app(bot: SlackBot, *, events: bool = True) -> web.Application:
    """The aiohttp application: events (unless Socket Mode carries them) and OAuth pages."""
    application = web.Application()
    if events:
        application.router.add_post(EVENTS_PATH, _events_handler(bot))
    flow = bot.bolt.oauth_flow
    if flow is not None:
        application.router.add_get(flow.install_path, _oauth_handler(flow, install=True))
        application.router.add_get(flow.redirect_uri_path, _oauth_handler(flow, install=False))
    return application


def _events_handler(bot: SlackBot) -> Handler:
    verifier = SignatureVerifier(bot.signing_secret)

    async def handle(request: web.Request) -> web.StreamResponse:
        raw = await request.text()
        try:
            bolt_request = AsyncBoltRequest(
                body=raw,
                query=request.query_string,
                headers=dict(request.headers),
            )
        except Exception:
            signed = verifier.is_valid(
                body=raw,
                timestamp=request.headers.get("X-Slack-Request-Timestamp", ""),
                signature=request.headers.get("X-Slack-Signature", ""),
            )
            log.warning("unparseable Slack request (%s)", "signed" if signed else "unsigned")
            return web.Response(status=400 if signed else 401)
        return await to_aiohttp_response(await bot.bolt.async_dispatch(bolt_request))

    return handle


def _oauth_handler(flow: AsyncOAuthFlow, *, install: bool) -> Handler:
    async def handle(request: web.Request) -> web.StreamResponse:
        bolt_request = await to_bolt_request(request)
        if install:
            response = await flow.handle_installation(bolt_request)
        else:
            response = await flow.handle_callback(bolt_request)
        return await to_aiohttp_response(response)

    return handle
