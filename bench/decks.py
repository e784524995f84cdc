"""5 (decks). 6. Validating 10,000 questions: 100 generated deck files of 100 questions each,
in Bengali and English, each question with four choices, a `why` on every wrong one and an
explanation, loaded with `load_decks` (what `quizbot validate` and the bot's start do).

Baseline: the fastest plain parse a bare program would use, `yaml.load` of the same files with
PyYAML's libyaml loader (`yaml.CSafeLoader`), so the ratio is what validation, positions and
the guards against hostile files cost beyond reading the YAML.
"""

from __future__ import annotations

import time
from pathlib import Path

import yaml

from bench.report import Figure
from bot.decks.loading import load_decks

SECTION = "6 validate"


def _pair(en: str, bn: str) -> str:
    return f'{{en: "{en}", bn: "{bn}"}}'


def write_decks(folder: Path, decks: int = 100, questions: int = 100) -> Path:
    """`decks` files of `questions` questions each in `folder`; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for d in range(decks):
        lines = [
            f"id: bench-deck-{d:03d}",
            "title: " + _pair(f"Benchmark deck {d}", f"বেঞ্চমার্ক ডেক {d}"),
            "locales: [bn, en]",
            "questions:",
        ]
        for q in range(questions):
            right = q % 4
            lines += [
                f"  - id: q-{q:03d}",
                "    text: "
                + _pair(
                    f"Question {q} of deck {d}: which pipeline stage idles first?",
                    f"ডেক {d}-এর প্রশ্ন {q}: পাইপলাইনের কোন স্টেজ প্রথমে বসে থাকে?",
                ),
                "    choices:",
            ]
            for c in range(4):
                if c == right:
                    lines.append("      - " + _pair(f"Stage {c}", f"স্টেজ {c}"))
                else:
                    lines += [
                        "      - text: " + _pair(f"Stage {c}", f"স্টেজ {c}"),
                        "        why: "
                        + _pair(
                            f"Stage {c} waits for the activations of stage {right}.",
                            f"স্টেজ {c} স্টেজ {right}-এর অ্যাক্টিভেশনের জন্য অপেক্ষা করে।",
                        ),
                    ]
            lines += [
                f"    answer: {right}",
                "    explanation: "
                + _pair(
                    f"Stage {right} runs first and then waits for the backward pass.",
                    f"স্টেজ {right} আগে চলে, তারপর ব্যাকওয়ার্ড পাসের জন্য অপেক্ষা করে।",
                ),
                "    tags: [pipeline, bench]",
            ]
        (folder / f"bench-deck-{d:03d}.yaml").write_text("\n".join(lines) + "\n")
    return folder


def measure(folder: Path, quick: bool) -> list[Figure]:
    rounds = 1 if quick else 3
    files = sorted(folder.glob("*.yaml"))
    best_load = best_parse = float("inf")
    report = None
    for _ in range(rounds):
        started = time.perf_counter()
        for f in files:
            yaml.load(f.read_text(), Loader=yaml.CSafeLoader)
        best_parse = min(best_parse, time.perf_counter() - started)
        started = time.perf_counter()
        report = load_decks([folder])
        best_load = min(best_load, time.perf_counter() - started)
    assert report is not None
    count = sum(len(d) for d in report.decks)
    figure = Figure(
        SECTION,
        f"{count:,} questions in {len(files)} files",
        best_load * 1000,
        "ms",
        best_parse * 1000,
        "yaml.load, CSafeLoader",
        note="" if report.ok else f"{len(report.problems)} problems: {report.problems[:3]}",
        extra={"questions": count, "problems": len(report.problems)},
    )
    figure.met = report.ok and count == 100 * len(files)
    return [figure]
