"""Config: defaults, resolution order, and errors that name the file and the key."""

from pathlib import Path

import pytest

from bot.config import ConfigError, load_config


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(body, encoding="utf-8")
    return path


ROOT = Path(__file__).resolve().parents[2]


def test_defaults_without_a_file(tmp_path: Path) -> None:
    config = load_config(None, env={}, cwd=tmp_path)
    assert config.source is None
    assert config.database_url == "sqlite:///quizbot.db"
    assert config.deck_folder == tmp_path / "decks"
    assert config.default_deck is None
    assert config.question_paths == []  # no decks/ or questions/ here: only the shipped decks
    assert config.shipped_decks == ROOT / "questions"
    assert not config.slack_enabled
    assert not config.discord_enabled
    (tmp_path / "questions").mkdir()
    assert load_config(None, env={}, cwd=tmp_path).question_paths == [tmp_path / "questions"]


def test_shipped_false_leaves_the_shipped_decks_out(tmp_path: Path) -> None:
    path = write(tmp_path, "[questions]\nshipped = false\n")
    assert load_config(str(path), env={}, cwd=tmp_path).shipped_decks is None


SLACK_SOCKET = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}


@pytest.mark.parametrize(
    ("body", "env", "slack", "discord"),
    [
        ("", SLACK_SOCKET, True, False),
        ("", {"DISCORD_TOKEN": "d"}, False, True),
        ("", {**SLACK_SOCKET, "DISCORD_TOKEN": "d"}, True, True),
        ("", {"SLACK_BOT_TOKEN": "xoxb-1"}, False, False),  # socket mode needs the app token
        ("", {"SLACK_CLIENT_ID": "1.2", "SLACK_APP_TOKEN": "xapp-1"}, True, False),  # OAuth
        (
            "[slack]\nmode = 'http'\n",
            {"SLACK_BOT_TOKEN": "x", "SLACK_SIGNING_SECRET": "s"},
            True,
            False,
        ),
        (
            "[slack]\nenabled = false\n[discord]\nenabled = false\n",
            {**SLACK_SOCKET, "DISCORD_TOKEN": "d"},
            False,
            False,
        ),
        ("[slack]\nenabled = true\n[discord]\nenabled = true\n", {}, True, True),
    ],
)
def test_tokens_enable_their_platform_unless_the_config_says_otherwise(
    tmp_path: Path, body: str, env: dict[str, str], slack: bool, discord: bool
) -> None:
    config = load_config(str(write(tmp_path, body)), env=env, cwd=tmp_path)
    assert (config.slack_enabled, config.discord_enabled) == (slack, discord)


def test_paths_resolve_against_the_config_folder(tmp_path: Path) -> None:
    sub = tmp_path / "etc"
    sub.mkdir()
    path = write(sub, '[questions]\npaths = ["decks", "/abs/decks"]\n')
    config = load_config(str(path), env={}, cwd=tmp_path)
    assert config.deck_folder == sub / "decks"  # the first path: where a team's decks go
    assert config.question_paths == [Path("/abs/decks")]  # the deck folder has none yet
    (sub / "decks").mkdir()
    (sub / "decks" / "ours.yaml").write_text("id: ours\n", encoding="utf-8")
    assert config.question_paths == [sub / "decks", Path("/abs/decks")]
    assert config.base_dir == sub


