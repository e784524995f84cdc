"""A team's own decks (issue 35): the "Add your team's deck" page's commands run as written for
a clone and for pip, taken from the page itself (so the test breaks when the page drifts); the
deck folder a reload reads again; and `[questions] default`."""

from __future__ import annotations

import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bot.bootstrap import build_app
from bot.config import load_config
from tests.test_play import environ

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "team-decks.md"


def commands(section: str) -> list[str]:
    """The ```sh blocks of the page's section `section` (a `## ` heading), as written."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else None]
    return re.findall(r"```sh\n(.*?)```", body, flags=re.DOTALL)


def launcher(bin_dir: Path) -> None:
    """`quizbot` in `bin_dir`, running this checkout with this interpreter (what `make run`
    and `pip install` put there: the package's console script)."""
    bin_dir.mkdir(parents=True)
    script = bin_dir / "quizbot"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m bot "$@"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def run(script: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**environ(), "HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("QUIZBOT_CONFIG", None)
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        input="a\nb\nq\n",  # the quiz: two answers, then stop
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def test_the_clone_commands_add_a_deck_that_validates_and_plays(tmp_path: Path) -> None:
    (block,) = commands("In a clone")
    clone = tmp_path / "quizbot"
    clone.mkdir()
    (clone / "questions").symlink_to(ROOT / "questions")  # the clone's shipped decks
    launcher(clone / ".venv" / "bin")
    done = run(block, clone, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 deck, 2 questions in 1 file: all valid" in done.stdout  # as the page says
    assert "Our cluster" in done.stdout and "1 of 2" in done.stdout
    assert done.stderr == ""
    assert sorted(p.name for p in (clone / "decks").iterdir()) == ["our-team.yaml"]
    assert not (ROOT / "questions" / "our-team.yaml").exists()  # the shipped decks untouched
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "decks/our-team.yaml"], cwd=ROOT, check=False
    )
    assert ignored.returncode == 0  # "git status does not list decks/"


def test_the_pip_commands_add_a_deck_beside_the_bots_database(tmp_path: Path) -> None:
    (block,) = commands("With pip")
    install, *rest = block.splitlines()
    assert "pip install" in install  # installs from PyPI; here the launcher stands in for it
    launcher(tmp_path / ".quizbot" / "bin")
    done = run("\n".join(rest), tmp_path, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "all valid" in done.stdout and "Our cluster" in done.stdout
    quiz = tmp_path / "quiz"
    assert sorted(p.name for p in quiz.iterdir()) == ["decks", "quizbot.db"]


def test_every_install_style_names_the_folder_its_files_configure() -> None:
    page = PAGE.read_text(encoding="utf-8")
    compose = load_config(str(ROOT / "deploy" / "config.compose.toml"), env={})
    systemd = load_config(str(ROOT / "deploy" / "config.systemd.toml"), env={})
    assert compose.deck_folder == Path("/data/decks") and "`/data/decks`" in page
    assert systemd.deck_folder == Path("/var/lib/quizbot/decks")
    assert "`/var/lib/quizbot/decks`" in page
    docker = load_config(None, env={}, cwd=Path("/data"))  # the image: no config, WORKDIR /data
    assert docker.deck_folder == Path("/data/decks")


DECK = """id: {name}
title: "Deck {name}"
locales: [en]
questions:
  - id: one
    text: "Which port does the ops listener use by default?"
    choices: ["9100", "3000", "5432"]
    answer: 0
    explanation: "[ops] port is 9100 unless the config says otherwise."
"""


async def test_a_reload_picks_up_a_deck_folder_made_after_the_start(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[database]\nurl = "sqlite:///q.db"\n', encoding="utf-8")
    app = await build_app(load_config(str(tmp_path / "config.toml"), env={}))
    try:
        shipped = app.services.catalog.decks.ids()
        assert "ours" not in shipped
        (tmp_path / "decks").mkdir()  # what `quizbot import` makes, or a person
        (tmp_path / "decks" / "ours.yaml").write_text(DECK.format(name="ours"), "utf-8")
        report = app.services.catalog.reload()
        assert report.ok and app.services.catalog.decks.ids() == sorted([*shipped, "ours"])
    finally:
        await app.close()


def quizbot(folder: Path, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input="q\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=folder,
        env={**environ(LANG="C.UTF-8"), **(env or {})},
    )


def test_play_without_a_deck_plays_the_configured_default(tmp_path: Path) -> None:
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "zz-ours.yaml").write_text(DECK.format(name="zz-ours"), "utf-8")
    (tmp_path / "config.toml").write_text('[questions]\ndefault = "zz-ours"\n', "utf-8")
    played = quizbot(tmp_path, "play")
    assert played.returncode == 0, played.stderr
    assert "Deck zz-ours" in played.stdout  # not the first by id
    unset = tmp_path / "other"
    unset.mkdir()
    assert "Deck zz-ours" not in quizbot(unset, "play").stdout


@pytest.mark.parametrize("command", [("play",), ("run",)])
def test_a_default_that_names_no_deck_stops_with_one_line(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[questions]\ndefault = "our-tema"\n[discord]\napi_url = "http://127.0.0.1:9/api"\n',
        "utf-8",
    )
    token = "OTAwMDAwMDAwMDAwMDAwMDAx.G7xYzA.a-well-shaped-token-that-goes-nowhere"
    refused = quizbot(tmp_path, *command, env={"DISCORD_TOKEN": token})
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        f"config error: {config}: questions.default: no deck 'our-tema' is loaded; the decks are: "
    )
    assert refused.stderr.count("\n") == 1 and refused.stdout == ""
    assert not (tmp_path / "quizbot.db").exists()  # said before the database is touched


def test_import_writes_into_the_deck_folder_not_the_shipped_decks(tmp_path: Path) -> None:
    clone = tmp_path / "quizbot"
    clone.mkdir()
    (clone / "questions").symlink_to(ROOT / "questions")
    (clone / "decks").mkdir()
    sample = ROOT / "tests" / "formats" / "fixtures" / "moodle" / "aiken" / "questions.aiken.txt"
    stray = ROOT / "questions" / "ours.yaml"
    try:
        imported = quizbot(clone, "import", str(sample), "--id", "ours")
        assert imported.returncode == 0, imported.stderr
        assert (clone / "decks" / "ours.yaml").is_file()
        assert not stray.exists()
    finally:
        stray.unlink(missing_ok=True)  # a regression must not leave a deck in the repository
