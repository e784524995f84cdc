"""The Web API client: the configured base URL, a timeout, and retries on rate limits, server
errors, lost connections and calls that time out, except where a retry could post twice."""

from __future__ import annotations

from aiohttp import (
    ClientConnectorError,
    ClientOSError,
    ServerConnectionError,
    ServerDisconnectedError,
)
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

TIMEOUT = 10
"""Seconds a Web API call or a response_url post may take before it is given up and tried
again (the SDK waits 30: a click's reply would be that late before its retry even starts)."""


NOT_IDEMPOTENT = ("/chat.postMessage",)
"""Calls that a second try could repeat: a chat.postMessage that timed out, lost its
connection or got a 5xx may have posted, and Slack has no idempotency key. Only a 429 (Slack
refused it) or a connection never made is tried again; otherwise the post fails, and is
withdrawn and told, rather than the channel getting the question twice (the first copy with
live buttons and no reveal)."""


def _posts(request: HttpRequest) -> bool:
    return request.url.endswith(NOT_IDEMPOTENT)


class _ConnectionErrors(AsyncConnectionErrorRetryHandler):
    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if _posts(request) and not isinstance(error, ClientConnectorError):
            return False  # it reached Slack, or may have
        return await super()._can_retry_async(
            state=state, request=request, response=response, error=error
        )


class _ServerErrors(AsyncServerErrorRetryHandler):
    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if _posts(request):
            return False
        return await super()._can_retry_async(
            state=state, request=request, response=response, error=error
        )


def retry_handlers() -> list[AsyncRetryHandler]:
    """The SDK retries only connection errors by default, and not a call that timed out:
    chat.update and chat.postMessage are rate-limited per channel, so a 429 is waited out
    (Retry-After); a 500 or 503, a dropped connection and a timeout are tried again, except
    for a post (`NOT_IDEMPOTENT`)."""
    return [
        _ConnectionErrors(
            max_retry_count=2,
            error_types=[
                ServerConnectionError,
                ServerDisconnectedError,
                ClientOSError,
                TimeoutError,
            ],
        ),
        AsyncRateLimitErrorRetryHandler(max_retry_count=3),
        _ServerErrors(max_retry_count=2),
    ]


def configure(client: AsyncWebClient, api_url: str) -> AsyncWebClient:
    """Points a client (bolt's own `app.client`, say) at `api_url` with our timeout and retry
    handlers. Bolt copies all three from `app.client` into the client of every request."""
    client.base_url = api_url
    client.retry_handlers = retry_handlers()
    client.timeout = TIMEOUT
    return client


def web_client(api_url: str, token: str | None = None) -> AsyncWebClient:
    """An AsyncWebClient on `api_url` ([slack] api_url: slack.com, GovSlack or a test server)."""
    return configure(AsyncWebClient(token=token), api_url)
