"""`/quiz` subcommands: help, decks, language, schedule, and the admin-only ones."""

from __future__ import annotations

from typing import Any

import pytest

from bot.testing.slack_requests import all_text, buttons
from tests.platform.slack.conftest import SEED_DECK, TEST_DECK, Slack

ADMIN_ONLY = (
    "Only an admin can do that. On Slack, workspace admins and owners (and the users in "
    "[slack] admins) are admins."
)


async def _say(slack: Slack, text: str, **kwargs: Any) -> str:
    sent = await slack.tester.command(text, **kwargs)
    assert sent.status == 200 and sent.body == ""  # acked at once, with nothing shown
    reply = await slack.fake.reply(sent.key)
    assert reply["response_type"] == "ephemeral"
    return all_text(reply["blocks"])


@pytest.mark.parametrize("text", ["", "help", "HELP", "language"])
async def test_help(slack: Slack, text: str) -> None:
    shown = await _say(slack, text)
    assert "quizbot: a question at a time" in shown
    assert "/quiz post [deck] [question]" in shown  # the shared help: Slack's own syntax
    assert "/quiz schedule set HH:MM ZONE [deck] [daily|weekdays]" in shown


async def test_unknown_subcommand_says_so_and_shows_help(slack: Slack) -> None:
    shown = await _say(slack, "frobnicate <@U1>")
    assert "Unknown command “frobnicate”." in shown
    assert "/quiz leaderboard" in shown


async def test_schedule_is_for_admins(slack: Slack) -> None:
    assert ADMIN_ONLY in await _say(slack, "schedule set 09:00 UTC", user="U2")
    assert [c.params["user"] for c in slack.fake.api("users.info")] == ["U2"]


async def test_decks(slack: Slack) -> None:
    shown = await _say(slack, "decks")
    assert f"{TEST_DECK}: Team <Quiz> & Co · 3 questions · English, বাংলা" in shown  # plain_text
    assert f"{SEED_DECK}: " in shown and "8 questions" in shown
    # where a deck's questions come from, as its file's `source` and `license` say
    assert "\n    Source: Li et al. 2020 (PyTorch DDP); " in shown
    assert "… · License: CC BY 4.0" in shown


async def test_unknown_deck(slack: Slack) -> None:
    shown = await _say(slack, "post nope")
    assert "There is no deck “nope”." in shown
    assert not slack.fake.api("chat.postMessage")


@pytest.mark.parametrize("ref", ["²", "٣", "３", "1.5", "-1", "9" * 40])
async def test_a_number_that_is_no_question_is_told_clearly(slack: Slack, ref: str) -> None:
    shown = await _say(slack, f"post {TEST_DECK} {ref}")
    assert f"has no question “{ref}” (use an id or a number from 1 to 3)" in shown
    assert not slack.fake.api("chat.postMessage")


async def test_bengali_digits_pick_a_question(slack: Slack) -> None:
    post_id = await slack.post(f"{TEST_DECK} ২")
    post = await slack.app.store.post(post_id)
    assert post is not None and post.question_id == "sum"  # the deck's second question


async def test_my_language_changes_my_replies(slack: Slack) -> None:
    assert "এখন থেকে আপনার ভাষা বাংলা।" in await _say(slack, "language bn", user="U1")
    assert "লিডারবোর্ড" in await _say(slack, "leaderboard", user="U1")
    assert "Leaderboard" in await _say(slack, "leaderboard", user="U2")
    assert "Unknown language “xx”" in await _say(slack, "language xx", user="U2")


async def test_server_language_is_for_admins(slack: Slack) -> None:
    assert ADMIN_ONLY in await _say(slack, "language bn server", user="U2")
    assert (await slack.app.store.server("slack:T1")).locale is None
    slack.fake.owners.add("UOWNER")
    assert "এখন থেকে এই সার্ভারের ভাষা বাংলা।" in await _say(slack, "language bn server", user="UOWNER")
    assert (await slack.app.store.server("slack:T1")).locale == "bn"


async def test_reset_is_refused_to_a_non_admin(slack: Slack) -> None:
    assert ADMIN_ONLY in await _say(slack, "reset", user="U2")
    assert (await slack.app.store.server("slack:T1")).season == 1


