"""Figures, the printed table, results.json, and what machine they were measured on."""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Figure:
    """One measured number, its baseline from the same run, and its verdict.

    `ratio` is value / baseline. `target` is the issue's target in words (None: the issue
    sets none, the figure is reported for the record); `met` is the verdict, True when
    there is no target.
    """

    section: str
    name: str
    value: float | None
    unit: str
    baseline: float | None
    baseline_name: str
    target: str | None = None
    met: bool = True
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.value is None or not self.baseline:
            return None
        return self.value / self.baseline

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["ratio"] = None if self.ratio is None else round(self.ratio, 3)
        for key in ("value", "baseline"):
            if isinstance(data[key], float):
                data[key] = round(data[key], 3)
        return data


def judged(figure: Figure, target: str, check: Callable[[float, float | None], bool]) -> Figure:
    """Sets the figure's target and verdict; `check(value, ratio)`."""
    figure.target = target
    figure.met = figure.value is not None and check(figure.value, figure.ratio)
    return figure


def failed(section: str, name: str, error: BaseException | str) -> Figure:
    """A figure that could not be measured: never met."""
    return Figure(section, name, None, "", None, "", target="measured", met=False, note=str(error))


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip() or None
    return f"{commit}+dirty" if commit and dirty.stdout.strip() else commit


def machine(postgres_version: str | None) -> dict[str, Any]:
    return {
        "cpu_count": os.cpu_count(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "sqlite": sqlite3.sqlite_version,
        "postgres": postgres_version,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "commit": _git_commit(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _num(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit in ("answers/s",):
        return f"{value:,.0f}"
    if unit == "MiB":
        return f"{value:,.1f}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def table(figures: list[Figure]) -> str:
    """A Markdown table: the README's Performance section shows the same one."""
    lines = [
        "| figure | value | baseline (same run) | ratio | target | met |",
        "|---|---:|---:|---:|---|:-:|",
    ]
    for f in figures:
        value = f"{_num(f.value, f.unit)} {f.unit}".strip()
        base = f"{_num(f.baseline, f.unit)} ({f.baseline_name})" if f.baseline else "-"
        ratio = "-" if f.ratio is None else f"{f.ratio:.2f}x"
        met = "-" if f.target is None else ("yes" if f.met else "**no**")
        lines.append(
            f"| {f.section}: {f.name} | {value} | {base} | {ratio} | {f.target or '-'} | {met} |"
        )
    return "\n".join(lines)


def write_results(
    path: Path, figures: list[Figure], info: dict[str, Any], mode: str, seconds: float
) -> None:
    data = {
        "mode": mode,
        "seconds": round(seconds, 1),
        "machine": info,
        "all_targets_met": all(f.met for f in figures),
        "figures": [f.as_json() for f in figures],
    }
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
