"""A database the bot cannot write to is refused at start, in one line, by `quizbot db
upgrade` (which said "up to date"), `quizbot play` (a 77-line traceback at the first
answer) and `quizbot run` (which started, and failed every click): issue 32, finding 8.

The file is read-only by its mode where that binds, else (root) through SQLite's read-only
open (tests/contract/storage/faults.py says which).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.storage import open_store
from bot.testing.fake_discord import TOKEN  # shaped as a real one: the check comes first
from tests.contract.storage.faults import read_only_url, writable_again


def quizbot(folder: Path, url: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    config = folder / "config.toml"
    config.write_text(f'[database]\nurl = "{url}"\n\n[discord]\nenabled = true\n')
    return subprocess.run(
        [sys.executable, "-m", "bot", *args, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=folder,
        env={"PATH": "/usr/bin:/bin", "HOME": str(folder), **env},
        input="",
    )


@pytest.mark.parametrize(
    "args",
    [("db", "upgrade"), ("play",), ("run",)],
    ids=["db upgrade", "play", "run"],
)
async def test_a_read_only_database_is_refused_in_one_line(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    path = tmp_path / "quizbot.db"
    store = await open_store(f"sqlite:///{path}")  # at head: there is nothing to migrate
    await store.close()
    url = read_only_url(path)
    try:
        proc = quizbot(tmp_path, url, *args, DISCORD_TOKEN=TOKEN)
    finally:
        writable_again(path)
    said = proc.stderr.strip().splitlines()
    print(f"\nquizbot {' '.join(args)} on {url}: exit {proc.returncode}\n{said}")
    assert proc.returncode != 0
    assert "up to date" not in proc.stdout
    assert len(said) == 1, said
    assert said[0].startswith(("cannot start: the database", "cannot upgrade: the database"))
    assert f"{path} cannot be written to (read-only" in said[0]
