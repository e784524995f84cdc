"""9. Memory over a long run: the real bot on Slack (HTTP) and Discord, on SQLite and on
PostgreSQL, driven through many posts and clicks by many people, its resident memory read
after a warm-up and as the run goes on.

Each of the four runs is one child process (`bench.slack_app` or `bench.discord_app`), as
in sections 2 and 3, on a database of its own (a SQLite file; a PostgreSQL database created
for it and dropped). The warm-up takes bursts of 1,000 clicks (the allocator's pools and the
connections' buffers grow to a burst's size once) and then more posts than any per-post
cache keeps. Then two phases, so that growth per click and growth per post are told apart:

- clicks: posts of 1,000 clicks each, every click by one of `PEOPLE` people in turn, one in
  twenty by someone who already clicked that post (a duplicate);
- posts: posts of 5 clicks each, posted, clicked and closed one after another.

Figures: RSS after the warm-up; its growth over both phases (target: within 5 MiB, every
click answered); growth per 10,000 clicks (over the click phase) and per 100 posts (over the
post phase). Then, traced (`bench.heap`: tracemalloc makes a click about four times slower,
so the phases above run untraced), a shorter run of both kinds, whose second half's growth
by allocation site names what grows.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import asyncpg

from bench import soak_drivers
from bench.databases import POSTGRES_URL
from bench.report import Figure, failed, judged
from bench.soak_drivers import Driver, heap

SECTION = "9 soak"
TARGET_MIB = 5.0
PEOPLE = 20_000
"""Distinct people clicking, in turn: per-person state meets many more than one post's."""


@dataclass(frozen=True)
class Plan:
    warm_bursts: int
    """Posts of 1,000 clicks that open the warm-up: the allocator's pools and the
    connections' buffers grow to a burst's size, not per click."""
    warm_posts: int
    """Then posts of 20 clicks, past the per-post caches' bounds."""
    click_posts: int
    """Posts of 1,000 clicks in the click phase."""
    posts: int
    """Posts of 5 clicks in the post phase."""
    traced: tuple[int, int]
    """(posts of 1,000 clicks, posts of 5) in each half of the traced run: the first lets
    traced blocks replace the untraced ones, the second is what `top` compares."""
    traced_on: tuple[str, ...] = ("sqlite", "postgresql")

    @property
    def clicks(self) -> int:
        return self.click_posts * 1000 + self.posts * 5


QUICK = Plan(
    warm_bursts=3, warm_posts=30, click_posts=3, posts=30, traced=(1, 5), traced_on=("sqlite",)
)
"""Quick: a taste (a few minutes for the four runs); on SQLite only, the traced run."""
FULL = Plan(warm_bursts=21, warm_posts=300, click_posts=100, posts=1000, traced=(2, 50))
"""Full: the issue's 100,000 clicks and 1,000 posts, after a warm-up past every per-click
and per-post bound (21,000 signed requests, 300 posts: `docs/operations.md`)."""


Starter = Callable[[Path, str | None], AbstractAsyncContextManager[Driver]]
PLATFORMS: dict[str, Starter] = {"slack": soak_drivers.slack, "discord": soak_drivers.discord}


