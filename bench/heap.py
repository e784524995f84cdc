"""In a bench child: what its heap holds, asked for on stdin by the soak (`bench.soak`).

`trace` starts `tracemalloc` (before the warm-up: start-up's allocations, which live as
long as the process, are not traced); `mark` (after the warm-up) answers the first reading
and keeps a snapshot; `read` answers a reading; `top` answers a reading with the allocation
sites whose live memory grew most since `mark`; `types` answers a reading with the object
types whose count grew most since the first reading; `trim` has glibc return its free pages
(`malloc_trim`) and answers a reading. Each answer is one line, `HEAP <json>`.

Tracing starts before the warm-up so that what the warm-up allocated and what replaces it
are both traced: a site then grows between `mark` and `top` only if it holds more, not if
it merely replaced untraced blocks with traced ones. A reading's `rss_mib` is the process's
resident memory less what tracemalloc itself holds (tracing's cost, not the bot's);
`traced_mib` is the traced Python heap still alive.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import tracemalloc
from collections import Counter
from typing import Any

from bench.procs import rss_mib

FRAMES = 1
"""Frames kept per allocation: one (the line that allocated) keeps tracing cheap."""
TOP = 12
IGNORED = (tracemalloc.__file__, "<frozen importlib._bootstrap>", "<unknown>")


class Heap:
    def __init__(self) -> None:
        self._mark: tracemalloc.Snapshot | None = None
        self._types: Counter[str] | None = None
        """Objects by type at the first reading (untraced: what `types` compares to)."""

    def answer(self, command: str) -> None:
        """Handles one stdin line (`mark`, `read`, `top`); prints its `HEAP` line."""
        if command in ("trace", "mark") and not tracemalloc.is_tracing():
            tracemalloc.start(FRAMES)
        if command == "mark":
            gc.collect()
            self._mark = tracemalloc.take_snapshot()
        if command == "trim":
            gc.collect()
            _malloc_trim()
        if command not in ("trace", "mark", "read", "top", "types", "trim"):
            return
        reading = self.reading()
        if self._types is None:
            self._types = _types()
        if command == "top":
            reading["top"] = self.top()
        if command == "types":
            reading["types"] = self.types()
        print("HEAP " + json.dumps(reading), flush=True)

    @staticmethod
    def reading() -> dict[str, Any]:
        gc.collect()  # what is garbage is not growth
        own = tracemalloc.get_tracemalloc_memory() if tracemalloc.is_tracing() else 0
        traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
        return {
            "rss_mib": rss_mib(os.getpid()) - own / 2**20,
            "traced_mib": traced / 2**20,
            "tracing_mib": own / 2**20,
            "sqlite_mib": _sqlite_used() / 2**20,
        }

    def types(self) -> list[dict[str, Any]]:
        """The object types whose count grew most since the first reading (no tracing
        needed: the collector tracks every container made after start-up's `gc.freeze`)."""
        assert self._types is not None
        grown = _types()
        grown.subtract(self._types)
        return [{"type": t, "objects": n} for t, n in grown.most_common(TOP) if n > 0]

    def top(self) -> list[dict[str, Any]]:
        """The sites whose live allocations grew most since `mark`: file:line, KiB, blocks."""
        if self._mark is None:
            return []
        keep = [tracemalloc.Filter(False, name) for name in IGNORED]
        now = tracemalloc.take_snapshot().filter_traces(keep)
        grown = now.compare_to(self._mark.filter_traces(keep), "lineno")
        return [
            {
                "site": f"{_short(s.traceback[0].filename)}:{s.traceback[0].lineno}",
                "kib": round(s.size_diff / 1024, 1),
                "blocks": s.count_diff,
            }
            for s in grown[:TOP]
            if s.size_diff > 0
        ]


def _malloc_trim() -> None:
    """Has glibc's allocator give the free pages it holds back to the system: what RSS loses
    then was the allocator's, not anything the program still holds."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _sqlite_used() -> int:
    """Bytes SQLite's own allocations hold in this process (its page caches, above all)."""
    try:
        used = ctypes.CDLL("libsqlite3.so.0").sqlite3_memory_used
    except (OSError, AttributeError):
        return 0
    used.restype = ctypes.c_int64
    return int(used())


def _types() -> Counter[str]:
    return Counter(type(o).__qualname__ for o in gc.get_objects())


def _short(filename: str) -> str:
    """A path from its package on (`bot/...`, `discord/...`, `sqlalchemy/...`)."""
    for marker in ("site-packages/", "/lib/python3"):
        if marker in filename:
            tail = filename.split(marker, 1)[1]
            return tail.split("/", 1)[1] if marker.startswith("/lib") else tail
    parts = filename.split("/")
    return "/".join(parts[-2:])
