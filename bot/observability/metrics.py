"""Prometheus metrics: clicks, answers, click-to-reply latency, errors.

One `Metrics` per App (its own registry, so tests and several apps in one process never
share counters). Adapters record what happened; Slack's HTTP mode serves `/metrics`.
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST as CONTENT_TYPE
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

__all__ = ["CONTENT_TYPE", "Metrics"]

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.clicks = Counter(
            "quizbot_clicks",
            "Button clicks received, by platform and outcome (new, duplicate, closed: an "
            "answer; done: another button; stale, busy, refused, error).",
            ["platform", "outcome"],
            registry=self.registry,
        )
        self.answers = Counter(
            "quizbot_answers",
            "Answers stored, by platform and whether they were right.",
            ["platform", "correct"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "quizbot_click_reply_seconds",
            "From a click arriving to its private reply being sent.",
            ["platform"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.errors = Counter(
            "quizbot_errors",
            "Unexpected errors (bugs and platform failures), by platform and where.",
            ["platform", "where"],
            registry=self.registry,
        )
        self.commands = Counter(
            "quizbot_commands",
            "Slash commands, by platform and subcommand.",
            ["platform", "command"],
            registry=self.registry,
        )

    def click(
        self, platform: str, outcome: str, seconds: float, correct: bool | None = None
    ) -> None:
        """Records one click and how long its reply took; `correct` for a newly stored answer."""
        self.clicks.labels(platform, outcome).inc()
        self.latency.labels(platform).observe(seconds)
        if correct is not None:
            self.answers.labels(platform, "true" if correct else "false").inc()

    def error(self, platform: str, where: str) -> None:
        self.errors.labels(platform, where).inc()

    def command(self, platform: str, name: str) -> None:
        self.commands.labels(platform, name).inc()

    def exposition(self) -> bytes:
        """The text format Prometheus scrapes."""
        return generate_latest(self.registry)
