"""The config file (TOML) and the environment, validated once at start.

An error names the file and the key ("config.toml: slack.port: ..."), and nothing starts.
Secrets never live in the file: tokens come only from the environment.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

SECRET_KEYS = (
    "token",
    "secret",
    "signing_secret",
    "app_token",
    "bot_token",
    "client_secret",
    "token_key",
)


class ConfigError(Exception):
    """A config problem a person can fix; the message says where."""


class SetupError(Exception):
    """A platform cannot start as configured (a missing or refused secret, no network):
    the message says what to set or check."""


class Unreachable(SetupError):
    """A platform cannot be reached (no network, DNS, a proxy): unlike the other setup errors,
    trying again later may succeed, so a supervisor may restart."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DatabaseConfig(_Section):
    url: str = "sqlite:///quizbot.db"


DECK_FOLDER = "decks"
"""The team's own decks, beside the config file (or in the working folder without one), when
`[questions] paths` is unset: outside a clone's tracked `questions/`, where `quizbot import`
writes."""


class QuestionsConfig(_Section):
    paths: list[str] | None = None
    """Deck folders or files besides the shipped decks, the first being where a team's new
    decks go; unset: `decks/` beside the config file (or the working folder without one), and
    `questions/` there when it exists."""
    shipped: bool = True
    """Load the decks that come with quizbot (the package's `bot/questions`)."""
    default: str | None = None
    """The deck a command that names none uses (`quizbot play`; in chat, a server without its
    own default); unset: the first deck by id."""

    @field_validator("default")
    @classmethod
    def _deck_id(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"[a-z0-9-]+", v):
            raise ValueError(f"{v!r} is not a deck id (lowercase letters, digits and -)")
        return v


class SlackConfig(_Section):
    enabled: bool | None = None
    """Unset: on when the environment has SLACK_BOT_TOKEN and SLACK_APP_TOKEN (socket mode)."""
    mode: Literal["socket", "http"] = "socket"
    host: str = "0.0.0.0"
    port: int = Field(default=3000, ge=1, le=65535)
    api_url: str = "https://slack.com/api/"
    admins: list[str] = Field(default_factory=list)
    """User ids treated as admins in every workspace, besides workspace admins and owners."""
    shared_seen: bool = False
    """Keep handled event ids and request signatures in the database, not in memory: for
    several processes behind one URL (a retry or replay may reach another process)."""

    @field_validator("api_url")
    @classmethod
    def _slash(cls, v: str) -> str:
        if not v.startswith(("http://", "https://")):
            raise ValueError("must be an http(s) URL")
        return v if v.endswith("/") else v + "/"


class DiscordConfig(_Section):
    enabled: bool | None = None
    """Unset: on when the environment has DISCORD_TOKEN."""
    shard_count: int | None = Field(default=None, ge=1)
    shard_ids: list[int] | None = None
    api_url: str | None = None
    """Discord REST base URL override (only for tests against a local server)."""
    gateway_url: str | None = None

    @model_validator(mode="after")
    def _shards(self) -> DiscordConfig:
        if self.shard_ids is not None:
            if self.shard_count is None:
                raise ValueError("shard_ids needs shard_count (the total number of shards)")
            bad = [i for i in self.shard_ids if not 0 <= i < self.shard_count]
            if bad:
                raise ValueError(f"shard_ids {bad} are not between 0 and shard_count - 1")
        return self


class ScheduleConfig(_Section):
    catch_up_hours: float = Field(default=6.0, ge=0, le=48)
    close_after_hours: float | None = Field(default=None, gt=0, le=24 * 7)


class OpsConfig(_Section):
    """The operations listener: /healthz and /metrics, apart from any public port."""

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = Field(default=9100, ge=0, le=65535)
    """0: any free port (tests)."""


class SuggestionsConfig(_Section):
    """Questions the team writes (`/quiz suggest`)."""

    approvers: list[str] = Field(default_factory=list)
    """Who may approve, edit and reject suggestions besides the server's admins: Slack user
    ids, Discord user ids, or Discord role ids."""


class ConfigFile(_Section):
    database: DatabaseConfig = Field(default_factory=DatabaseConfig)
    questions: QuestionsConfig = Field(default_factory=QuestionsConfig)
    slack: SlackConfig = Field(default_factory=SlackConfig)
    discord: DiscordConfig = Field(default_factory=DiscordConfig)
    schedule: ScheduleConfig = Field(default_factory=ScheduleConfig)
    ops: OpsConfig = Field(default_factory=OpsConfig)
    suggestions: SuggestionsConfig = Field(default_factory=SuggestionsConfig)


