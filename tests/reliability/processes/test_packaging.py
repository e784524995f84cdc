"""The package as `pip install .` makes it: the shipped decks inside, the SPDX license, no
build warnings, and `quizbot play` working from an empty folder."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from setuptools import find_namespace_packages

ROOT = Path(__file__).resolve().parents[3]


def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_bot_package_is_listed() -> None:
    """pyproject lists the packages (one lives outside bot/): a new one must be added there."""
    listed = set(pyproject()["tool"]["setuptools"]["packages"])  # type: ignore[index]
    found = set(find_namespace_packages(where=str(ROOT), include=["bot*"]))
    found = {p for p in found if not p.endswith("__pycache__")}
    assert found - listed == set()
    assert "bot.questions" in listed


def test_the_license_is_spdx_and_there_is_a_license_file() -> None:
    project = pyproject()["project"]
    assert project["license"] == "MIT"  # type: ignore[index]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "quizbot contributors" in text


def test_the_wheel_carries_the_decks_and_plays_from_an_empty_folder(tmp_path: Path) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    assert "Deprecat" not in built.stdout + built.stderr  # e.g. a TOML-table license
    (wheel,) = (tmp_path / "dist").glob("quizbot-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    shipped = sorted(p.name for p in (ROOT / "questions").glob("*.yaml"))
    assert sorted(n.split("/")[-1] for n in names if n.startswith("bot/questions/")) == shipped
    assert "License-Expression: MIT" in metadata
    assert any(n.endswith("licenses/LICENSE") for n in names)

    site = tmp_path / "site"
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-qq",
            "--no-deps",
            "--no-index",
            "--target",
            str(site),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "LANG": "en_US.UTF-8"}
    env.pop("QUIZBOT_CONFIG", None)
    where = subprocess.run(
        [sys.executable, "-c", "from bot.config import shipped_decks_dir as d; print(d())"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=empty,
        env=env,
    )
    assert where.stdout.strip() == str(site / "bot" / "questions")  # the wheel's, not ours
    played = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "play",
            "--deck",
            "model-pipeline-parallelism",
            "--user",
            "newcomer",
        ],
        input="a\nq\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=empty,
        env=env,
    )
    assert played.returncode == 0, played.stderr
    assert played.stderr == ""
    assert "Model and Pipeline Parallelism Quiz" in played.stdout
    assert "1 of 8" in played.stdout
    assert sorted(p.name for p in empty.iterdir()) == ["quizbot.db"]
