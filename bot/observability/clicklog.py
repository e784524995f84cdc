"""One click, recorded the same way on every platform: a metrics sample and a log line.

Adapters say what a click did (`Handled`) or which refusal it met (`failed`), and when it
arrived; `record` turns that into `Metrics.click` and one `"event": "click"` line on the
platform's logger (`quizbot.slack`, `quizbot.discord`), so dashboards and `jq` queries read
both platforms alike.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from bot.domain.actor import Actor
from bot.observability.metrics import Metrics

__all__ = ["DONE", "Handled", "failed", "record"]


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


def record(
    metrics: Metrics, platform: str, actor: Actor | None, result: Handled, arrived: float
) -> None:
    """One click, from its arrival (`time.monotonic()`) to its reply being sent: the metrics
    (count by outcome, latency, a new answer's correctness; an `error` also counts as an
    error "click") and a log line."""
    seconds = time.monotonic() - arrived
    metrics.click(platform, result.outcome, seconds, result.correct)
    if result.outcome == "error":
        metrics.error(platform, "click")
    logging.getLogger(f"quizbot.{platform}").info(
        "click: %s",
        result.outcome,
        extra={
            "event": "click",
            "server": actor.server_id if actor else None,
            "post": result.post_id,
            "user": actor.user_id if actor else None,
            "outcome": result.outcome,
            "latency_ms": round(seconds * 1000, 1),
        },
    )
