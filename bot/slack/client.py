"""The Web API client: the configured base URL; retries on rate limits and lost connections."""

from __future__ import annotations

from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient


def web_client(api_url: str, token: str | None = None) -> AsyncWebClient:
    """An AsyncWebClient on `api_url` ([slack] api_url: slack.com, GovSlack or a test server).

    The SDK retries only connection errors by default; chat.update and chat.postMessage are
    rate-limited per channel, so a 429 is waited out (Retry-After) and tried again.
    """
    return AsyncWebClient(
        token=token,
        base_url=api_url,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
        ],
    )
