"""The "N answered" count after Slack refused its redraw (issue 32, finding 13): the Web API
client retries a 429 three times (waiting out Retry-After), a 5xx or a dropped connection
twice; a redraw that still failed is tried again, with backoff, until the channel's count
shows the answers stored. Before, it was given up: 0 answered with 301 stored, until the
next click."""

from __future__ import annotations

import pytest

from bot.testing.fake_slack import FakeSlack
from bot.testing.faults import Fault, dropped, failed, rate_limited
from bot.testing.slack_requests import all_text
from tests.platform.slack.conftest import SlackFactory

# More failures than the client's own retries outlast (bot.slack.client.retry_handlers).
OUTAGES = {
    "429": (rate_limited(retry_after=1), 4),
    "503": (failed(503), 3),
    "dropped": (dropped(), 3),
}


def shown_count(fake: FakeSlack, ts: str) -> str | None:
    """The count line the channel shows now on the message `ts` (the last edit Slack took)."""
    taken = [c for c in fake.api("chat.update") if c.params.get("ts") == ts and c.answer]
    if not taken:
        return None
    text = all_text(taken[-1].params["blocks"])
    return next((line for line in text.splitlines() if line.endswith("answered")), None)


@pytest.mark.parametrize("outage", list(OUTAGES))
async def test_a_redraw_slack_refused_is_tried_again_until_the_count_is_right(
    make_slack: SlackFactory, outage: str
) -> None:
    slack = await make_slack(refresh_interval=0.2)
    post_id = await slack.post("basics sum")
    posted = slack.fake.api("chat.postMessage")[-1].answer
    assert posted is not None
    ts = str(posted["ts"])
    fault, times = OUTAGES[outage]
    slack.fake.faults.next("chat.update", fault, times=times)

    clicks = [
        await slack.tester.click("quiz_answer_A", f"p:{post_id}:{n % 3}", user=f"U{n}")
        for n in range(3)
    ]
    assert [c.status for c in clicks] == [200, 200, 200]
    await slack.fake.faults.spent()

    await slack.fake.until(lambda: shown_count(slack.fake, ts) == "3 answered", 30)
    assert await slack.app.store.answer_count(post_id) == 3
    served: list[Fault] = slack.fake.faults.served_on("chat.update")
    assert len(served) == times
