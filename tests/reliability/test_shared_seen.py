"""Several processes behind one URL (`[slack] shared_seen`): a retried event or a replayed
request that reaches another process is not handled again there. Two bots, each with its own
store on one SQLite file, as two processes would have."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from slack_sdk.signature import SignatureVerifier

from bot.storage import open_store
from bot.testing.slack_requests import VERIFICATION_TOKEN
from tests.reliability.conftest import SECRET, LiveFactory, settle


def _home_opened(event_id: str) -> str:
    return json.dumps(
        {
            "token": VERIFICATION_TOKEN,
            "team_id": "T1",
            "api_app_id": "A1",
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "event": {"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"},
        }
    )


@pytest.mark.parametrize("shared", [True, False])
async def test_a_retry_or_replay_at_another_process_is_not_handled_twice(
    make_live: LiveFactory, tmp_path: Path, shared: bool
) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    extra = f"shared_seen = {json.dumps(shared)}"
    one = await make_live(store=await open_store(url), slack_extra=extra)
    two = await make_live(store=await open_store(url), slack_extra=extra)

    before = set(asyncio.all_tasks())
    # The same signed request, byte for byte, at both processes.
    body, stamp = _home_opened("Ev1"), str(int(time.time()))
    signature = SignatureVerifier(SECRET).generate_signature(timestamp=stamp, body=body)
    for live in (one, two):
        sent = await live.tester.send(
            body, "application/json", timestamp=stamp, signature=signature
        )
        assert sent.status == 200
    # Slack's retry of another event (a new signature, the same event id) at the other one.
    assert (
        await one.tester.event(
            {"type": "app_home_opened", "user": "U2", "channel": "D2", "tab": "home"},
            event_id="Ev2",
        )
    ).status == 200
    assert (
        await two.tester.event(
            {"type": "app_home_opened", "user": "U2", "channel": "D2", "tab": "home"},
            event_id="Ev2",
            retry=1,
        )
    ).status == 200

    await settle(before)  # every handler either process started has finished
    published = len(one.fake.api("views.publish")) + len(two.fake.api("views.publish"))
    print(f"\nshared_seen={shared}: views.publish calls across both processes: {published}")
    assert published == (2 if shared else 4)
