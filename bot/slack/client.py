"""The Web API client: the configured base URL; retries on rate limits and lost connections."""

from __future__ import annotations

from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient


def retry_handlers() -> list[AsyncRetryHandler]:
    """The SDK retries only connection errors by default; chat.update and chat.postMessage are
    rate-limited per channel, so a 429 is waited out (Retry-After) and tried again."""
    return [
        AsyncConnectionErrorRetryHandler(max_retry_count=2),
        AsyncRateLimitErrorRetryHandler(max_retry_count=3),
    ]


def configure(client: AsyncWebClient, api_url: str) -> AsyncWebClient:
    """Points a client (bolt's own `app.client`, say) at `api_url` with our retry handlers.

    Bolt copies both from `app.client` into the client of every request."""
    client.base_url = api_url
    client.retry_handlers = retry_handlers()
    return client


def web_client(api_url: str, token: str | None = None) -> AsyncWebClient:
    """An AsyncWebClient on `api_url` ([slack] api_url: slack.com, GovSlack or a test server)."""
    return configure(AsyncWebClient(token=token), api_url)
