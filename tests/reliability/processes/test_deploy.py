"""The deployment files as the README and docs/operations.md describe them. There is no
Docker engine or systemd here, so what each file promises is checked against quizbot itself:
the config it mounts, the folder the database lands in, the tokens that start a platform."""

from __future__ import annotations

import asyncio
import configparser
import fnmatch
import json
import os
import re
import sys
import time
from pathlib import Path

import pytest
import yaml

from bot.config import load_config
from bot.storage.url import database_url

ROOT = Path(__file__).resolve().parents[3]
SECRETS = {
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET",
    "QUIZBOT_TOKEN_KEY",
    "DISCORD_TOKEN",
}


def compose() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((ROOT / "docker-compose.yaml").read_text(encoding="utf-8"))


def env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines, as docker compose and systemd's EnvironmentFile= read them."""
    pairs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            pairs[key.strip()] = value.strip()
    return pairs


def test_the_container_config_is_valid_and_uses_the_compose_database() -> None:
    config = load_config(str(ROOT / "deploy" / "config.compose.toml"), env={})
    db = compose()["services"]["db"]["environment"]
    user, password, name = db["POSTGRES_USER"], db["POSTGRES_PASSWORD"], db["POSTGRES_DB"]
    assert config.database_url == f"postgresql://{user}:{password}@db:5432/{name}"


def test_compose_runs_slack_in_socket_mode_from_the_tokens_in_env_example() -> None:
    """cp .env.example .env, fill in the Slack tokens: Slack starts in Socket Mode, with no
    port published and no signing secret asked for."""
    bot = compose()["services"]["bot"]
    assert "ports" not in bot  # Socket Mode and Discord listen on nothing
    example = env_file(ROOT / ".env.example")
    assert set(example) == SECRETS and all(v == "" for v in example.values())
    filled = {**example, "SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}
    config = load_config(str(ROOT / "deploy" / "config.compose.toml"), env=filled)
    assert config.file.slack.mode == "socket"
    assert config.slack_enabled and not config.discord_enabled
    only_discord = load_config(
        str(ROOT / "deploy" / "config.compose.toml"), env={**example, "DISCORD_TOKEN": "d"}
    )
    assert only_discord.discord_enabled and not only_discord.slack_enabled


def test_compose_passes_every_secret_and_mounts_the_config_it_names() -> None:
    bot = compose()["services"]["bot"]
    env = bot["environment"]
    assert set(env) == SECRETS | {"QUIZBOT_CONFIG"}
    assert all(env[key] == f"${{{key}:-}}" for key in SECRETS)
    assert f"./deploy/config.compose.toml:{env['QUIZBOT_CONFIG']}:ro" in bot["volumes"]
    assert "data:/data" in [v.split("#")[0].strip() for v in bot["volumes"]]
    assert "data" in compose()["volumes"]


def test_the_dockerfile_keeps_the_database_in_the_writable_data_volume() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for needed in (
        "COPY pyproject.toml README.md LICENSE ./",
        "COPY bot ./bot",
        "COPY questions ./questions",
        "pip install -qq .",
        "mkdir -p /data/decks && chown -R quizbot:quizbot /data",
        "VOLUME /data",
        "USER quizbot",
    ):
        assert needed in text
    lines = [line.strip() for line in text.splitlines()]
    workdirs = [line for line in lines if line.startswith("WORKDIR")]
    assert workdirs[-1] == "WORKDIR /data"
    assert lines.index("VOLUME /data") > next(i for i, x in enumerate(lines) if "chown" in x)
    assert 'CMD ["quizbot", "run"]' in text
    # No config file in the image: the defaults put the SQLite file in the working folder.
    config = load_config(None, env={}, cwd=Path("/data"))
    assert database_url(config.database_url, config.base_dir).endswith("/data/quizbot.db")


def test_dockerignore_keeps_local_state_out_and_lets_the_build_in() -> None:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]

    def ignored(path: str) -> bool:
        return any(
            fnmatch.fnmatch(path, p) or fnmatch.fnmatch(path.split("/")[0], p) for p in patterns
        )

    for local in (
        ".venv/bin/python",
        ".git/HEAD",
        "bot/__pycache__/cli.pyc",
        ".env",
        ".mypy_cache/x",
        ".pytest_cache/x",
        "quizbot.db",
        "config.toml",
    ):
        assert ignored(local), local
    for needed in (
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "bot/cli.py",
        "questions/distributed-training.yaml",
    ):
        assert not ignored(needed), needed


