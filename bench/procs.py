"""The app under test runs in a process of its own, so the load generator's work (and the
fake platform's) never sits on the app's event loop; the bare baseline runs the same way."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.report import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def database_url(folder: Path) -> str:
    """A bench child's database: `QUIZBOT_BENCH_DATABASE_URL` (the soak's PostgreSQL), else
    a SQLite file in FOLDER."""
    return os.environ.get("QUIZBOT_BENCH_DATABASE_URL") or f"sqlite:///{folder / 'quiz.db'}"


def rss_mib(pid: int) -> float:
    """Resident set size of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


@dataclass
class Child:
    process: asyncio.subprocess.Process
    ready: str
    """The child's READY line, after the word READY."""

    @property
    def pid(self) -> int:
        return self.process.pid

    async def line(self, seconds: float = 60.0) -> str:
        assert self.process.stdout is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), seconds)
        return raw.decode().strip()

    async def say(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode() + b"\n")
        await self.process.stdin.drain()


@asynccontextmanager
async def child(
    module: str,
    *args: str,
    seconds: float = 90.0,
    log: Path | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[Child]:
    """Runs `python -m module args...` until it prints `READY ...`; stops it by closing its
    stdin (it shuts down cleanly), killing it if it does not. `log`: a file for its stderr
    (where the bot writes its log lines, as `quizbot run` does); `env`: added to ours."""
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    errors = log.open("wb") if log is not None else None
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        module,
        *args,
        cwd=str(ROOT),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=errors,
        env=env,
    )
    if errors is not None:
        errors.close()  # the child has its own descriptor
    try:
        assert process.stdout is not None
        while True:
            raw = await asyncio.wait_for(process.stdout.readline(), seconds)
            if not raw:
                raise RuntimeError(f"{module} {' '.join(args)} exited before it was ready")
            line = raw.decode().strip()
            if line.startswith("READY"):
                break
        yield Child(process, line.removeprefix("READY").strip())
    finally:
        if process.returncode is None:
            try:
                assert process.stdin is not None
                process.stdin.close()
                await asyncio.wait_for(process.wait(), 15)
            except (TimeoutError, BrokenPipeError, ConnectionResetError):
                process.kill()
                await process.wait()


async def stdin_closed(other: Callable[[str], None] | None = None) -> None:
    """In a child: returns when the parent closes our stdin (or sends `stop`); any other
    line goes to `other` (the soak's heap readings, `bench.heap`)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line or line.strip() == b"stop":
            return
        if other is not None:
            other(line.decode().strip())
