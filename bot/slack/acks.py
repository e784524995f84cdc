"""Slack is answered the moment a listener acks; the listener's work goes on in a task.

bolt runs the app with `process_before_response=True`: a listener runs inline and Slack's
HTTP response (or Socket Mode ack) is what it returns. Each listener is registered through
`Acks.early`, which runs it in a task and returns as soon as it calls `ack()` (or ends
without it), so a click's private reply and a command's work never hold up the ack.

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
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.response import BoltResponse

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

    @property
    def running(self) -> int:
        return len(self._running)

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