def test_the_systemd_unit_writes_only_its_state_directory() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(ROOT / "deploy" / "quizbot.service", encoding="utf-8")
    service = unit["Service"]
    assert service["StateDirectory"].split() == ["quizbot", "quizbot/decks"]
    state = Path("/var/lib/quizbot")
    assert Path(service["WorkingDirectory"]) == state
    assert service["ProtectSystem"] == "strict"  # /etc and /opt are read-only to it
    config_path = Path(service["Environment"].removeprefix("QUIZBOT_CONFIG="))
    assert config_path == Path("/etc/quizbot/config.toml")
    # The config the unit expects there: the database inside the state directory.
    shipped = ROOT / "deploy" / "config.systemd.toml"
    config = load_config(str(shipped), env={})
    sqlite = database_url(config.database_url, config_path.parent)
    assert Path(sqlite.split("///", 1)[1]).parent == state
    assert set(env_file(ROOT / ".env.example")) == SECRETS  # usable as EnvironmentFile=


async def test_a_token_alone_runs_the_bot(tmp_path: Path) -> None:
    """`make run` with only DISCORD_TOKEN set: `quizbot run` starts Discord although the
    config says nothing about enabling it (here the config only points at the fake)."""
    sys.path.insert(0, str(ROOT / "tests" / "discord"))
    from bot.testing.fake_discord import TOKEN, FakeDiscord
    from tests.platform.discord.discord_harness import GUILD_1

    fake = FakeDiscord([GUILD_1])
    await fake.start()
    config = tmp_path / "config.toml"
    config.write_text(
        f'[database]\nurl = "sqlite:///{tmp_path / "q.db"}"\n[ops]\nport = 0\n'
        f"[discord]\napi_url = {json.dumps(fake.api_url)}\n"
        f"gateway_url = {json.dumps(fake.gateway_url)}\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DISCORD_"))}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        "--config",
        str(config),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**env, "DISCORD_TOKEN": TOKEN},
        cwd=tmp_path,
    )
    assert proc.stderr is not None
    seen = ""
    try:
        deadline = time.monotonic() + 120
        while '"event": "ready"' not in seen:
            assert time.monotonic() < deadline, seen
            line = await asyncio.wait_for(proc.stderr.readline(), 120)
            assert line, f"the bot exited:\n{seen}"
            seen += line.decode()
    finally:
        proc.terminate()
        await proc.wait()
        await fake.stop()
    assert "No platform is enabled" not in seen


def test_the_slack_manifest_usage_hint_names_every_subcommand() -> None:
    manifest = yaml.safe_load((ROOT / "slack-manifest.yaml").read_text(encoding="utf-8"))
    (quiz,) = manifest["features"]["slash_commands"]
    hint = quiz["usage_hint"]
    source = (ROOT / "bot" / "slack" / "commands.py").read_text(encoding="utf-8")
    handlers = source[source.index("self._handlers: dict[str, Handler] = {") :]
    names = re.findall(r'"(\w+)":', handlers[: handlers.index("}")])
    assert len(names) >= 10
    shown = [part.split()[0] for part in hint.split(" | ")]
    assert sorted(shown) == sorted(names)
    assert len(hint) <= 1000  # Slack's limit for a usage hint


def test_compose_has_no_read_only_decks_and_names_the_data_folder() -> None:
    bot = compose()["services"]["bot"]
    mounts = [v.split("#")[0].strip() for v in bot["volumes"]]
    assert not any(m.endswith(":ro") and "questions" in m for m in mounts)
    config = load_config(str(ROOT / "deploy" / "config.compose.toml"), env={})
    assert config.deck_folder == Path("/data/decks")  # inside the writable data volume
    assert "mkdir -p /data/decks && chown -R quizbot:quizbot /data" in (
        ROOT / "Dockerfile"
    ).read_text(encoding="utf-8")


