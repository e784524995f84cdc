"""Fault plans: what a protocol test server (bot/testing/fake_slack.py,
bot/testing/fake_discord.py) does to the next calls of one route, so a test can make a
platform fail on purpose, the way it fails in production.

Each fake has a plan, `fake.faults`; a test queues faults on a route:

    from bot.testing.faults import dropped, failed, hung, rate_limited

    fake.faults.next("chat.update", rate_limited(retry_after=2), times=3)
    fake.faults.next("chat.postMessage", failed(500, after_work=True))  # posted, answered 500
    fake.faults.next("response_url", failed(503))
    fake.faults.next("response_url", dropped())  # the connection cut, no answer
    fake.faults.next(CALLBACK, failed(500))      # fake_discord's route names
    fake.faults.next(EDIT_MESSAGE, hung(5))      # no answer for 5 s (past the client's timeout)

Routes: on Slack a Web API method ("chat.postMessage") or "response_url"; on Discord
"METHOD /path" as fake_discord's constants spell them (`CALLBACK`, `FOLLOWUP`,
`POST_MESSAGE`, `EDIT_MESSAGE`, `ORIGINAL`). Faults queue per route, in order: each call
takes the next one, and a call with none left is served as usual. Each fake answers a fault
in its platform's own words (Slack's `{"ok": false, "error": "ratelimited"}`, Discord's
`{"message": ..., "retry_after": ...}`) and headers (`Retry-After`).

What a test reads back: `attempts[route]`, every call of a route, faulted or not; `served`,
(route, fault) for each fault served; `await plan.spent()`, which waits until every queued
fault was served; `plan.clear()` ends the outage.

The websockets have their own verbs, as their faults are not answers to a call: Socket Mode's
`FakeSlack.drop_socket("abort" | "close")`, the Discord gateway's `FakeDiscord.drop(...)`
("abort": the client sees close code 1006; "close": a close frame, 4000 unless `code=`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web

HANG_SECONDS = 30.0
"""How long `hung()` holds an answer back unless told: past any client's timeout."""


@dataclass(frozen=True)
class Fault:
    """One call's fate. `status` None: no answer at all (the connection is cut)."""

    status: int | None
    retry_after: float | None = None
    """Seconds sent in `Retry-After` (a 429's)."""
    after_work: bool = False
    """The platform does what was asked (posts the message) before failing: the caller
    cannot tell whether it happened."""
    hang: float = 0.0
    """Seconds the answer (or the cut) is held back."""

    @property
    def name(self) -> str:
        what = "dropped" if self.status is None else str(self.status)
        if self.hang:
            what = f"hung {self.hang:g}s, then {what}"
        return f"{what} after the work" if self.after_work else what


def rate_limited(retry_after: float = 1.0) -> Fault:
    """HTTP 429 with `Retry-After: retry_after`; nothing is done."""
    return Fault(429, retry_after=retry_after)


def failed(status: int = 500, *, after_work: bool = False) -> Fault:
    """A 5xx (or any status); with `after_work` the call was done all the same."""
    return Fault(status, after_work=after_work)


def hung(seconds: float = HANG_SECONDS, *, after_work: bool = False) -> Fault:
    """No answer for `seconds` (then a 504 nobody waits for any more)."""
    return Fault(504, hang=seconds, after_work=after_work)


def dropped(*, after_work: bool = False) -> Fault:
    """The connection is cut without an answer."""
    return Fault(None, after_work=after_work)


Answer = Callable[[Fault], web.StreamResponse]
"""How a platform says a fault: the status, its body and headers."""
RouteOf = Callable[[web.Request], str | None]


@dataclass
class FaultPlan:
    """The faults queued per route, and what was served (see the module's docstring)."""

    queued: dict[str, list[Fault]] = field(default_factory=dict)
    attempts: Counter[str] = field(default_factory=Counter)
    served: list[tuple[str, Fault]] = field(default_factory=list)
    _empty: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self._empty.set()

    def next(self, route: str, fault: Fault, times: int = 1) -> FaultPlan:
        """The next `times` calls of `route` (after any already queued) meet `fault`."""
        self.queued.setdefault(route, []).extend([fault] * times)
        if times > 0:
            self._empty.clear()
        return self

    def clear(self) -> None:
        """The outage is over: faults not served yet are dropped."""
        self.queued.clear()
        self._empty.set()

    def take(self, route: str) -> Fault | None:
        """Counts a call of `route`; the fault it meets, if one is queued."""
        self.attempts[route] += 1
        queue = self.queued.get(route)
        if not queue:
            return None
        fault = queue.pop(0)
        self.served.append((route, fault))
        if not any(self.queued.values()):
            self._empty.set()
        return fault

    def served_on(self, route: str) -> list[Fault]:
        return [fault for r, fault in self.served if r == route]

    async def spent(self, seconds: float = 30.0) -> None:
        """Waits until every queued fault has been served."""
        await asyncio.wait_for(self._empty.wait(), seconds)

    def middleware(
        self, route_of: RouteOf, answer: Answer
    ) -> Callable[..., Awaitable[web.StreamResponse]]:
        """An aiohttp middleware that serves this plan: `route_of` names a request's route
        (None: not planned, e.g. a websocket), `answer` says a fault as the platform would."""

        @web.middleware
        async def serve(request: web.Request, handler: Handler) -> web.StreamResponse:
            route = route_of(request)
            fault = self.take(route) if route is not None else None
            if fault is None:
                return await handler(request)
            return await apply(fault, request, handler, answer)

        return serve


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def apply(
    fault: Fault, request: web.Request, handler: Handler, answer: Answer
) -> web.StreamResponse:
    """Serves `fault` for `request`: the work first if `after_work`, the hang, then the cut
    connection or the platform's answer."""
    if fault.after_work:
        await handler(request)
    else:
        await request.read()  # the whole request arrived, as it does before a platform fails
    if fault.hang:
        await _held(request, fault.hang)
    if fault.status is None:
        assert request.transport is not None
        request.transport.abort()
        return web.Response(status=500)  # never arrives
    return answer(fault)


async def _held(request: web.Request, seconds: float) -> None:
    """Waits `seconds`, or until the client gave up and closed the connection (a server
    stopping then need not wait for the hang to end)."""
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while loop.time() < until:
        transport = request.transport
        if transport is None or transport.is_closing():
            return
        await asyncio.sleep(min(0.05, until - loop.time()))


def retry_after_header(fault: Fault) -> dict[str, str]:
    return {} if fault.retry_after is None else {"Retry-After": f"{fault.retry_after:g}"}
