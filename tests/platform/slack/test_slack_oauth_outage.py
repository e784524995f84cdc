"""OAuth distribution while its installation store fails (the database hiccups): Slack gets a
4xx, never a 500 (which it would retry), and the failure is logged once per request."""

from __future__ import annotations

import logging

import aiohttp
import pytest
from sqlalchemy import text

from tests.platform.slack.conftest import TEST_DECK, SlackFactory
from tests.platform.slack.test_slack_oauth import _install


async def test_a_failing_installation_store_is_never_a_500(
    make_slack: SlackFactory, caplog: pytest.LogCaptureFixture
) -> None:
    slack = await make_slack(oauth=True)
    async with aiohttp.ClientSession() as session:
        await _install(slack, session, "TA")
    assert slack.bot.oauth is not None
    async with slack.bot.oauth.engine.begin() as conn:  # the store's tables vanish
        await conn.execute(text("ALTER TABLE slack_bots RENAME TO slack_bots_gone"))
        await conn.execute(text("ALTER TABLE slack_installations RENAME TO installs_gone"))
    caplog.set_level(logging.WARNING, logger="quizbot")
    command = await slack.tester.command(f"post {TEST_DECK} sky", team="TA", user="UTA")
    click = await slack.tester.click("quiz_answer_A", "p:1:0", team="TA", user="UTA")
    event = await slack.tester.event({"type": "app_home_opened", "user": "UTA"}, team="TA")
    statuses = [command.status, click.status, event.status]
    print(f"\nwith the installation store down: {statuses}")
    assert all(400 <= status < 500 for status in statuses), statuses
    assert not slack.fake.api("chat.postMessage")
    refused = [r for r in caplog.records if "could not handle" in r.getMessage()]
    assert len(refused) == 3
