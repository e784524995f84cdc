"""`python -m bench [--quick] [--only SECTION ...] [--out PATH]`: runs the benchmarks, prints
the table and writes bench/results.json (see bench/README in the project README's
Performance section for what each figure means)."""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench import (
    decks,
    discord_bench,
    game_bench,
    leaderboard,
    mastery,
    memory,
    slack_bench,
    soak,
    throughput,
)
from bench.databases import postgres_version
from bench.report import ROOT, Figure, failed, machine, table, write_results

SECTIONS = (
    "answers",
    "slack",
    "discord",
    "game",
    "leaderboard",
    "mastery",
    "memory",
    "validate",
    "soak",
)


async def run(
    quick: bool, only: list[str], full_postgres: bool, mastery_1e7: bool = False
) -> list[Figure]:
    figures: list[Figure] = []
    folder = Path(tempfile.mkdtemp(prefix="quizbench-decks-"))
    try:
        # Quick mode: 10 decks (1,000 questions), full mode 100 (the 10,000).
        deck_folder = decks.write_decks(folder / "decks", decks=10 if quick else 100)
        for section in only:
            started = time.perf_counter()
            print(f"... {section}", file=sys.stderr, flush=True)
            try:
                if section == "answers":
                    got = await throughput.run(quick)
                elif section == "slack":
                    got = await slack_bench.run(quick)
                elif section == "discord":
                    got = await discord_bench.run(quick)
                elif section == "game":
                    got = await game_bench.run(quick)
                elif section == "leaderboard":
                    got = await leaderboard.run(quick, sqlite_only_at_1e7=not full_postgres)
                elif section == "mastery":
                    got = await mastery.run(quick, with_1e7=mastery_1e7)
                elif section == "soak":
                    got = await soak.run(quick)
                elif section == "memory":
                    got = await memory.run(quick, deck_folder)
                else:
                    got = decks.measure(deck_folder, quick)
            except Exception as error:
                got = [failed(section, "section", repr(error))]
            print(f"    {section}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
            figures += got
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the short run (under 2 minutes)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results.json")
    parser.add_argument(
        "--postgres-1e7",
        action="store_true",
        help="full mode: load 10^7 answers into PostgreSQL too (several minutes)",
    )
    parser.add_argument(
        "--mastery-1e7",
        action="store_true",
        help="full mode: write 10^7 answers click by click into SQLite for the mastery board"
        " (hours)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    info = machine(asyncio.run(postgres_version()))
    figures = asyncio.run(run(args.quick, args.only, args.postgres_1e7, args.mastery_1e7))
    seconds = time.perf_counter() - started
    mode = "quick" if args.quick else "full"
    print(table(figures))
    missed = [f for f in figures if not f.met]
    print(
        f"\n{mode} run, {seconds:.0f} s on {info['cpu_count']} cores; "
        f"{len(figures) - len(missed)} of {len(figures)} figures meet their target"
    )
    for f in missed:
        print(f"  not met: {f.section}: {f.name}" + (f" ({f.note})" if f.note else ""))
    write_results(args.out, figures, info, mode, seconds)
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