def test_resolution_order(tmp_path: Path) -> None:
    local = write(tmp_path, "[slack]\nport = 4000\n")
    other = tmp_path / "other.toml"
    other.write_text("[slack]\nport = 5000\n", encoding="utf-8")
    assert load_config(None, env={}, cwd=tmp_path).source == local
    assert (
        load_config(None, env={"QUIZBOT_CONFIG": str(other)}, cwd=tmp_path).file.slack.port == 5000
    )
    chosen = load_config(str(local), env={"QUIZBOT_CONFIG": str(other)}, cwd=tmp_path)
    assert chosen.file.slack.port == 4000


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[slack]\nport = 70000\n", "slack.port: Input should be less than or equal to 65535"),
        ("[slack]\nmode = 'websocket'\n", "slack.mode: Input should be 'socket' or 'http'"),
        ("[slack]\nprot = 3000\n", "slack.prot: unknown key"),
        ("[databse]\nurl = 'x'\n", "databse: unknown key"),
        ("[slack]\ntoken = 'xoxb-1'\n", "slack.token: secrets are read only from the environment"),
        ("[slack\n", "not valid TOML"),
        (
            "[discord]\nshard_count = 0\n",
            "discord.shard_count: Input should be greater than or equal to 1",
        ),
    ],
)
def test_errors_name_the_file_and_key(tmp_path: Path, body: str, message: str) -> None:
    path = write(tmp_path, body)
    with pytest.raises(ConfigError) as err:
        load_config(str(path), env={}, cwd=tmp_path)
    assert str(err.value).startswith(f"{path}: ")
    assert message in str(err.value)


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml: no such config file"):
        load_config(str(tmp_path / "nope.toml"), env={}, cwd=tmp_path)


def test_secrets_come_from_the_environment_and_never_print(tmp_path: Path) -> None:
    config = load_config(
        None, env={"DISCORD_TOKEN": "abc.def", "SLACK_BOT_TOKEN": " "}, cwd=tmp_path
    )
    assert config.secrets.discord_token == "abc.def"
    assert config.secrets.slack_bot_token is None
    assert "abc.def" not in repr(config)


def test_the_example_config_is_valid_and_equals_the_defaults(tmp_path: Path) -> None:
    example = Path(__file__).parents[2] / "config.example.toml"
    config = load_config(str(example), env={}, cwd=tmp_path)
    defaults = load_config(None, env={}, cwd=tmp_path)
    assert config.file == defaults.file


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[discord]\nshard_ids = [0]\n", "shard_ids needs shard_count"),
        ("[discord]\nshard_count = 2\nshard_ids = [0, 2]\n", r"shard_ids \[2\] are not between"),
    ],
)
def test_shard_settings_are_checked(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(str(write(tmp_path, body)), env={}, cwd=tmp_path)


def test_the_deck_folder_counts_once_it_has_a_deck(tmp_path: Path) -> None:
    """Unset paths: decks/ beside the config (missing or empty on a new install is no
    problem), then a questions/ of the team's own."""
    config = load_config(None, env={}, cwd=tmp_path)
    (tmp_path / "decks").mkdir()
    assert config.question_paths == []
    (tmp_path / "decks" / "ours.yml").write_text("id: ours\n", encoding="utf-8")
    (tmp_path / "questions").mkdir()
    assert config.question_paths == [tmp_path / "decks", tmp_path / "questions"]


def test_a_clones_questions_folder_is_the_shipped_decks_not_a_team_folder() -> None:
    clone = load_config(None, env={}, cwd=ROOT)
    assert clone.deck_folder == ROOT / "decks"  # imports land there, not in questions/
    assert ROOT / "questions" not in clone.question_paths
    assert clone.shipped_decks == ROOT / "questions"  # loaded once, as the shipped decks


def test_the_default_deck_is_named_in_one_line_with_its_key(tmp_path: Path) -> None:
    path = write(tmp_path, '[questions]\ndefault = "ours"\n')
    config = load_config(str(path), env={}, cwd=tmp_path)
    assert config.default_deck == "ours"
    config.check_default_deck(["ours", "theirs"])
    with pytest.raises(ConfigError) as refused:
        config.check_default_deck(["theirs", "a-deck"])
    assert str(refused.value) == (
        f"{path}: questions.default: no deck 'ours' is loaded; the decks are: a-deck, theirs"
    )
    bad = write(tmp_path, '[questions]\ndefault = "Our Deck"\n')
    with pytest.raises(ConfigError) as shaped:
        load_config(str(bad), env={}, cwd=tmp_path)
    assert str(shaped.value) == (
        f"{bad}: questions.default: 'Our Deck' is not a deck id (lowercase letters, digits and -)"
    )
