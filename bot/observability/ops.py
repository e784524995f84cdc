"""The operations listener: `/healthz` and `/metrics` on `[ops] host:port`, in every mode.

Apart from the public events port, so a Slack HTTP deployment publishes nothing operational
to the internet, and Socket Mode or Discord-only deployments have both paths too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from aiohttp import web

from bot.observability.metrics import CONTENT_TYPE, Metrics

log = logging.getLogger("quizbot.ops")
HEALTH_SECONDS = 3.0
"""How long /healthz waits for the database before it answers 503."""

Probe = Callable[[], Awaitable[None]]
"""Returns when the database answered a trivial query; raises otherwise."""


def ops_app(healthy: Probe, metrics: Metrics) -> web.Application:
    async def health(request: web.Request) -> web.StreamResponse:
        try:
            await asyncio.wait_for(healthy(), HEALTH_SECONDS)
            database = True
        except Exception as error:
            log.warning("health check: the database did not answer (%s)", type(error).__name__)
            database = False
        body = {"ok": database, "database": database}
        return web.json_response(body, status=200 if database else 503)

    async def exposition(request: web.Request) -> web.StreamResponse:
        return web.Response(body=metrics.exposition(), headers={"Content-Type": CONTENT_TYPE})

    app = web.Application()
    app.router.add_get("/healthz", health)
    app.router.add_get("/metrics", exposition)
    return app


@asynccontextmanager
async def ops_listener(
    healthy: Probe, metrics: Metrics, host: str, port: int
) -> AsyncIterator[int | None]:
    """Serves the two paths while the block runs; yields the bound port. A port that cannot be
    bound is logged and skipped: the bot itself still runs."""
    runner = web.AppRunner(ops_app(healthy, metrics), access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as error:
            log.error(
                "ops listener: cannot listen on %s:%s (%s); no /healthz or /metrics",
                host,
                port,
                error.strerror,
            )
            yield None
            return
        bound = _port_of(site)
        log.info(
            "ops listener on http://%s:%s (/healthz, /metrics)",
            host,
            bound,
            extra={"event": "ops_ready", "port": bound},
        )
        yield bound
    finally:
        await runner.cleanup()


def _port_of(site: web.TCPSite) -> int | None:
    server = site._server  # aiohttp keeps the asyncio server here; its sockets say the port
    sockets = getattr(server, "sockets", None) or ()
    for sock in sockets:
        return int(sock.getsockname()[1])
    return None
