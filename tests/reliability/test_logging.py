"""slack-bolt configures the logger named after the app on every request: the app must not be
named after our own top-level logger, or each request resets its level (and INFO lines, one
per click among them, disappear wherever a level was set on `quizbot`)."""

from __future__ import annotations

import logging

import pytest

from tests.reliability.conftest import LiveFactory


async def test_requests_leave_the_quizbot_logger_alone(
    make_live: LiveFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="quizbot")
    live = await make_live()
    sent = await live.tester.command("help")
    await live.reply(sent.key)
    assert logging.getLogger("quizbot").level == logging.INFO
    logging.getLogger("quizbot.slack").info("still heard")
    assert "still heard" in caplog.messages
