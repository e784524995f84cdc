"""The adapter's small pure parts: command parsing, button values, mrkdwn, ids, catalogs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

from bot.slack import actions
from bot.slack.app import COMMAND
from bot.slack.commands import parse
from bot.slack.dedup import SeenEvents
from bot.slack.identity import is_admin_profile, server_id
from bot.slack.mrkdwn import clip, escape, mention, placeholder, user_of, with_mentions
from bot.slack.oauth import SCOPES

LOCALES = Path(__file__).resolve().parents[3] / "bot" / "presentation" / "locales"


@pytest.mark.parametrize(
    ("text", "name", "args"),
    [
        ("", "help", ()),
        ("   ", "help", ()),
        ("post", "post", ()),
        ("POST basics 2", "post", ("basics", "2")),
        ("leaderboard  month   basics", "leaderboard", ("month", "basics")),
        ("stats <@U123|maria>", "stats", ("<@U123|maria>",)),
        ("language bn server", "language", ("bn", "server")),
    ],
)
def test_parse(text: str, name: str, args: tuple[str, ...]) -> None:
    cmd = parse(text)
    assert (cmd.name, cmd.args) == (name, args)


@pytest.mark.parametrize(
    ("text", "admin"),
    [
        ("close", True),
        ("reset", True),
        ("language bn server", True),
        ("schedule show", True),
        ("schedule set 09:00 UTC", True),
        ("language bn", False),
        ("language server", False),
        ("post", False),
        ("leaderboard", False),
    ],
)
def test_which_commands_ask_about_admins(text: str, admin: bool) -> None:
    assert parse(text).needs_admin_check is admin


def test_button_values_round_trip() -> None:
    assert actions.parse_post(actions.post_value(12, 3)) == actions.PostClick(12, 3)
    assert actions.parse_run(actions.run_value(5, "why-model-parallelism", 1)) == (
        actions.RunClick(5, "why-model-parallelism", 1)
    )
    assert actions.parse_locale(actions.locale_value(7, "bn")) == actions.LocaleClick(7, "bn")
    assert actions.parse_reset(actions.reset_value(3)) == 3
    for bad in ("reset", "s:0", "s:3:1", "s:x", 3, None):
        assert actions.parse_reset(bad) is None
    odd = ("p:01:0", "p:0:1", "r:01:q:0", "l:007:bn")  # not an id as the bot writes one
    for value in ("garbage", "p:1", "p:1:2:3", "p:a:1", "p:1:10", 5, None, "r:1:Bad:0", *odd):
        assert actions.parse_post(value) is None
        assert actions.parse_run(value) is None
        assert actions.parse_locale(value) is None
    for letter in "ABCDE":
        action_id = actions.ANSWER.format(letter=letter)
        assert actions.ANSWER_IDS.match(action_id) and len(action_id) <= 255


def test_mrkdwn_escaping_and_mentions() -> None:
    assert escape("<!channel> & <@U1>") == "&lt;!channel&gt; &amp; &lt;@U1&gt;"
    assert mention("U0123ABC") == "<@U0123ABC>"
    assert mention("<!here>") == "&lt;!here&gt;"
    line = f"1. {placeholder('UALICE')} <b> & {placeholder('bad<id>')}"
    assert with_mentions(line) == "1. <@UALICE> &lt;b&gt; &amp; bad&lt;id&gt;"
    assert user_of("<@U123|maria>") == "U123" and user_of("<@W9>") == "W9"
    assert user_of("maria") is None and user_of("<!channel>") is None
    assert clip("abcdef", 4) == "abc…" and clip("abc", 4) == "abc"


def test_server_ids() -> None:
    assert server_id("T1", None, False) == "slack:T1"
    assert server_id("T1", "E1", False) == "slack:T1"
    assert server_id("T1", "E1", True) == "slack:E1"
    assert server_id(None, "E1", None) == "slack:E1"
    assert server_id(None, None, None) is None


def test_admin_profiles() -> None:
    assert is_admin_profile({"is_admin": True})
    assert is_admin_profile({"is_owner": True})
    assert is_admin_profile({"is_primary_owner": True})
    assert is_admin_profile({"enterprise_user": {"is_admin": True}})
    assert not is_admin_profile({"is_admin": False, "is_restricted": True})
    assert not is_admin_profile({"is_admin": "true"})
    assert not is_admin_profile({"is_admin": True}, org_wide=True)  # one workspace's admin
    assert is_admin_profile({"enterprise_user": {"is_owner": True}}, org_wide=True)


def test_seen_events_are_bounded() -> None:
    seen = SeenEvents(ttl=60, size=3)
    assert seen.first_time("a") and not seen.first_time("a")
    for event_id in "bcd":
        assert seen.first_time(event_id)
    assert seen.first_time("a")  # forgotten: only the newest three are kept
    expired = SeenEvents(ttl=-1)
    assert expired.first_time("x") and expired.first_time("x")


def _catalog(name: str) -> dict[str, str]:
    with (LOCALES / name).open("rb") as f:
        data = tomllib.load(f)
    assert list(data) == ["slack"]
    table: dict[str, str] = data["slack"]
    return table


def test_slack_catalogs_have_the_same_keys_and_placeholders() -> None:
    en, bn = _catalog("en.slack.toml"), _catalog("bn.slack.toml")
    assert en.keys() == bn.keys()
    for key in en:
        assert set(re.findall(r"{(\w+)}", en[key])) == set(re.findall(r"{(\w+)}", bn[key])), key
        assert re.search("[\u0980-\u09ff]", bn[key]), f"bn {key} is not in Bengali"


def test_manifest_matches_the_code() -> None:
    manifest = yaml.safe_load((LOCALES.parents[2] / "slack-manifest.yaml").read_text("utf-8"))
    assert tuple(manifest["oauth_config"]["scopes"]["bot"]) == SCOPES
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == [COMMAND]
    assert manifest["features"]["slash_commands"][0]["should_escape"] is True  # <@U1|name>
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
    assert manifest["features"]["app_home"]["messages_tab_enabled"] is True  # the failure DMs
    assert manifest["settings"]["event_subscriptions"]["bot_events"] == [
        "app_home_opened",
        "app_uninstalled",
        "tokens_revoked",
    ]
    assert manifest["settings"]["org_deploy_enabled"] is True  # README: org-wide installs
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["settings"]["socket_mode_enabled"] is True
