"""Leaderboards and stats per workspace, users as mentions; App Home; event de-duplication."""

from __future__ import annotations

from bot.testing.slack_requests import all_text
from tests.platform.slack.conftest import TEST_DECK, Slack, SlackFactory


async def _answer(slack: Slack, post_id: int, user: str, *, right: bool, team: str = "T1") -> None:
    shown = await slack.right_shown(post_id)
    if not right:
        shown = (shown + 1) % 2
    sent = await slack.tester.click(
        f"quiz_answer_{'ABC'[shown]}", f"p:{post_id}:{shown}", user=user, team=team
    )
    await slack.fake.reply(sent.key)


async def _post(slack: Slack, question: str, *, team: str = "T1", channel: str = "C1") -> int:
    return await slack.post(f"{TEST_DECK} {question}", team=team, channel=channel)


async def test_leaderboard_ranks_by_points_with_mentions(slack: Slack) -> None:
    for question in ("capital", "sum", "sky"):
        post_id = await _post(slack, question)
        await _answer(slack, post_id, "UALICE", right=True)
        await _answer(slack, post_id, "UBOB", right=question != "sky")
        await _answer(slack, post_id, "UCAROL", right=question == "sum")
        await _answer(slack, post_id, "UDAN", right=False)
    asked = await slack.tester.command("leaderboard all", user="UDAN")
    reply = await slack.fake.reply(asked.key)
    assert reply["response_type"] == "ephemeral"
    text = all_text(reply["blocks"])
    assert "Leaderboard · this season" in text
    assert "1. <@UALICE> · 3\n2. <@UBOB> · 2\n3. <@UCAROL> · 1" in text
    assert "You have no points in this period yet." in text

    week = await slack.tester.command(f"leaderboard week {TEST_DECK}", user="UCAROL")
    reply = await slack.fake.reply(week.key)
    header = reply["blocks"][0]
    assert header["type"] == "header"  # plain_text: shown as typed, never parsed
    assert header["text"]["text"] == "Leaderboard · this week · Deck: Team <Quiz> & Co"
    assert "Team &lt;Quiz&gt; &amp; Co" in reply["text"]  # the mrkdwn fallback is escaped
    assert "3. <@UCAROL> · 1" in all_text(reply["blocks"])

    bad = await slack.tester.command("leaderboard yesterday")
    assert "Unknown period “yesterday”" in all_text((await slack.fake.reply(bad.key))["blocks"])


async def test_stats_for_me_and_for_a_mentioned_user(slack: Slack) -> None:
    post_id = await _post(slack, "capital")
    await _answer(slack, post_id, "UALICE", right=True)
    mine = await slack.tester.command("stats", user="UALICE")
    text = all_text((await slack.fake.reply(mine.key))["blocks"])
    assert "*Stats for <@UALICE>*" in text
    assert "Answered: 1" in text and "Right: 1 (100%)" in text and "Rank this season: #1" in text

    theirs = await slack.tester.command("stats <@UALICE|alice>", user="UBOB")
    assert "*Stats for <@UALICE>*" in all_text((await slack.fake.reply(theirs.key))["blocks"])

    unclear = await slack.tester.command("stats alice", user="UBOB")
    assert "mention them with @" in all_text((await slack.fake.reply(unclear.key))["blocks"])


async def test_two_workspaces_keep_separate_leaderboards(slack: Slack) -> None:
    one = await _post(slack, "capital", team="T1")
    await _answer(slack, one, "UALICE", right=True, team="T1")
    two = await _post(slack, "capital", team="T2")
    await _answer(slack, two, "UBOB", right=True, team="T2")
    await _answer(slack, two, "UCAROL", right=True, team="T2")

    in_one = await slack.tester.command("leaderboard all", team="T1")
    text = all_text((await slack.fake.reply(in_one.key))["blocks"])
    assert "<@UALICE>" in text and "<@UBOB>" not in text and "<@UCAROL>" not in text
    in_two = await slack.tester.command("leaderboard all", team="T2")
    text = all_text((await slack.fake.reply(in_two.key))["blocks"])
    assert "<@UBOB>" in text and "<@UCAROL>" in text and "<@UALICE>" not in text

    # a click from another workspace on T1's post is stale there, and stores nothing
    sent = await slack.tester.click("quiz_answer_A", f"p:{one}:0", user="UEVE", team="T2")
    assert "no longer belongs" in all_text((await slack.fake.reply(sent.key))["blocks"])
    assert await slack.app.store.answer_count(one) == 1


async def test_org_wide_install_uses_the_enterprise_id(slack: Slack) -> None:
    post_id = await slack.post(f"{TEST_DECK} sky", team="T7", enterprise="E1", org_wide=True)
    post = await slack.app.store.post(post_id)
    assert post is not None and post.server_id == "slack:E1"


def _home_event(user: str) -> dict[str, object]:
    return {
        "type": "app_home_opened",
        "user": user,
        "channel": "D0001",
        "tab": "home",
        "event_ts": "1700000000.000100",
    }


async def test_app_home_shows_leaderboard_and_my_stats_once_per_event(slack: Slack) -> None:
    post_id = await _post(slack, "capital")
    await _answer(slack, post_id, "UALICE", right=True)
    first = await slack.tester.event(_home_event("UALICE"), event_id="Ev42")
    retry = await slack.tester.event(_home_event("UALICE"), event_id="Ev42", retry=1)
    assert first.status == retry.status == 200
    await slack.fake.until(lambda: bool(slack.fake.api("views.publish")))
    other = await slack.tester.event(_home_event("UBOB"), event_id="Ev43")
    assert other.status == 200
    await slack.fake.until(lambda: len(slack.fake.api("views.publish")) >= 2)
    published = slack.fake.api("views.publish")
    assert [c.params["user_id"] for c in published] == ["UALICE", "UBOB"]
    view = published[0].params["view"]
    assert view["type"] == "home"
    text = all_text(view["blocks"])
    assert "Leaderboard · this week" in text
    assert "1. <@UALICE> · 1" in text
    assert "*Stats for <@UALICE>*" in text
    assert "/quiz help" in text


async def test_workspaces_are_separate_in_app_home_too(make_slack: SlackFactory) -> None:
    slack = await make_slack()
    post_id = await _post(slack, "capital", team="T1")
    await _answer(slack, post_id, "UALICE", right=True, team="T1")
    await slack.tester.event(_home_event("UALICE"), team="T2", event_id="Ev1")
    await slack.fake.until(lambda: bool(slack.fake.api("views.publish")))
    text = all_text(slack.fake.api("views.publish")[0].params["view"]["blocks"])
    assert "No points yet in this period" in text