@asynccontextmanager
async def database(kind: str, tag: str) -> AsyncIterator[tuple[Path, str | None]]:
    """A folder for the bot, and its PostgreSQL URL (a database created for the run, dropped
    after) or None (a SQLite file in the folder)."""
    folder = Path(tempfile.mkdtemp(prefix=f"quizbench-soak-{tag}-"))
    try:
        if kind == "sqlite":
            yield folder, None
            return
        name = f"quizsoak_{os.getpid()}_{tag}"
        admin = await asyncpg.connect(POSTGRES_URL, timeout=5)
        try:
            await admin.execute(f"DROP DATABASE IF EXISTS {name}")
            await admin.execute(f"CREATE DATABASE {name}")
            try:
                yield folder, POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"
            finally:
                await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await admin.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Crowd:
    """Who clicks next: `PEOPLE` people in turn, and every 20th click one of the post's
    earlier clickers again (their first click stands: a duplicate)."""

    def __init__(self) -> None:
        self._next = 0
        self.posters = 0

    def people(self, clicks: int) -> list[int]:
        chosen: list[int] = []
        for i in range(clicks):
            if i % 20 == 19:
                chosen.append(chosen[i // 2])
                continue
            chosen.append(100_000 + self._next % PEOPLE)
            self._next += 1
        return chosen

    def poster(self) -> int:
        self.posters += 1
        return 900_000 + self.posters % 500


async def posts(driver: Driver, crowd: Crowd, count: int, clicks: int) -> int:
    """`count` posts of `clicks` clicks each, each closed before the next; clicks answered."""
    answered = 0
    for _ in range(count):
        poster = crowd.poster()
        post = await driver.post(poster)
        answered += await driver.click(post, crowd.people(clicks))
        await driver.close(post, poster)
    return answered


async def soak(platform: str, kind: str, plan: Plan) -> dict[str, Any]:
    """One run: readings after the warm-up, the click phase and the post phase (untraced:
    tracemalloc makes a click four times slower), then a traced run's growing sites."""
    async with (
        database(kind, f"{platform}_{kind}") as (folder, url),
        PLATFORMS[platform](folder, url) as driver,
    ):
        crowd = Crowd()
        clock = time.perf_counter()
        seconds: dict[str, float] = {}

        def lap(name: str) -> None:
            nonlocal clock
            seconds[name] = round(time.perf_counter() - clock, 1)
            clock = time.perf_counter()

        await posts(driver, crowd, plan.warm_bursts, 1000)
        await posts(driver, crowd, plan.warm_posts, 20)
        trend = [await heap(driver.proc, "read")]
        trimmed = [await heap(driver.proc, "trim")]
        lap("warm_up")
        answered = 0
        step = max(1, plan.click_posts // 5)
        for done in range(0, plan.click_posts, step):
            answered += await posts(driver, crowd, min(step, plan.click_posts - done), 1000)
            trend.append(await heap(driver.proc, "read"))
        clicked = len(trend) - 1
        lap("clicks")
        step = max(1, plan.posts // 5)
        for done in range(0, plan.posts, step):
            answered += await posts(driver, crowd, min(step, plan.posts - done), 5)
            trend.append(await heap(driver.proc, "read"))
        types = (await heap(driver.proc, "types"))["types"]
        trimmed.append(await heap(driver.proc, "trim"))
        lap("posts")
        marked: dict[str, Any] | None = None
        final: dict[str, Any] = {}
        if kind in plan.traced_on:
            await heap(driver.proc, "trace")
            bursts, small = plan.traced
            await posts(driver, crowd, bursts, 1000)
            await posts(driver, crowd, small, 5)
            marked = await heap(driver.proc, "mark")
            await posts(driver, crowd, bursts, 1000)
            await posts(driver, crowd, small, 5)
            final = await heap(driver.proc, "top")
            lap("traced")
        return {
            "rss": [t["rss_mib"] for t in trend],
            "sqlite": [round(trend[0]["sqlite_mib"], 1), round(trend[-1]["sqlite_mib"], 1)],
            "trimmed": [t["rss_mib"] for t in trimmed],
            "clicked": clicked,
            "heap_mib": final["traced_mib"] - marked["traced_mib"] if marked else None,
            "top": final.get("top", []),
            "types": types,
            "answered": answered,
            "seconds": seconds,
        }


def figures(platform: str, kind: str, plan: Plan, got: dict[str, Any]) -> list[Figure]:
    rss, clicked = got["rss"], got["clicked"]
    name = f"{platform}, {kind}"
    bursts, small = plan.traced
    extra = {
        "plan": asdict(plan),
        "answered": got["answered"],
        "rss_trend_mib": [round(r, 1) for r in rss],
        "sqlite_own_mib": got["sqlite"],
        "rss_after_malloc_trim_mib": [round(r, 1) for r in got["trimmed"]],
        "seconds": got["seconds"],
        "traced_run": f"{bursts * 1000 + small * 5:,} clicks, {bursts + small} posts",
        "top_growing_sites": got["top"],
        "top_growing_types": got["types"],
    }
    grown = max(rss) - rss[0]
    kept = got["trimmed"][1] - got["trimmed"][0]
    per_clicks = (rss[clicked] - rss[0]) / (plan.click_posts * 1000) * 10_000
    per_posts = (rss[-1] - rss[clicked]) / plan.posts * 100
    note = f"{plan.clicks:,} clicks, {plan.click_posts + plan.posts:,} posts after the warm-up"
    every = got["answered"] == plan.clicks
    traced = []
    if got["heap_mib"] is not None:
        traced.append(
            Figure(
                SECTION,
                f"{name}: Python heap growth, traced run",
                got["heap_mib"] * 1024,
                "KiB",
                None,
                "",
                note=extra["traced_run"],
            )
        )
    return [
        Figure(SECTION, f"{name}: RSS after warm-up", rss[0], "MiB", None, ""),
        judged(
            Figure(SECTION, f"{name}: RSS growth", grown, "MiB", None, "", note=note, extra=extra),
            f"<= {TARGET_MIB:.0f} MiB, every click answered",
            lambda value, _: value <= TARGET_MIB and every,
        ),
        Figure(
            SECTION, f"{name}: RSS growth per 10,000 clicks", per_clicks * 1024, "KiB", None, ""
        ),
        Figure(SECTION, f"{name}: RSS growth per 100 posts", per_posts * 1024, "KiB", None, ""),
        Figure(
            SECTION,
            f"{name}: RSS growth, the allocator's free pages returned",
            kept,
            "MiB",
            None,
            "",
            note="RSS after malloc_trim(0), at the end less after the warm-up",
        ),
        *traced,
    ]


async def run(quick: bool, only: list[str] | None = None) -> list[Figure]:
    plan = QUICK if quick else FULL
    out: list[Figure] = []
    for platform in PLATFORMS:
        for kind in ("sqlite", "postgresql"):
            if only and f"{platform}-{kind}" not in only:
                continue
            try:
                got = await soak(platform, kind, plan)
            except Exception as error:
                out.append(failed(SECTION, f"{platform}, {kind}", repr(error)))
                continue
            out += figures(platform, kind, plan, got)
    return out


def main() -> None:
    """`python -m bench.soak [--full] [--out PATH] [slack-sqlite ...]`: this section alone
    (all four runs unless named), its figures written as `python -m bench` writes them."""
    import argparse

    from bench.databases import postgres_version
    from bench.report import machine, table, write_results

    parser = argparse.ArgumentParser(prog="python -m bench.soak")
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("runs", nargs="*", help="platform-database, e.g. slack-sqlite")
    args = parser.parse_args()
    started = time.perf_counter()
    info = machine(asyncio.run(postgres_version()))
    found = asyncio.run(run(not args.full, args.runs))
    print(table(found))
    if args.out is not None:
        mode = "full" if args.full else "quick"
        write_results(args.out, found, info, mode, time.perf_counter() - started)


if __name__ == "__main__":
    main()
