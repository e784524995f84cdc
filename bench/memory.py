"""5. The bot process's memory (RSS) with 1, 100 and 1,000 guilds in the Discord test server,
and with 100 decks of 100 questions loaded.

Each figure is one child process (`bench.discord_app`) read from /proc once it is ready (every
guild received) and has settled. Baselines, in the same run: a bare discord.py client with
the same guilds; for the decks, the same bot with only the shipped deck.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from bench.discord_bench import TimedFakeDiscord
from bench.procs import child, rss_mib
from bench.report import Figure, failed

SECTION = "5 memory"
FIRST_GUILD = 111111111111111111


async def rss(kind: str, guilds: int, decks: Path | None = None) -> float:
    fake = TimedFakeDiscord([FIRST_GUILD + (i << 22) for i in range(guilds)])
    await fake.start()
    folder = Path(tempfile.mkdtemp(prefix="quizbench-mem-"))
    args = [kind, fake.api_url, fake.gateway_url, str(folder)]
    if decks is not None:
        args.append(str(decks))
    try:
        async with child("bench.discord_app", *args) as proc:
            assert int(proc.ready) == guilds, (proc.ready, guilds)
            await asyncio.sleep(1.0)
            return rss_mib(proc.pid)
    finally:
        await fake.stop()


async def run(quick: bool, decks: Path) -> list[Figure]:
    deck_count = sum(1 for _ in await asyncio.to_thread(lambda: list(decks.glob("*.yaml"))))
    figures: list[Figure] = []
    try:
        # RSS does not depend on how busy the machine is: the children run side by side.
        sizes = (1, 100, 1000)
        measured = await asyncio.gather(
            *(rss(kind, guilds) for guilds in sizes for kind in ("bare", "quiz")),
            rss("quiz", 1),
            rss("quiz", 1, decks),
        )
        for i, guilds in enumerate(sizes):
            bare, mine = measured[2 * i], measured[2 * i + 1]
            figures.append(
                Figure(SECTION, f"{guilds} guilds", mine, "MiB", bare, "bare discord.py")
            )
        shipped, loaded = measured[-2], measured[-1]
        figures.append(
            Figure(
                SECTION,
                f"{deck_count} decks of 100 questions, 1 guild",
                loaded,
                "MiB",
                shipped,
                "bot, shipped deck",
            )
        )
    except Exception as error:
        figures.append(failed(SECTION, "rss", repr(error)))
    return figures
