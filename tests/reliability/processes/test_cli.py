"""What a person sees from `quizbot run` and friends when something is missing: one message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def quizbot(
    tmp_path: Path, config: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "config.toml"
    path.write_text(config, encoding="utf-8")
    clean = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args, "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=clean,
    )


def test_run_with_nothing_enabled_says_what_to_set(tmp_path: Path) -> None:
    proc = quizbot(tmp_path, "", "run")
    assert proc.returncode == 2  # the setup must change: a supervisor should not restart
    assert "No platform is enabled" in proc.stderr
    assert "quizbot play" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("[slack]\nenabled = true\n", "SLACK_APP_TOKEN"),
        ("[slack]\nenabled = true\nmode = 'http'\n", "SLACK_SIGNING_SECRET"),
        ("[discord]\nenabled = true\n", "DISCORD_TOKEN"),
    ],
)
def test_missing_secrets_are_named_before_anything_starts(
    tmp_path: Path, config: str, message: str
) -> None:
    proc = quizbot(tmp_path, config, "run")
    assert proc.returncode == 2
    assert proc.stderr.startswith("cannot start: ")
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "quizbot.db").exists()  # checked before the database is touched


def test_a_bad_config_key_is_named(tmp_path: Path) -> None:
    proc = quizbot(tmp_path, "[slack]\nprot = 1\n", "validate")
    assert proc.returncode == 2
    assert "slack.prot: unknown key" in proc.stderr


def test_export_after_a_terminal_game(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[3]
    config = f'[questions]\npaths = ["{root / "questions"}"]\n'
    (tmp_path / "config.toml").write_text(config, encoding="utf-8")
    played = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--user", "mitu", "--config", "config.toml"],
        input="a\n" * 8,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert played.returncode == 0, played.stderr
    proc = quizbot(tmp_path, config, "export", "--server", "local", "--out", "out")
    assert proc.returncode == 0, proc.stderr
    answers = (tmp_path / "out" / "local-answers.csv").read_text(encoding="utf-8").splitlines()
    assert answers[0].startswith("season,answered_at,user_id")
    assert len(answers) == 1 + 8 and all(",mitu," in line for line in answers[1:])
    assert "out/local-answers.csv: 8 rows" in proc.stdout
    missed = sum(1 for line in answers[1:] if line.split(",")[9] == "0")
    reviewed = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--review", "--user", "mitu"],
        input="a\n" * missed,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert reviewed.returncode == 0, reviewed.stderr
    again = quizbot(tmp_path, config, "export", "--server", "local", "--out", "out")
    reviews = (tmp_path / "out" / "local-reviews.csv").read_text(encoding="utf-8").splitlines()
    assert reviews[0] == "answered_at,user_id,deck_id,question_id,number,choice,correct"
    assert len(reviews) == 1 + missed > 1 and all(",mitu," in line for line in reviews[1:])
    assert "out/local-problem-reports.csv: 0 rows" in again.stdout


def test_forget_deletes_a_players_answers(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[3]
    config = f'[questions]\npaths = ["{root / "questions"}"]\n'
    (tmp_path / "config.toml").write_text(config, encoding="utf-8")
    for name in ("mitu", "rafi"):
        played = subprocess.run(
            [sys.executable, "-m", "bot", "play", "--user", name, "--config", "config.toml"],
            input="a\n" * 8,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
        assert played.returncode == 0, played.stderr
    proc = quizbot(tmp_path, config, "forget", "--server", "local", "--user", "mitu")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("forgot mitu in local: 8 answers, and their runs, points")
    exported = quizbot(tmp_path, config, "export", "--server", "local", "--out", "out")
    assert exported.returncode == 0, exported.stderr
    answers = (tmp_path / "out" / "local-answers.csv").read_text(encoding="utf-8").splitlines()
    assert len(answers) == 1 + 8 and all(",rafi," in line for line in answers[1:])


def test_export_of_a_server_with_nothing_stored_says_so_and_writes_no_files(
    tmp_path: Path,
) -> None:
    proc = quizbot(tmp_path, "", "export", "--server", "slack:TNOBODY", "--out", "out")
    assert proc.returncode == 1
    assert "nothing stored for server 'slack:TNOBODY'" in proc.stderr
    assert "no files written" in proc.stderr
    assert list((tmp_path / "out").glob("*.csv")) == []
    assert not (tmp_path / "quizbot.db").exists()  # no empty database made either
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("env", "hint"),
    [
        (
            {"SLACK_BOT_TOKEN": "xoxb-1"},
            "Slack socket mode needs SLACK_APP_TOKEN with SLACK_BOT_TOKEN",
        ),
        ({"DISCORD_TOKEN": "d"}, "has [discord] enabled = false"),
    ],
)
def test_run_says_which_token_or_setting_keeps_a_platform_off(
    tmp_path: Path, env: dict[str, str], hint: str
) -> None:
    config = "[discord]\nenabled = false\n" if "DISCORD_TOKEN" in env else ""
    proc = quizbot(tmp_path, config, "run", env=env)
    assert proc.returncode == 2
    assert "No platform is enabled" in proc.stderr and hint in proc.stderr
