"""Where the Slack adapter relies on bolt's internals, fenced: tests/slack/test_slack_fences.py
fails when one of them moves, and slack-bolt is pinned to the versions those tests pass on
(pyproject.toml, constraints.txt). Nothing else in `bot` reaches past bolt's public API.

- `Acks.early`: Slack is answered the moment a listener acks; its work goes on in a task. It
  relies on bolt returning what `AsyncAck.response` recorded, and on bolt reading a listener's
  arguments through `functools.wraps`.
- `SocketHandler`: bolt's Socket Mode handler with its `handle(client, req)` overridden, as
  bolt registers it (bound) as the Socket Mode client's listener, to count each envelope.

Why `Acks`: bolt runs the app with `process_before_response=True`: a listener runs inline
and Slack's HTTP response (or Socket Mode ack) is what it returns. Each listener is
registered through `Acks.early`, which runs it in a task and returns as soon as it calls
`ack()` (or ends without it), so a click's private reply and a command's work never hold up
the ack.

bolt's default (`process_before_response=False`) did the same with a task per request and a
loop that woke every 10 ms to see whether `ack()` had been called: in a burst of 1,000 clicks
waiting on one group commit that polling was most of the event loop's time; and a listener
that had not acked within 3 s was taken for one that never would, so the click went on to the
next matching listener (the catch-all, which answered it again as a stale click).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.response import BoltResponse
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.service.admission import Closing
from bot.slack.gate import RequestGate

log = logging.getLogger("quizbot.slack")

Listener = Callable[..., Awaitable[Any]]

NOT_ACKED = 404
"""What a listener that ended without `ack()` answers: `bot.slack.http` turns it into 503
while stopping (Slack tells the clicker it failed), else 200; in Socket Mode nothing is
sent, as bolt sends no ack for a response other than 200."""


class Acks:
    """The listeners' tasks, kept until they end (the event loop holds tasks weakly)."""

    def __init__(self) -> None:
        self._running: set[asyncio.Task[Any]] = set()

    def _spawn(self, work: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(work)
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return task

    def early(self, listener: Listener) -> Listener:
        """`listener`, answering Slack when it acks. bolt reads the arguments it passes from
        the listener's own signature (through `functools.wraps`). An event listener takes no
        `ack`: bolt acks it when this returns, at once."""
        if "ack" not in inspect.signature(listener).parameters:

            @functools.wraps(listener)
            async def event(**kwargs: Any) -> None:
                self._spawn(listener(**kwargs))

            return event

        @functools.wraps(listener)
        async def run(**kwargs: Any) -> BoltResponse | None:
            ack = kwargs["ack"]
            acked: asyncio.Future[None] = asyncio.get_running_loop().create_future()

            async def ack_and_answer(*args: Any, **options: Any) -> BoltResponse:
                try:
                    response: BoltResponse = await ack(*args, **options)
                    return response
                finally:
                    if not acked.done():
                        acked.set_result(None)

            task = self._spawn(listener(**{**kwargs, "ack": ack_and_answer}))
            await asyncio.wait((acked, task), return_when=asyncio.FIRST_COMPLETED)
            if acked.done():
                response: BoltResponse | None = ack.response
                return response
            returned = task.result()  # an error goes to bolt's error handler, as inline
            if isinstance(returned, BoltResponse):
                return returned
            return BoltResponse(status=NOT_ACKED, body="")

        return run


class SocketHandler(AsyncSocketModeHandler):
    """Bolt's Socket Mode handler, counting each envelope from its arrival until its ack is
    sent (`requests`): stopping waits for those, and leaves a later one unacknowledged."""

    def __init__(self, bolt: AsyncApp, app_token: str | None, requests: RequestGate) -> None:
        super().__init__(bolt, app_token)
        self.requests = requests

    async def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:  # type: ignore[override]
        try:
            async with self.requests.enter():
                await super().handle(client, req)
        except Closing:
            log.info("a Socket Mode envelope arrived while stopping; not acknowledged")
