"""Percentiles of a burst, and the figures the Slack and Discord benchmarks share."""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench.report import Figure, judged


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Burst:
    """One burst of simultaneous clicks: seconds from each click to its ack and its reply."""

    clicks: int
    acks: list[float]
    replies: list[float]
    failures: int = 0
    """Clicks that got no 200 ack, or no private reply in time."""
    stored: int | None = None
    """Answers the bot's database holds for the burst (the quiz app only)."""

    def p(self, which: str, pct: float) -> float | None:
        values = self.acks if which == "ack" else self.replies
        return percentile(values, pct) * 1000 if values else None

    def slowest(self, which: str) -> float | None:
        values = self.acks if which == "ack" else self.replies
        return max(values) * 1000 if values else None


ROUNDS = {200: 3, 1000: 1}
"""Bursts per size. A burst of 200 lasts a tenth of a second, so one collector pause or a
neighbour's spike can move its p99 by half: each app's figure is its median burst."""


def median_burst(bursts: list[Burst]) -> Burst:
    """The burst whose p99 ack is the median of `bursts`; its failures and stored count are
    the whole set's, so a click lost in any round still shows."""
    ordered = sorted(bursts, key=lambda b: b.p("ack", 99) or 0.0)
    chosen = ordered[len(ordered) // 2]
    chosen.failures = sum(b.failures for b in bursts)
    return chosen


def burst_figures(
    section: str,
    app: dict[int, Burst],
    bare: dict[int, Burst],
    bare_reply: dict[int, Burst],
    ack_name: str = "ack",
) -> list[Figure]:
    """p50 and p99 of ack and reply per burst size, against the bare app's; the targets:
    p99 ack <= 100 ms at 200 clicks and <= 1.5x the bare app; no ack past 3 s."""
    figures: list[Figure] = []
    for clicks in sorted(app):
        mine, base, base_reply = app[clicks], bare[clicks], bare_reply[clicks]
        note = f"{mine.failures} of {clicks} clicks failed" if mine.failures else ""
        if mine.stored is not None and mine.stored != clicks:
            note = (note + "; " if note else "") + f"{mine.stored} of {clicks} answers stored"
        for pct in (50, 99):
            f = Figure(
                section,
                f"{clicks} clicks, {ack_name} p{pct}",
                mine.p("ack", pct),
                "ms",
                base.p("ack", pct),
                "bare app",
                note=note,
            )
            if pct == 99:
                target = "<= 1.5x bare" + (", <= 100 ms" if clicks == 200 else "")
                judged(
                    f,
                    target,
                    lambda v, r, c=clicks, ok=not note: (
                        ok and r is not None and r <= 1.5 and (c != 200 or v <= 100)
                    ),
                )
            figures.append(f)
        f = Figure(
            section,
            f"{clicks} clicks, slowest {ack_name}",
            mine.slowest("ack"),
            "ms",
            base.slowest("ack"),
            "bare app",
            note=note,
        )
        figures.append(judged(f, "< 3,000 ms", lambda v, r, ok=not note: ok and v < 3000))
        for pct in (50, 99):
            f = Figure(
                section,
                f"{clicks} clicks, private reply p{pct}",
                mine.p("reply", pct),
                "ms",
                base_reply.p("reply", pct),
                "bare app, fixed reply",
                note=note,
            )
            if note:
                judged(f, "every click answered", lambda v, r: False)
            figures.append(f)
    return figures
