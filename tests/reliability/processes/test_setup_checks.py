"""What `quizbot run` says before it touches the network or the database when the setup is
wrong (issue 35): a token of the wrong shape is named in a sentence, a Slack token set without
its partner names the missing one (also under `make run`), Slack that cannot be reached is a
clean sentence; and `quizbot play | head` ends quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import parse_config
from bot.slack.setup import SlackUnreachable, verify_credentials

ROOT = Path(__file__).resolve().parents[3]
DISCORD = "OTAwMDAwMDAwMDAwMDAwMDAx.G7xYzA.a-well-shaped-token-that-goes-nowhere"


def run(tmp_path: Path, env: dict[str, str], config: str = "") -> subprocess.CompletedProcess[str]:
    (tmp_path / "config.toml").write_text(config, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "bot", "run", "--config", "config.toml"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env},
    )


@pytest.mark.parametrize(
    ("env", "said"),
    [
        (
            {"SLACK_BOT_TOKEN": "xapp-1-A1-2-abc", "SLACK_APP_TOKEN": "xoxb-1-2-abc"},
            "SLACK_BOT_TOKEN and SLACK_APP_TOKEN are swapped: SLACK_BOT_TOKEN holds the "
            "app-level token (xapp-...) and SLACK_APP_TOKEN the bot token (xoxb-...); "
            "exchange them",
        ),
        (
            {"SLACK_BOT_TOKEN": "xoxp-1-2-abc", "SLACK_APP_TOKEN": "xapp-1-A1-2-abc"},
            "SLACK_BOT_TOKEN holds a user token (xoxp-...): it takes a bot token (xoxb-...)",
        ),
        (
            {"SLACK_BOT_TOKEN": "xoxb-1-2-abc", "SLACK_APP_TOKEN": "secret"},
            "SLACK_APP_TOKEN does not look like an app-level token (xapp-...)",
        ),
        (
            {"DISCORD_TOKEN": "bad"},
            "DISCORD_TOKEN does not look like a Discord bot token (three parts separated by "
            "dots, the first the bot's id; not the client secret or the public key)",
        ),
        (
            {"DISCORD_TOKEN": f"Bot {DISCORD}"},
            'DISCORD_TOKEN starts with "Bot ": set the token alone, without it',
        ),
    ],
)
def test_a_token_of_the_wrong_shape_is_named_before_the_network(
    tmp_path: Path, env: dict[str, str], said: str
) -> None:
    # Endpoints nobody answers on: had the check let them through, the start would hang or
    # say "cannot reach" instead.
    config = '[slack]\napi_url = "http://127.0.0.1:9/api/"\n[discord]\napi_url = "http://127.0.0.1:9/api"\n'
    refused = run(tmp_path, env, config)
    assert refused.returncode == 2
    assert refused.stderr.startswith("cannot start: " + said), refused.stderr
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert not (tmp_path / "quizbot.db").exists()


def test_a_slack_app_token_alone_names_the_missing_bot_token(tmp_path: Path) -> None:
    refused = run(tmp_path, {"SLACK_APP_TOKEN": "xapp-1-A1-2-abc"})
    assert refused.returncode == 2
    assert "SLACK_APP_TOKEN is set, but Slack also needs SLACK_BOT_TOKEN" in refused.stderr


def test_make_run_with_a_slack_app_token_alone_runs_the_bot_not_the_quiz(tmp_path: Path) -> None:
    """The Makefile's test for "a platform secret is set" counts SLACK_APP_TOKEN too, so the
    missing bot token is named instead of the terminal quiz starting silently."""
    planned = subprocess.run(
        ["make", "-n", "run"], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    if planned.returncode != 0 or "pip install" in planned.stdout or not (ROOT / ".venv").exists():
        pytest.skip("make run would install into .venv first (run make run or make test once)")
    config = tmp_path / "config.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "q.db"}"\n', encoding="utf-8")
    made = subprocess.run(
        ["make", "-s", "run"],
        input="q\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "QUIZBOT_CONFIG": str(config),
            "SLACK_APP_TOKEN": "xapp-1-A1-2-abc",
        },
    )
    assert made.returncode != 0
    assert "Slack also needs SLACK_BOT_TOKEN" in made.stderr
    assert "Your answer" not in made.stdout


async def test_slack_that_cannot_be_reached_is_a_sentence_not_a_repr(tmp_path: Path) -> None:
    from slack_sdk.web.async_client import AsyncWebClient

    config = parse_config(
        '[slack]\napi_url = "http://127.0.0.1:9/api/"\n',
        "config.toml",
        tmp_path,
        {"SLACK_BOT_TOKEN": "xoxb-1-2-abc", "SLACK_APP_TOKEN": "xapp-1-A1-2-abc"},
    )
    client = AsyncWebClient(base_url=config.file.slack.api_url, timeout=5)
    with pytest.raises(SlackUnreachable) as raised:
        await verify_credentials(client, config, oauth=False)
    said = str(raised.value)
    assert said.startswith("cannot reach the Slack Web API at http://127.0.0.1:9/api/ (")
    assert said.endswith("; check the network, a proxy or firewall, or [slack] api_url")
    assert "ConnectionKey" not in said and "Error(" not in said and "=None" not in said


def test_play_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`quizbot play | head`: once the reader is gone, every write fails with EPIPE. Here the
    reader is gone from the start, so that is certain, not a race with `head`."""
    read, write = os.pipe()
    os.close(read)
    try:
        piped = subprocess.run(
            [sys.executable, "-m", "bot", "play", "--user", "pipe"],
            input="a\n" * 20,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"},
        )
    finally:
        os.close(write)
    assert piped.stderr == ""  # no "cannot start: [Errno 32] Broken pipe", no traceback
    assert piped.returncode == 1
