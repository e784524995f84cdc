"""Percentiles of a burst, and the figures the Slack and Discord benchmarks share."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bench.report import Figure, judged
from bot.storage.sql import open_store


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


class Target(Protocol):
    """One app under load, in the Slack or Discord benchmark."""

    kind: str

    async def burst(self, clicks: int, tag: str) -> Burst: ...

    async def stored(self) -> int | None:
        """Answers the quiz app has stored for its post (None for a bare app)."""
        ...


async def take_turns(
    targets: Sequence[Target], sizes: list[int], warm_up: int
) -> dict[str, dict[int, Burst]]:
    """Every app's bursts, taken in turns (each app at each size, `ROUNDS` times), so a
    figure and its baselines are measured seconds apart on this noisy machine; each app's
    median burst per size, with what its bursts stored."""
    for target in targets:
        await target.burst(warm_up, "w")
    before = [await target.stored() for target in targets]
    rounds: dict[str, dict[int, list[Burst]]] = {target.kind: {} for target in targets}
    for size in sizes:
        for r in range(ROUNDS.get(size, 1)):
            for target in targets:
                await asyncio.sleep(0.3)
                taken = await target.burst(size, f"b{size}r{r}")
                rounds[target.kind].setdefault(size, []).append(taken)
    out = {
        kind: {size: median_burst(bursts) for size, bursts in by_size.items()}
        for kind, by_size in rounds.items()
    }
    sent = sum(size * ROUNDS.get(size, 1) for size in sizes)
    for target, earlier in zip(targets, before, strict=True):
        stored = await target.stored()
        if stored is None or earlier is None:
            continue
        for b in out[target.kind].values():  # what the bursts added, all of them or not
            b.stored = b.clicks if stored - earlier == sent else stored - earlier
    return out


async def answers_stored(folder: Path, post_id: int | None) -> int | None:
    """Answers a quiz app's database (`folder`/quiz.db) holds for its post."""
    if post_id is None:
        return None
    store = await open_store(f"sqlite:///{folder / 'quiz.db'}")
    try:
        return await store.answer_count(post_id)
    finally:
        await store.close()


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