async def test_reset_by_an_admin_after_the_confirm_button(slack: Slack) -> None:
    slack.fake.admins.add("UADMIN")
    sent = await slack.tester.command("reset", user="UADMIN")
    reply = await slack.fake.reply(sent.key)
    assert "Start a new leaderboard season?" in all_text(reply["blocks"])
    labels = [b["text"]["text"] for b in buttons(reply["blocks"])]
    assert labels == ["Start a new season", "Cancel"]

    cancel = await slack.tester.press(reply["blocks"], "Cancel", user="UADMIN", ephemeral=True)
    assert "Nothing changed." in all_text((await slack.fake.reply(cancel.key))["blocks"])
    assert (await slack.app.store.server("slack:T1")).season == 1

    # someone who is not an admin pressing a copy of the button changes nothing
    forged = await slack.tester.press(reply["blocks"], "Start a new season", user="U2")
    assert ADMIN_ONLY in all_text((await slack.fake.reply(forged.key))["blocks"])
    assert (await slack.app.store.server("slack:T1")).season == 1

    yes = await slack.tester.press(
        reply["blocks"], "Start a new season", user="UADMIN", ephemeral=True
    )
    done = await slack.fake.reply(yes.key)
    assert done["replace_original"] is True
    assert "Season 2 has started." in all_text(done["blocks"])
    assert (await slack.app.store.server("slack:T1")).season == 2


async def test_the_same_confirm_pressed_twice_starts_one_season(slack: Slack) -> None:
    slack.fake.admins.add("UADMIN")
    sent = await slack.tester.command("reset", user="UADMIN")
    reply = await slack.fake.reply(sent.key)
    confirm = next(b for b in buttons(reply["blocks"]) if b["action_id"] == "quiz_reset_yes")
    assert confirm["value"] == "s:1"  # the season the button was shown for

    first, second = [
        await slack.tester.click(confirm["action_id"], confirm["value"], user="UADMIN")
        for _ in range(2)
    ]
    assert "Season 2 has started." in all_text((await slack.fake.reply(first.key))["blocks"])
    stale = all_text((await slack.fake.reply(second.key))["blocks"])
    assert "That confirm button is out of date: season 2 is already running." in stale
    assert (await slack.app.store.server("slack:T1")).season == 2

    again = await slack.tester.command("reset", user="UADMIN")  # a fresh confirm works
    fresh = await slack.fake.reply(again.key)
    assert buttons(fresh["blocks"])[0]["value"] == "s:2"


@pytest.mark.parametrize("value", ["reset", "s:0", "s:01", "s:1 ", "s:-1", "s:1234567890", ""])
async def test_a_tampered_confirm_changes_nothing(slack: Slack, value: str) -> None:
    sent = await slack.tester.click("quiz_reset_yes", value, user="UCONFIGADMIN")
    assert "no longer belongs" in all_text((await slack.fake.reply(sent.key))["blocks"])
    assert (await slack.app.store.server("slack:T1")).season == 1


async def test_configured_admins_need_no_users_info(slack: Slack) -> None:
    sent = await slack.tester.command("reset", user="UCONFIGADMIN")
    assert "Start a new leaderboard season?" in all_text(
        (await slack.fake.reply(sent.key))["blocks"]
    )
    assert not slack.fake.api("users.info")


async def test_admin_answers_are_cached_briefly(slack: Slack) -> None:
    await _say(slack, "reset", user="U2")
    await _say(slack, "reset", user="U2")
    assert len(slack.fake.api("users.info")) == 1


async def test_everyday_commands_ask_nobody_about_admins(slack: Slack) -> None:
    await _say(slack, "leaderboard")
    await _say(slack, "stats")
    await _say(slack, "language en")
    assert not slack.fake.api("users.info")


async def test_on_an_org_wide_install_only_org_admins_are_admins(slack: Slack) -> None:
    """Enterprise Grid: an org-wide install has one leaderboard for every workspace of the
    org, so a workspace admin is not its admin; an org admin or owner is. Before, any
    workspace admin could reset the whole org's season."""
    slack.fake.admins.add("UWSADMIN")
    slack.fake.org_admins.add("UORGADMIN")
    org = {"team": "T7", "enterprise": "E1", "org_wide": True}
    assert ADMIN_ONLY in await _say(slack, "reset", user="UWSADMIN", **org)
    assert "Start a new leaderboard season?" in await _say(slack, "reset", user="UORGADMIN", **org)
    # In a workspace's own server both are admins.
    assert "Start a new leaderboard season?" in await _say(slack, "reset", user="UWSADMIN")
    assert "Start a new leaderboard season?" in await _say(slack, "reset", user="UORGADMIN")


async def test_a_click_acknowledged_after_three_seconds_is_answered_once(slack: Slack) -> None:
    """Slack itself slow to say who is an admin: the confirm is acked after 3 s. bolt's
    default took a listener that had not acked by then for one that never would and handed
    the click on to the catch-all, which answered it a second time as a stale click."""
    slack.fake.admins.add("USLOWADMIN")
    slack.fake.slow["users.info"] = 3.3
    sent = await slack.tester.click("quiz_reset_yes", "s:1", user="USLOWADMIN")
    assert sent.status == 200 and sent.elapsed > 3.0
    first = all_text((await slack.fake.reply(sent.key))["blocks"])
    await slack.fake.until_idle(quiet=0.5)  # a second answer would follow at once
    assert len(slack.fake.replies(sent.key)) == 1, slack.fake.replies(sent.key)
    assert "no longer" not in first.lower() and "out of date" not in first.lower(), first
