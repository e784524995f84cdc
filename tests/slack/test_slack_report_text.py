"""What players type into a problem report reaches admins as the characters they typed, on
every Slack surface (issue 32, finding 11): the daily summary DM and `/quiz report`. The
sections carrying it are `verbatim` (Slack makes no link of an address, no mention of a
name) and the text is escaped, so a masked link and `<!channel>` show as text; the
reporter's own mention stays one.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from bot.domain.actor import Actor
from bot.domain.review import card_key
from bot.presentation.report_messages import digest_messages
from bot.service.deliveries import Deliveries
from bot.service.problem_digest import ProblemDigest
from tests.slack.conftest import TEST_DECK, Slack

SERVER = "slack:T1"
TYPED = (
    "<https://evil.example/login|Verify your account> <!channel> <@U1> "
    "see https://evil.example/x & co"
)
SHOWN = (
    "&lt;https://evil.example/login|Verify your account&gt; &lt;!channel&gt; &lt;@U1&gt; "
    "see https://evil.example/x &amp; co"
)


async def reported(slack: Slack) -> None:
    await slack.app.services.authoring.report_problem(
        Actor(SERVER, "U9"), card_key(TEST_DECK, "sky"), "other", TYPED
    )


def carrying(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """The one text object that shows the report."""
    (found,) = [
        b["text"] for b in blocks if b.get("type") == "section" and "evil" in b["text"]["text"]
    ]
    return dict(found)


def assert_inert(shown: dict[str, Any]) -> None:
    assert shown["type"] == "mrkdwn" and shown.get("verbatim") is True, shown
    assert SHOWN in shown["text"]
    # The only markup left is what the bot wrote: the reporter's mention.
    assert re.findall(r"<[^>]*>", shown["text"]) == ["<@U9>"]


async def test_the_daily_summary_shows_a_typed_link_and_mention_as_text(slack: Slack) -> None:
    await reported(slack)
    assert slack.bot.delivery is not None
    store, services = slack.app.store, slack.app.services
    deliveries = Deliveries({"slack": slack.bot.delivery})
    digest = ProblemDigest(
        services.catalog, services.clock, store, store, store, deliveries, digest_messages
    )
    assert await digest.send(datetime.now(UTC)) == [SERVER]

    dm = slack.fake.api("chat.postMessage")[-1].params
    assert dm["channel"] == "UCONFIGADMIN"
    assert_inert(carrying(dm["blocks"]))
    assert "<https" not in dm["text"] and "<!channel>" not in dm["text"]


async def test_quiz_report_shows_a_typed_link_and_mention_as_text(slack: Slack) -> None:
    await reported(slack)
    sent = await slack.tester.command(f"report {TEST_DECK}", user="UCONFIGADMIN")
    health = await slack.fake.reply(sent.key)

    assert_inert(carrying(health["blocks"]))
    assert "<https" not in health["text"] and "<!channel>" not in health["text"]
