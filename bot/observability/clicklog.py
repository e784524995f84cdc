"""One click, recorded the same way on every platform: a metrics sample and a log line.

Adapters say what a click did (`Handled`) or which refusal it met (`failed`), and when it
arrived; `record` turns that into `Metrics.click` and one `"event": "click"` line on the
platform's logger (`quizbot.slack`, `quizbot.discord`), so dashboards and `jq` queries read
both platforms alike. Lines are written when a burst is over (at most a second late).
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import time
from dataclasses import dataclass

from bot.domain.actor import Actor
from bot.observability.metrics import Metrics

__all__ = ["DONE", "Handled", "failed", "flush", "record"]


@dataclass(frozen=True)
class Handled:
    """What a click that went through did: `new`, `duplicate` or `closed` for an answer (and
    whether a new one was right), `done` for the other buttons."""

    outcome: str
    post_id: int | None = None
    correct: bool | None = None


DONE = Handled("done")
FAILURES = {"stale_click": "stale", "try_again": "busy"}
"""Refusals (a `QuizError` key) with an outcome of their own; any other is `refused`."""


def failed(key: str | None) -> str:
    """The outcome of a click that failed: with the `QuizError` key it was refused with, or
    None for an unexpected error (a bug, a platform failure): `error`."""
    if key is None:
        return "error"
    return FAILURES.get(key, "refused")


LINGER = 0.25
"""Click lines wait until no click has come for this long (a burst is over)..."""
LATEST = 1.0
"""...or until the oldest has waited this long, then are written together."""


class _Lines:
    """Click log lines held back while clicks keep coming, then written through the logging
    handlers as they would have been (their time is the click's).

    Formatting and writing a line was a tenth of a click's time on the event loop, and in a
    burst every click waited for the lines of the clicks before it. Held in memory for at
    most LATEST seconds: a crash loses at most that much of the log, never an answer."""

    def __init__(self) -> None:
        self._pending: list[tuple[str, float, str, dict[str, object]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._oldest = 0.0
        self._newest = 0.0
        atexit.register(self.flush)

    def add(self, logger: str, outcome: str, fields: dict[str, object]) -> None:
        now = time.monotonic()
        self._pending.append((logger, time.time(), outcome, fields))
        self._newest = now
        if len(self._pending) == 1:
            self._oldest = now
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop: nothing to hold up
            self.flush()
            return
        self._timer = loop.call_later(LINGER, self._due)

    def _due(self) -> None:
        self._timer = None
        now = time.monotonic()
        wait = min(self._newest + LINGER, self._oldest + LATEST) - now
        if wait > 0.001 and self._pending:
            self._timer = asyncio.get_running_loop().call_later(wait, self._due)
            return
        self.flush()

    def flush(self) -> None:
        """Writes every line held back (at shutdown too)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, []
        for name, created, outcome, fields in pending:
            log = logging.getLogger(name)
            line = log.makeRecord(
                name, logging.INFO, __file__, 0, "click: %s", (outcome,), None, extra=fields
            )
            line.created, line.msecs = created, (created % 1) * 1000
            log.handle(line)


_lines = _Lines()


def flush() -> None:
    """Writes the click lines held back now (tests reading the log, shutdown)."""
    _lines.flush()


def record(
    metrics: Metrics, platform: str, actor: Actor | None, result: Handled, arrived: float
) -> None:
    """One click, from its arrival (`time.monotonic()`) to its reply being sent: the metrics
    (count by outcome, latency, a new answer's correctness; an `error` also counts as an
    error "click") and a log line, written once the burst it came in is over (`_Lines`)."""
    seconds = time.monotonic() - arrived
    metrics.click(platform, result.outcome, seconds, result.correct)
    if result.outcome == "error":
        metrics.error(platform, "click")
    name = f"quizbot.{platform}"
    if not logging.getLogger(name).isEnabledFor(logging.INFO):
        return
    _lines.add(
        name,
        result.outcome,
        {
            "event": "click",
            "server": actor.server_id if actor else None,
            "post": result.post_id,
            "user": actor.user_id if actor else None,
            "outcome": result.outcome,
            "latency_ms": round(seconds * 1000, 1),
        },
    )
