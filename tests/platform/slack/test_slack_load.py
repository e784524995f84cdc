"""200 people clicking one question at once: every click acked in time, one edit per few seconds."""

from __future__ import annotations

import asyncio
import math
import time

from bot.testing.slack_requests import all_text
from tests.platform.slack.conftest import TEST_DECK, Slack, SlackFactory, eventually

USERS = 200


async def test_200_clicks_at_once(make_slack: SlackFactory) -> None:
    interval = 1.0
    slack: Slack = await make_slack(refresh_interval=interval)
    post_id = await slack.post(f"{TEST_DECK} sum")
    started = time.perf_counter()

    sends = [
        slack.tester.click(f"quiz_answer_{'ABC'[i % 3]}", f"p:{post_id}:{i % 3}", user=f"U{i:04d}")
        for i in range(USERS)
    ]
    sent = await asyncio.gather(*sends)

    assert all(s.status == 200 for s in sent)
    slowest = max(s.elapsed for s in sent)
    assert slowest < 3.0, f"slowest ack took {slowest:.2f}s"
    await slack.fake.until(lambda: len(slack.fake.responses) >= USERS, seconds=30)

    async def all_stored() -> bool:
        return await slack.app.store.answer_count(post_id) == USERS

    await eventually(all_stored, seconds=30)
    clicking = time.perf_counter() - started
    await slack.bot.posts.flush()
    updates = slack.fake.api("chat.update")
    # at most one edit per interval while the clicks came in, and the one after the last
    assert 1 <= len(updates) <= math.ceil(clicking / interval) + 1, (len(updates), clicking)
    assert f"{USERS} answered" in all_text(updates[-1].params["blocks"])
    assert {r.key for r in slack.fake.responses} == {s.key for s in sent}
    times = sorted(s.elapsed for s in sent)
    print(
        f"acks: median {times[USERS // 2]:.3f}s, max {slowest:.3f}s; "
        f"{len(updates)} chat.update in {clicking:.1f}s of clicking"
    )
