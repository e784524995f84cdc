"""Platform faults end to end (issue 32, Deliver 3's platform half): the real `quizbot run`
against the local Slack or Discord, which fails on purpose through its fault plan
(bot/testing/faults.py), one fault per test, on each platform where the fault exists; the
burst faults on SQLite and on PostgreSQL.

Each test ends with the same checks once the fault is over (`Channel.after_the_fault`):
every acknowledged click is stored, once, as clicked, and its clicker was told the result;
the channel's "N answered" and the reveal's count per choice equal the answers stored; the
bot posts a new question on command, without a restart. The daily question is posted
exactly once, or reported to the admin as unconfirmed, never twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.testing.faults import FaultPlan, dropped, failed, rate_limited
from tests.reliability.conftest import Database, eventually
from tests.reliability.faulted import VERDICTS, Channel
from tests.reliability.platforms import TRANSPORTS, Paced, Transport

from bot.testing.fake_discord import CALLBACK, EDIT_MESSAGE, POST_MESSAGE  # isort: skip

Open = Callable[[str], Awaitable[Channel]]
SLACK_ROUTES = {"post": "chat.postMessage", "edit": "chat.update"}
DISCORD_ROUTES = {"post": POST_MESSAGE, "edit": EDIT_MESSAGE}


@pytest.fixture
async def opened(tmp_path: Path, decks: Path, bot_database: Database) -> AsyncIterator[Open]:
    """Opens a platform's channel, the bot on `bot_database` (SQLite unless parametrized)."""
    made: list[Transport] = []
    db = bot_database

    async def open_(name: str) -> Channel:
        transport = TRANSPORTS[name](tmp_path, decks)
        await transport.open()
        made.append(transport)
        await transport.start(db)
        return Channel(transport, db)

    yield open_
    for transport in made:
        if transport.bot is not None:
            await transport.bot.stop()
        await transport.close()


def plan(channel: Channel) -> FaultPlan:
    faults: FaultPlan = channel.t.fake.faults  # type: ignore[attr-defined]
    return faults


def route(channel: Channel, what: str) -> str:
    return (DISCORD_ROUTES if channel.discord is not None else SLACK_ROUTES)[what]


def report(name: str, channel: Channel, line: str) -> None:
    served = [f"{r}: {f.name}" for r, f in plan(channel).served]
    print(f"\n{channel.t.name} {name}: faults served {len(served)} ({served[:3]}...); {line}")


@pytest.mark.parametrize("platform", ["slack-http", "discord"])
async def test_the_daily_question_rate_limited_is_posted_once(opened: Open, platform: str) -> None:
    channel = await opened(platform)
    posting = route(channel, "post")
    plan(channel).next(posting, rate_limited(retry_after=1), times=2)

    told = await channel.daily_now()
    await plan(channel).spent()
    assert len(channel.channel_posts()) == 1, told
    assert plan(channel).attempts[posting] == 3
    await channel.take_last_post()
    await channel.burst(30)
    report("daily post 429 x2", channel, await channel.after_the_fault())


@pytest.mark.parametrize("platform", ["slack-http", "discord"])
async def test_a_daily_question_posted_then_answered_500_is_never_posted_twice(
    opened: Open, platform: str
) -> None:
    """Slack has no idempotency key: the post is not sent again, and the admin is told it
    may be in the channel. discord.py sends it again with the same nonce, and Discord
    answers with the message it made."""
    channel = await opened(platform)
    posting = route(channel, "post")
    plan(channel).next(posting, failed(500, after_work=True))

    told = await channel.daily_now()
    assert len(channel.channel_posts()) == 1
    if channel.discord is None:
        assert plan(channel).attempts[posting] == 1
        assert "may have posted it; it was not sent again, so look in the channel" in told
        await channel.t.post()  # the withdrawn question, posted again by hand
    else:
        assert plan(channel).attempts[posting] == 2  # one nonce: one message
        await channel.take_last_post()
    await channel.burst(30)
    report("daily post made then 500", channel, await channel.after_the_fault())


