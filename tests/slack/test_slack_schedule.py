"""The daily question on Slack: `/quiz schedule ...` through the protocol test server, then the
app's one Scheduler ticking on an injected ManualClock and posting through SlackDelivery."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import pytest

from bot.domain.clock import ManualClock
from bot.slack.delivery import refusal
from tests.slack.conftest import TEST_DECK, Slack, SlackFactory, eventually
from tests.slack.fake_slack import BOT_TOKEN, Call
from tests.slack.harness import all_text, buttons
from tests.slack.test_slack_oauth import _install

START = datetime(2026, 3, 2, 2, 0, tzinfo=UTC)  # Monday 08:00 in Dhaka
NINE = datetime(2026, 3, 2, 3, 0, tzinfo=UTC)  # 09:00 in Dhaka
ADMIN = "UADMIN"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


async def _slack(make_slack: SlackFactory, clock: ManualClock, **kwargs: Any) -> Slack:
    slack = await make_slack(clock=clock, **kwargs)
    slack.fake.admins.add(ADMIN)
    assert slack.bot.delivery is not None
    # What run_slack does once up:
    slack.app.services.deliveries.register("slack", slack.bot.delivery)
    return slack


async def _say(slack: Slack, text: str, **kwargs: Any) -> dict[str, Any]:
    sent = await slack.tester.command(text, **kwargs)
    assert sent.status == 200
    return await slack.fake.reply(sent.key)


async def _tick_at(slack: Slack, clock: ManualClock, when: datetime) -> list[Call]:
    """Moves the clock to `when`, runs one scheduler tick; the chat.postMessage calls it made."""
    before = len(slack.fake.api("chat.postMessage"))
    clock.set(when)
    await slack.app.services.scheduler.tick()
    return slack.fake.api("chat.postMessage")[before:]


async def _answer_right(slack: Slack, call: Call, user: str) -> dict[str, Any]:
    value = buttons(call.params["blocks"])[0]["value"]
    post_id = int(value.split(":")[1])
    right = await slack.right_shown(post_id)
    sent = await slack.tester.click(
        f"quiz_answer_{'ABC'[right]}", f"p:{post_id}:{right}", user=user
    )
    return await slack.fake.reply(sent.key)


async def test_a_daily_question_posts_reveals_and_reports_a_lost_channel(
    make_slack: SlackFactory, clock: ManualClock
) -> None:
    slack = await _slack(make_slack, clock)
    reply = await _say(
        slack, f"schedule set 9:00 asia/dhaka {TEST_DECK}", channel="C77", user=ADMIN
    )
    said = all_text(reply["blocks"])
    assert "Daily question set for" in said and "every day at 09:00 (Asia/Dhaka)" in said
    assert "Next question: Monday 2026-03-02 09:00 (Asia/Dhaka) · 2026-03-02 03:00 UTC" in said
    parts = reply["blocks"][0]["elements"][0]["elements"]
    assert any(p["type"] == "channel" and p["channel_id"] == "C77" for p in parts)  # a link
    assert "<#C77>" in reply["text"]

    assert await _tick_at(slack, clock, NINE - timedelta(seconds=30)) == []  # not yet
    [first] = await _tick_at(slack, clock, NINE + timedelta(seconds=5))
    assert first.params["channel"] == "C77" and first.token == BOT_TOKEN
    assert "Team <Quiz> & Co · Question" in all_text(first.params["blocks"])
    assert len(buttons(first.params["blocks"])) >= 2
    assert first.params["text"].startswith("Quiz: ")
    assert await _tick_at(slack, clock, NINE + timedelta(seconds=20)) == []  # once a date
    reply = await _answer_right(slack, first, "U1")
    assert "✅ Right!" in all_text(reply["blocks"])
    assert "days in a row" not in all_text(reply["blocks"])

    # the next day: yesterday's question becomes its reveal, today's is posted
    [second] = await _tick_at(slack, clock, NINE + timedelta(days=1, seconds=5))
    assert first.answer is not None
    reveal = slack.fake.api("chat.update")[-1]
    assert (reveal.params["channel"], reveal.params["ts"]) == ("C77", first.answer["ts"])
    assert not buttons(reveal.params["blocks"]) and reveal.params["text"].startswith("Closed: ")
    assert "1 answered · 100% got it right" in all_text(reveal.params["blocks"])
    assert second.params["channel"] == "C77"
    reply = await _answer_right(slack, second, "U1")
    assert "🔥 2 days in a row" in all_text(reply["blocks"])  # the streak of daily questions

    # the bot is removed from the channel: the day fails, is shown, and the admin is told
    slack.fake.refuse_channels.add("C77")
    calls = await _tick_at(slack, clock, NINE + timedelta(days=2, seconds=5))
    # yesterday's reveal (chat.update refused, then as a new message), the post, the DM
    assert [c.params["channel"] for c in calls] == ["C77", "C77", ADMIN]
    assert all(c.answer == {"ok": False, "error": "not_in_channel"} for c in calls[:2])
    dm = calls[2]
    assert dm.answer is not None and dm.answer["channel"] == "D" + ADMIN[1:]
    assert "The daily question for" in dm.params["text"] and "<#C77>" in dm.params["text"]
    assert refusal("not_in_channel") in all_text(dm.params["blocks"])
    shown = all_text((await _say(slack, "schedule show", user=ADMIN))["blocks"])
    assert "Daily questions" in shown
    assert "every day at 09:00 (Asia/Dhaka) · deck Team <Quiz> & Co" in shown
    assert (
        "⚠️ The question of 2026-03-04 could not be posted: Slack answered not_in_channel" in shown
    )
    assert "Next question: Thursday 2026-03-05 09:00 (Asia/Dhaka) · 2026-03-05 03:00 UTC" in shown


async def test_schedule_off_now_and_usage(make_slack: SlackFactory, clock: ManualClock) -> None:
    slack = await _slack(make_slack, clock)
    usage = "Usage: /quiz schedule set HH:MM ZONE [deck] [daily|weekdays]"
    for wrong in ("schedule", "schedule set 09:00", "schedule maybe", "schedule off now"):
        assert usage in all_text((await _say(slack, wrong, user=ADMIN))["blocks"])
    bad_zone = all_text((await _say(slack, "schedule set 09:00 Dhaka", user=ADMIN))["blocks"])
    assert "“Dhaka” is not a time zone I know. Did you mean Asia/Dhaka?" in bad_zone
    none = all_text((await _say(slack, "schedule now", channel="C5", user=ADMIN))["blocks"])
    assert "There is no daily question in this channel." in none

    await _say(slack, f"schedule set 17:30 UTC weekdays {TEST_DECK}", channel="C5", user=ADMIN)
    now = await _say(slack, "schedule now", channel="C5", user=ADMIN)
    assert all_text(now["blocks"]) == "Posted the schedule's next question."
    [posted] = slack.fake.api("chat.postMessage")
    assert posted.params["channel"] == "C5"
    again = await _say(slack, "schedule now", channel="C5", user=ADMIN)  # reveals the first
    assert all_text(again["blocks"]) == "Posted the schedule's next question."
    assert not buttons(slack.fake.api("chat.update")[-1].params["blocks"])

    off = await _say(slack, "schedule off", channel="C5", user=ADMIN)
    assert "The daily question in" in all_text(off["blocks"]) and "<#C5>" in off["text"]
    shown = all_text((await _say(slack, "schedule show", user=ADMIN))["blocks"])
    assert "No daily question is scheduled here." in shown
    assert "There is no daily question" in all_text(
        (await _say(slack, "schedule off", channel="C5", user=ADMIN))["blocks"]
    )


async def test_schedule_now_in_a_channel_the_bot_left(
    make_slack: SlackFactory, clock: ManualClock
) -> None:
    slack = await _slack(make_slack, clock)
    await _say(slack, f"schedule set 09:00 UTC {TEST_DECK}", channel="C6", user=ADMIN)
    slack.fake.refuse_channels.add("C6")
    said = all_text((await _say(slack, "schedule now", channel="C6", user=ADMIN))["blocks"])
    assert said.startswith("I couldn't post the question in ")
    assert said.endswith(f"{refusal('not_in_channel')}.")
    assert await slack.app.store.open_scheduled_posts() == []  # discarded, not left open


async def test_schedule_is_for_admins_only(make_slack: SlackFactory, clock: ManualClock) -> None:
    slack = await _slack(make_slack, clock)
    for words in (
        "schedule set 09:00 UTC",
        "schedule show",
        "schedule off",
        "schedule now",
        "schedule",
    ):
        said = all_text((await _say(slack, words, user="U2"))["blocks"])
        assert said.startswith("Only an admin can do that. On Slack, workspace admins")
    assert await slack.app.store.schedule_in_channel("slack:T1", "C1") is None


async def test_a_deleted_question_is_revealed_as_a_new_message(
    make_slack: SlackFactory, clock: ManualClock
) -> None:
    slack = await _slack(make_slack, clock)
    await _say(slack, f"schedule set 09:00 Asia/Dhaka {TEST_DECK}", channel="C8", user=ADMIN)
    [first] = await _tick_at(slack, clock, NINE + timedelta(seconds=5))
    slack.fake.errors["chat.update"] = "message_not_found"
    calls = await _tick_at(slack, clock, NINE + timedelta(days=1, seconds=5))
    assert [c.params["channel"] for c in calls] == ["C8", "C8"]  # the reveal, then the question
    assert calls[0].params["text"].startswith("Closed: ") and not buttons(calls[0].params["blocks"])
    assert buttons(calls[1].params["blocks"])
    assert first.answer is not None
    assert slack.fake.api("chat.update")[-1].params["ts"] == first.answer["ts"]  # tried first


async def test_each_workspace_posts_with_its_own_installed_token(
    make_slack: SlackFactory, clock: ManualClock
) -> None:
    slack = await _slack(make_slack, clock, oauth=True)
    async with aiohttp.ClientSession() as session:
        await _install(slack, session, "TA")
        await _install(slack, session, "TB")
    for team in ("TA", "TB"):
        reply = await _say(
            slack,
            f"schedule set 09:00 Asia/Dhaka {TEST_DECK}",
            team=team,
            channel=f"C{team}",
            user=ADMIN,
        )
        assert "Daily question set for" in all_text(reply["blocks"])
    calls = await _tick_at(slack, clock, NINE + timedelta(seconds=5))
    assert sorted((c.params["channel"], c.token) for c in calls) == [
        ("CTA", "xoxb-TA"),
        ("CTB", "xoxb-TB"),
    ]

    # TB uninstalls the app: its next day fails as not installed; TA goes on
    await slack.tester.event({"type": "app_uninstalled"}, team="TB", event_id="EvU9")
    assert slack.bot.oauth is not None

    async def uninstalled() -> bool:
        assert slack.bot.oauth is not None
        return await slack.bot.oauth.bot_token("slack:TB") is None

    await eventually(uninstalled)
    calls = await _tick_at(slack, clock, NINE + timedelta(days=1, seconds=5))
    assert [(c.params["channel"], c.token) for c in calls] == [("CTA", "xoxb-TA")]
    schedule = await slack.app.store.schedule_in_channel("slack:TB", "CTB")
    assert schedule is not None
    [slot] = await slack.app.store.recent_slots(schedule.id, 1)
    assert slot.error == refusal("not_installed")
