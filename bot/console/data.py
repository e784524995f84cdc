"""`quizbot forget` and `quizbot export --server` in the terminal: what they say about the
stored data (`bot.service.operations` does the work)."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from bot.service.operations import Operations


async def forget(ops: Operations, server_id: str, user_id: str, out: TextIO) -> int:
    answers = await ops.forget(server_id, user_id)
    out.write(
        f"forgot {user_id} in {server_id}: {answers} answers, and their runs, points, "
        f"first meetings and settings, deleted\n"
    )
    return 0


async def export(ops: Operations, server_id: str, folder: Path, out: TextIO, err: TextIO) -> int:
    written = await ops.export(server_id, folder)
    if not written:
        err.write(
            f"nothing stored for server {server_id!r}: no answers, reviews or problem reports; "
            "no files written (a Slack server is slack:T..., a Discord one discord:<guild id>, "
            "the terminal's local)\n"
        )
        return 1
    for path, rows in written.items():
        out.write(f"{path}: {rows} rows\n")
    return 0