@pytest.mark.parametrize("bot_database", ["sqlite", "postgresql"], indirect=True)
@pytest.mark.parametrize("platform", ["slack-http", "discord"])
async def test_count_redraws_rate_limited_during_a_burst(opened: Open, platform: str) -> None:
    channel = await opened(platform)
    await channel.t.post()
    plan(channel).next(route(channel, "edit"), rate_limited(retry_after=1), times=6)

    await channel.burst(60, per_second=30)
    await plan(channel).spent(90)
    report("chat.update 429 x6 in a burst", channel, await channel.after_the_fault())


@pytest.mark.parametrize("fault", ["429", "503", "dropped"])
async def test_private_replies_refused_by_the_response_url(opened: Open, fault: str) -> None:
    channel = await opened("slack-http")
    fake = channel.slack.fake
    await channel.t.post()
    refusal = {"429": rate_limited(1), "503": failed(503), "dropped": dropped()}[fault]
    plan(channel).next("response_url", refusal, times=10)

    shots = await channel.burst(40)
    await plan(channel).spent()
    await eventually(lambda: all(fake.replies(s.key) for s in shots if s.acked), 60)
    assert all(len(fake.replies(s.key)) == 1 for s in shots), "a reply sent twice"
    report(f"response_url {fault} x10", channel, await channel.after_the_fault())


@pytest.mark.parametrize(
    ("how", "bot_database"),
    [("abort", "sqlite"), ("close", "sqlite"), ("abort", "postgresql")],
    indirect=["bot_database"],
)
async def test_socket_mode_dropped_mid_burst(opened: Open, how: str) -> None:
    """ "abort": the connection is cut (the SDK notices on its next ping); "close": Slack
    closes it. Clicks sent meanwhile wait for the new connection."""
    channel = await opened("slack-socket")
    fake = channel.slack.fake
    await channel.t.post()
    first = channel.new_shots(30, "a")
    sending = asyncio.create_task(Paced(channel.t, first, 30).run())
    await fake.until(lambda: len(fake.socket_received) >= 12, 30)
    connections = fake.socket_connections
    await fake.drop_socket(how)
    await sending
    second = await channel.burst(30, tag="b")

    await channel.all_acknowledged(second, 90)
    assert fake.socket_connections == connections + 1
    report(f"socket mode {how} mid-burst", channel, await channel.after_the_fault())


@pytest.mark.parametrize(
    ("code", "bot_database"),
    [(1006, "sqlite"), (4000, "sqlite"), (1006, "postgresql")],
    indirect=["bot_database"],
)
async def test_the_discord_gateway_closed_mid_burst(opened: Open, code: int) -> None:
    """1006: the connection cut without a close frame; 4000: Discord's "unknown error"
    close. discord.py resumes, and Discord replays what was sent meanwhile."""
    channel = await opened("discord")
    assert channel.discord is not None
    fake = channel.discord.fake
    await channel.t.post()
    first = channel.new_shots(30, "a")
    sending = asyncio.create_task(Paced(channel.t, first, 30).run())
    await fake.until(lambda: sum(bool(r.callbacks) for r in fake.interactions.values()) >= 12)
    await fake.drop("abort" if code == 1006 else "close", code=code)
    await sending
    await channel.burst(30, tag="b")

    await channel.all_acknowledged(channel.shots, 90)
    assert len(fake.resumes) == 1 and len(fake.identifies) == 1
    report(f"gateway {code} mid-burst", channel, await channel.after_the_fault())


@pytest.mark.parametrize("bot_database", ["sqlite", "postgresql"], indirect=True)
async def test_interaction_callbacks_answered_500_during_a_burst(opened: Open) -> None:
    """Ten callbacks Discord did not take, ten it took and then answered 500: every clicker
    is told the result, never "something went wrong", and none gets two first responses."""
    channel = await opened("discord")
    await channel.t.post()
    plan(channel).next(CALLBACK, failed(500), times=10)
    plan(channel).next(CALLBACK, failed(500, after_work=True), times=10)

    shots = await channel.burst(40)
    await plan(channel).spent()
    await channel.all_acknowledged(shots)
    for shot in shots:
        said = channel.verdict(shot)
        assert said is not None and any(v in said for v in VERDICTS), said
        assert len(shot.record.callbacks) == 1
    report("interaction callbacks 500 x20", channel, await channel.after_the_fault())
