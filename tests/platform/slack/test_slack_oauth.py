"""OAuth distribution: /slack/install, /slack/oauth_redirect, installations in the database."""

from __future__ import annotations

import re

import aiohttp
import pytest

from bot.testing.slack_requests import all_text
from tests.platform.slack.conftest import TEST_DECK, Slack, SlackFactory, eventually


async def _install(slack: Slack, session: aiohttp.ClientSession, team: str) -> None:
    async with session.get(f"{slack.url}/slack/install") as resp:
        assert resp.status == 200
        page = await resp.text()
        cookie = resp.headers["Set-Cookie"].split(";")[0]
    match = re.search(r"state=([0-9a-f-]+)", page)
    assert match, page
    assert "scope=commands,chat:write,chat:write.public,users:read" in page
    code = f"code-{team}"
    slack.fake.oauth_codes[code] = team
    redirect = f"{slack.url}/slack/oauth_redirect?code={code}&state={match[1]}"
    async with session.get(redirect, headers={"Cookie": cookie}) as resp:
        assert resp.status == 200, await resp.text()


async def test_each_installed_workspace_uses_its_own_token_and_board(
    make_slack: SlackFactory,
) -> None:
    slack = await make_slack(oauth=True)
    async with aiohttp.ClientSession() as session:
        await _install(slack, session, "TA")
        await _install(slack, session, "TB")
    access = slack.fake.api("oauth.v2.access")
    assert [c.params["code"] for c in access] == ["code-TA", "code-TB"]

    for team in ("TA", "TB"):
        post_id = await slack.post(f"{TEST_DECK} sky", team=team, channel=f"C{team}")
        message = slack.fake.api("chat.postMessage")[-1]
        assert message.token == f"xoxb-{team}"
        right = await slack.right_shown(post_id)
        sent = await slack.tester.click(
            f"quiz_answer_{'AB'[right]}", f"p:{post_id}:{right}", user=f"U{team}", team=team
        )
        await slack.fake.reply(sent.key)
    await slack.bot.posts.flush()
    assert {c.token for c in slack.fake.api("chat.update")} == {"xoxb-TA", "xoxb-TB"}
    checks = [c.token for c in slack.fake.api("auth.test")]
    assert checks.count("xoxb-TA") == 2  # at install, then once: bolt's authorize cache

    board = await slack.tester.command("leaderboard all", team="TA", user="UTA")
    text = all_text((await slack.fake.reply(board.key))["blocks"])
    assert "1. <@UTA> · 1" in text and "UTB" not in text


async def test_a_workspace_that_never_installed_gets_nothing_stored(
    make_slack: SlackFactory,
) -> None:
    slack = await make_slack(oauth=True)
    sent = await slack.tester.command(f"post {TEST_DECK} sky", team="TNOPE")
    assert sent.status == 200
    assert "reinstall this app" in (await slack.fake.reply(sent.key))["text"]  # bolt's own reply
    assert not slack.fake.api("chat.postMessage")
    assert await slack.app.store.post(1) is None


async def test_a_bad_state_is_refused(make_slack: SlackFactory) -> None:
    slack = await make_slack(oauth=True)
    slack.fake.oauth_codes["code-x"] = "TX"
    async with aiohttp.ClientSession() as session:
        url = f"{slack.url}/slack/oauth_redirect?code=code-x&state=forged"
        async with session.get(url) as resp:
            assert resp.status == 400
    assert not slack.fake.api("oauth.v2.access")


async def test_an_uninstalled_workspace_is_forgotten(make_slack: SlackFactory) -> None:
    slack = await make_slack(oauth=True)
    async with aiohttp.ClientSession() as session:
        await _install(slack, session, "TA")
        await _install(slack, session, "TB")
    assert slack.bot.oauth is not None
    store = slack.bot.oauth.installations
    assert await store.async_find_installation(enterprise_id=None, team_id="TA") is not None

    sent = await slack.tester.event({"type": "app_uninstalled"}, team="TA", event_id="EvU1")
    assert sent.status == 200

    async def forgotten() -> bool:
        return await store.async_find_installation(enterprise_id=None, team_id="TA") is None

    await eventually(forgotten)
    assert await store.async_find_installation(enterprise_id=None, team_id="TB") is not None
    refused = await slack.tester.command(f"post {TEST_DECK} sky", team="TA")
    assert "reinstall this app" in (await slack.fake.reply(refused.key))["text"]
    assert not slack.fake.api("chat.postMessage")


async def test_a_single_workspace_logs_a_revoked_token(
    slack: Slack, caplog: pytest.LogCaptureFixture
) -> None:
    event = {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOT"]}}
    sent = await slack.tester.event(event, event_id="EvR1")
    assert sent.status == 200

    async def logged() -> bool:
        return any("SLACK_BOT_TOKEN no longer works" in r.getMessage() for r in caplog.records)

    await eventually(logged)
    assert not [r for r in caplog.records if "Unhandled request" in r.getMessage()]