@dataclass(frozen=True)
class Secrets:
    slack_bot_token: str | None = None
    slack_signing_secret: str | None = None
    slack_app_token: str | None = None
    slack_client_id: str | None = None
    slack_client_secret: str | None = None
    discord_token: str | None = None
    token_key: str | None = None
    """QUIZBOT_TOKEN_KEY: Fernet keys, newest first, sealing Slack OAuth tokens at rest."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Secrets:
        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        return cls(
            slack_bot_token=get("SLACK_BOT_TOKEN"),
            slack_signing_secret=get("SLACK_SIGNING_SECRET"),
            slack_app_token=get("SLACK_APP_TOKEN"),
            slack_client_id=get("SLACK_CLIENT_ID"),
            slack_client_secret=get("SLACK_CLIENT_SECRET"),
            discord_token=get("DISCORD_TOKEN"),
            token_key=get("QUIZBOT_TOKEN_KEY"),
        )

    def __repr__(self) -> str:
        return "Secrets(<hidden>)"


@dataclass(frozen=True)
class Config:
    file: ConfigFile
    base_dir: Path
    """The config file's folder: relative paths in it resolve here."""
    source: Path | None
    secrets: Secrets = field(default_factory=Secrets)

    @property
    def deck_folder(self) -> Path:
        """Where the team's own decks live and `quizbot import` writes: the first of
        `[questions] paths`, else `decks/` beside the config file. A data folder, outside a
        clone's tracked files (the container's /data/decks, systemd's /var/lib/quizbot/decks)."""
        configured = self.file.questions.paths
        return self.base_dir / (configured[0] if configured else DECK_FOLDER)

    @property
    def question_paths(self) -> list[Path]:
        """The deck paths to load. The deck folder may be missing or empty (a new install has
        no decks of its own yet), so it is left out then; any other path listed that does not
        exist is a problem `quizbot validate` reports. Unset, `questions/` beside the config
        counts too when it exists (a clone's is the shipped decks, loaded once)."""
        configured = self.file.questions.paths
        if configured is None:
            legacy, shipped = self.base_dir / "questions", shipped_decks_dir()
            mine = legacy.is_dir() and (shipped is None or legacy.resolve() != shipped.resolve())
            others = [legacy] if mine else []
        else:
            others = [self.base_dir / p for p in configured[1:]]
        folder = self.deck_folder
        has_decks = folder.is_file() or (
            folder.is_dir() and any(p.suffix.lower() in (".yaml", ".yml") for p in folder.iterdir())
        )
        return [folder, *others] if has_decks else others

    @property
    def default_deck(self) -> str | None:
        """`[questions] default`: the deck used when a command names none."""
        return self.file.questions.default

    def check_default_deck(self, deck_ids: Collection[str]) -> None:
        """ConfigError naming the key when `[questions] default` is not a loaded deck."""
        chosen = self.default_deck
        if chosen is not None and chosen not in deck_ids:
            name = self.source or "config"
            raise ConfigError(
                f"{name}: questions.default: no deck {chosen!r} is loaded; "
                f"the decks are: {', '.join(sorted(deck_ids)) or 'none'}"
            )

    @property
    def shipped_decks(self) -> Path | None:
        """The decks installed with quizbot, unless `[questions] shipped = false`."""
        return shipped_decks_dir() if self.file.questions.shipped else None

    @property
    def slack_enabled(self) -> bool:
        """As configured; unset, Slack runs when the environment has what its mode needs: a
        bot token (or an OAuth client) with SLACK_APP_TOKEN (socket, the default) or with
        SLACK_SIGNING_SECRET (http). Tokens alone start it, no config file needed."""
        enabled = self.file.slack.enabled
        if enabled is not None:
            return enabled
        s = self.secrets
        if self.file.slack.mode == "socket":
            return bool((s.slack_bot_token or s.slack_client_id) and s.slack_app_token)
        return bool((s.slack_bot_token or s.slack_client_id) and s.slack_signing_secret)

    @property
    def discord_enabled(self) -> bool:
        """As configured; unset, Discord runs when DISCORD_TOKEN is in the environment."""
        enabled = self.file.discord.enabled
        return enabled if enabled is not None else self.secrets.discord_token is not None

    @property
    def database_url(self) -> str:
        return self.file.database.url


def shipped_decks_dir() -> Path | None:
    """Where the shipped decks are. An installed package has them as `bot/questions` (pyproject
    maps the repository's `questions/` there); an editable install or a source tree runs
    `bot/` from the checkout, whose `questions/` is beside it."""
    package = Path(__file__).resolve().parent
    for folder in (package / "questions", package.parent / "questions"):
        if folder.is_dir():
            return folder
    return None


def _where(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


def _check_no_secrets(data: Mapping[str, object], name: str, prefix: str = "") -> None:
    for key, value in data.items():
        if isinstance(value, Mapping):
            _check_no_secrets(value, name, f"{prefix}{key}.")
        elif key.lower() in SECRET_KEYS:
            raise ConfigError(
                f"{name}: {prefix}{key}: secrets are read only from the environment "
                "(SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_APP_TOKEN, DISCORD_TOKEN); "
                "remove it from the file"
            )


def parse_config(text: str, name: str, base_dir: Path, env: Mapping[str, str]) -> Config:
    """Parses config text; `name` is used in messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{name}: not valid TOML: {e}") from None
    _check_no_secrets(data, name)
    try:
        parsed = ConfigFile.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        msg = first["msg"]
        if first["type"] == "extra_forbidden":
            msg = "unknown key"
        msg = msg.removeprefix("Value error, ")
        raise ConfigError(f"{name}: {_where(first['loc'])}: {msg}") from None
    return Config(parsed, base_dir, None, Secrets.from_env(env))


def find_config(cli_path: str | None, env: Mapping[str, str], cwd: Path) -> Path | None:
    """--config PATH, else $QUIZBOT_CONFIG, else ./config.toml, else None (built-in defaults)."""
    if cli_path:
        return Path(cli_path)
    if env.get("QUIZBOT_CONFIG"):
        return Path(env["QUIZBOT_CONFIG"])
    local = cwd / "config.toml"
    return local if local.is_file() else None


def load_config(
    cli_path: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Config:
    env = os.environ if env is None else env
    cwd = cwd or Path.cwd()
    path = find_config(cli_path, env, cwd)
    if path is None:
        return Config(ConfigFile(), cwd, None, Secrets.from_env(env))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read: {e}") from None
    config = parse_config(text, str(path), path.resolve().parent, env)
    return Config(config.file, config.base_dir, path, config.secrets)
