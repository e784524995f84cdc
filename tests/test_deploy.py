"""The deployment files can't run here (no Docker engine); check what can be checked."""

from pathlib import Path

import yaml

from bot.config import load_config

ROOT = Path(__file__).resolve().parent.parent


def test_the_container_config_is_valid_and_uses_the_compose_database() -> None:
    config = load_config(str(ROOT / "deploy" / "config.compose.toml"), env={})
    compose = yaml.safe_load((ROOT / "docker-compose.yaml").read_text(encoding="utf-8"))
    db = compose["services"]["db"]["environment"]
    user, password, name = db["POSTGRES_USER"], db["POSTGRES_PASSWORD"], db["POSTGRES_DB"]
    assert config.database_url == f"postgresql://{user}:{password}@db:5432/{name}"
    assert config.file.slack.port == 3000
    assert "3000:3000" in compose["services"]["bot"]["ports"]


def test_compose_passes_every_secret_from_the_environment() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yaml").read_text(encoding="utf-8"))
    env = compose["services"]["bot"]["environment"]
    expected = {
        "SLACK_BOT_TOKEN",
        "SLACK_SIGNING_SECRET",
        "SLACK_APP_TOKEN",
        "SLACK_CLIENT_ID",
        "SLACK_CLIENT_SECRET",
        "QUIZBOT_TOKEN_KEY",
        "DISCORD_TOKEN",
    }
    assert set(env) == expected
    assert all(value == f"${{{key}:-}}" for key, value in env.items())


def test_the_dockerfile_copies_what_the_package_needs() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for needed in (
        "COPY pyproject.toml README.md",
        "COPY bot ./bot",
        "COPY questions",
        "pip install .",
    ):
        assert needed in text
    assert 'CMD ["quizbot", "run"]' in text