async def test_the_compose_healthcheck_asks_healthz_on_the_ops_port() -> None:
    """The healthcheck's own command, run here against quizbot's ops listener: 0 while the
    database answers, not 0 when /healthz says 503."""
    from bot.observability.metrics import Metrics
    from bot.observability.ops import ops_listener

    test = compose()["services"]["bot"]["healthcheck"]["test"]
    assert test[:3] == ["CMD", "python", "-c"]
    ops = load_config(str(ROOT / "deploy" / "config.compose.toml"), env={}).file.ops
    assert f"http://127.0.0.1:{ops.port}/healthz" in test[3] and ops.host == "0.0.0.0"
    state = {"up": True}

    async def healthy() -> None:
        if not state["up"]:
            raise ConnectionError("database down")

    async with ops_listener(healthy, Metrics(), "127.0.0.1", 0) as port:
        script = test[3].replace(f":{ops.port}/", f":{port}/")

        async def check() -> int:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                script,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            return await proc.wait()

        assert await check() == 0
        state["up"] = False
        assert await check() != 0


def compose_command() -> str:
    """The bot's command as the container's shell gets it (compose turns $$ into $)."""
    command = compose()["services"]["bot"]["command"]
    assert command[:2] == ["sh", "-c"]
    return str(command[2]).replace("$$", "$")


def fake_quizbot(folder: Path, body: str) -> dict[str, str]:
    """An environment whose `quizbot` is a script of `body` (sh)."""
    folder.mkdir()
    script = folder / "quizbot"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    return {"PATH": f"{folder}:/usr/bin:/bin"}


def test_an_empty_env_file_stops_the_bot_once_instead_of_a_restart_loop(tmp_path: Path) -> None:
    """`docker compose up -d` with an empty .env: the bot says once what to set, exits 2, and
    the container's command then waits (a stop ends it at once) rather than exiting, which
    `restart: unless-stopped` would answer with a restart every few seconds."""
    import signal
    import subprocess

    assert compose()["services"]["bot"]["restart"] == "unless-stopped"
    config = tmp_path / "config.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "q.db"}"\n', encoding="utf-8")
    env = fake_quizbot(tmp_path / "bin", f'exec {sys.executable} -m bot "$@"')
    env.update({"QUIZBOT_CONFIG": str(config), "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)})
    env.update({name: "" for name in SECRETS})  # the empty .env, as compose passes it
    proc = subprocess.Popen(
        ["sh", "-c", compose_command()],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.stderr is not None
    try:
        said = proc.stderr.readline()  # the bot's reason, then it exits 2
        assert said == "No platform is enabled, so there is nothing to run.\n"
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=3)  # the shell stays, instead of exiting into a restart
        proc.send_signal(signal.SIGTERM)  # `docker compose down`, or `up -d` with a new .env
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 0
    assert "No platform is enabled" not in err  # said once
    assert not (tmp_path / "q.db").exists()


def test_a_crash_is_left_to_the_restart_policy(tmp_path: Path) -> None:
    import subprocess

    env = fake_quizbot(tmp_path / "bin", "exit 1")
    crashed = subprocess.run(["sh", "-c", compose_command()], env=env, timeout=30)
    assert crashed.returncode == 1  # not 2: compose restarts it


def test_systemd_does_not_restart_a_setup_problem() -> None:
    from bot.cli import SETUP

    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(ROOT / "deploy" / "quizbot.service", encoding="utf-8")
    service = unit["Service"]
    assert service["RestartPreventExitStatus"] == str(SETUP)
    assert service["Restart"] == "on-failure"
    config = load_config(str(ROOT / "deploy" / "config.systemd.toml"), env={})
    made = [Path("/var/lib") / d for d in service["StateDirectory"].split()]
    assert config.deck_folder in made  # systemd makes it, owned by the service's user
