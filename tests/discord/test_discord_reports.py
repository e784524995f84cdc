"""Report a problem, and question health for admins, on Discord end to end: the button on a
reply opens a form (a modal), the form sent back is stored and thanked for (also after a
restart, and a forged reason is refused politely); /quizadmin report shows each question's
health with the questions players reported flagged, to admins only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import discord
from discord_harness import (
    ADMIN,
    ALICE,
    BOB,
    BotFactory,
    DiscordBot,
    Person,
    Reply,
    form_of,
)
from fake_discord import EPHEMERAL, MODAL, Interaction

from bot.discord.reports import form_values
from bot.domain.clock import ManualClock
from bot.domain.problems import Reason
from bot.domain.review import card_key

SERVER = "discord:111111111111111111"
THANKS = "Thank you: your report goes to this server's admins and the deck's authors."
ADMIN_ONLY = "Only an admin can do that. On Discord that means the Manage Server permission."
NO_REASON = "Please choose what is wrong, then send the form again."
OWNER = 1
"""The test guild's owner (`fake_discord.guild`)."""


async def answered(bot: DiscordBot, *right: tuple[Person, bool]) -> list[Reply]:
    """The replies to clicks on the all-reduce question, posted by the admin: each person
    picks the right answer or a wrong one."""
    post_id, posted = await bot.post(deck="basics", question="all-reduce", by=ADMIN)
    answer = await bot.right_label(post_id)
    wrong = next(b["label"] for b in posted.buttons if b["label"] != answer)
    return [
        await bot.reply(await bot.click(posted.message_id or "", answer if ok else wrong, by=by))
        for by, ok in right
    ]


async def open_form(
    bot: DiscordBot, reply: Reply, by: Person, label: str = "Report a problem"
) -> tuple[Interaction, dict[str, Any]]:
    opened = await bot.click(reply.message_id or "", label, by=by)
    await bot.fake.until(lambda: bool(opened.callbacks))
    form = form_of(opened)
    assert form is not None, opened.callbacks
    return opened, form


async def test_report_a_problem_opens_a_form_and_stores_what_is_sent(
    make_bot: BotFactory,
) -> None:
    first = await make_bot()
    (reply,) = await answered(first, (ALICE, False))
    opened, form = await open_form(first, reply, ALICE)

    assert [body["type"] for _, body in opened.callbacks] == [MODAL]  # the form is the answer
    key = card_key("basics", "all-reduce")
    assert form["title"] == "Report a problem" and form["custom_id"] == f"quiz:report:{key}"
    shown, reason, details = form["components"]
    assert shown["type"] == 10 and shown["content"].startswith("Which collective sums gradients")
    assert reason["type"] == 18 and reason["label"] == "What is wrong?"
    select = reason["component"]
    assert select["type"] == 3 and select["custom_id"] == "reason"
    assert [(o["label"], o["value"]) for o in select["options"]] == [
        ("The answer is wrong", "wrong_answer"),
        ("The question is unclear", "unclear"),
        ("A typo or a translation slip", "typo"),
        ("Something else", "other"),
    ]
    assert details["type"] == 18 and details["label"] == "Details (optional)"
    text = details["component"]
    assert (text["type"], text["style"], text["custom_id"]) == (4, 2, "details")
    assert text["required"] is False and text["max_length"] == 1000
    assert text["placeholder"] == "e.g. the answer should be B because…"

    # The bot restarts before the form comes back: it is taken all the same.
    await first.stop()
    bot = await make_bot()
    sent = await bot.submit(
        opened, {"reason": "wrong_answer", "details": "B is right: see the NCCL docs."}, by=ALICE
    )
    thanks = await bot.reply(sent)
    assert sent.callbacks[0][1]["type"] == 4 and sent.callbacks[0][1]["data"]["flags"] == EPHEMERAL
    assert thanks.ephemeral and thanks.data["content"] == THANKS
    (report,) = await bot.app.store.problem_reports(SERVER)
    assert (report.deck_id, report.question_id) == ("basics", "all-reduce")
    assert report.user_id == str(ALICE.id)
    assert report.reason is Reason.WRONG_ANSWER
    assert report.text == "B is right: see the NCCL docs."

    # Details are optional; a forged reason is refused politely and nothing is stored.
    plain = await bot.reply(await bot.submit(opened, {"reason": "typo"}, by=BOB))
    assert plain.data["content"] == THANKS
    forged = await bot.reply(await bot.submit(opened, {"reason": "drop_tables"}, by=BOB))
    assert forged.ephemeral and forged.data["content"] == NO_REASON
    missing = await bot.reply(await bot.submit(opened, {}, by=BOB))
    assert missing.ephemeral and missing.data["content"] == NO_REASON
    reports = await bot.app.store.problem_reports(SERVER)
    assert [(r.user_id, r.reason, r.text) for r in reports] == [
        (str(ALICE.id), Reason.WRONG_ANSWER, "B is right: see the NCCL docs."),
        (str(BOB.id), Reason.TYPO, ""),
    ]


async def test_a_form_in_bengali_and_one_that_is_not_ours(bot: DiscordBot) -> None:
    await bot.run("quiz", "language", by=BOB, locale="bn")
    (reply,) = await answered(bot, (BOB, True))
    _, form = await open_form(bot, reply, BOB, "সমস্যা জানান")
    assert form["title"] == "সমস্যা জানান"
    options = form["components"][1]["component"]["options"]
    assert [o["label"] for o in options] == [
        "উত্তরটা ভুল",
        "প্রশ্নটা পরিষ্কার না",
        "বানান বা অনুবাদে ভুল",
        "অন্য কিছু",
    ]

    # A form this bot never sent (another version's, a tampered one) gets a reply too.
    payload = bot.submit_payload("quiz:feedback:1", [], by=BOB)
    odd = await bot.reply(await bot.fake.dispatch_interaction(payload))
    assert odd.ephemeral and odd.data["content"].startswith("এই বাটনটা")


async def test_question_health_for_admins_only(bot: DiscordBot) -> None:
    _, reply = await answered(bot, (ALICE, False), (BOB, True))
    opened, _ = await open_form(bot, reply, BOB)
    thanks = await bot.reply(
        await bot.submit(opened, {"reason": "unclear", "details": "Which *rank*?"}, by=BOB)
    )
    assert thanks.data["content"] == THANKS

    health = await bot.run("quizadmin", "report", by=ADMIN, deck="basics")
    assert health.ephemeral
    assert health.embed["title"] == "Question health · Parallelism \\_basics\\_"
    lines = health.embed["description"].split("\n")
    assert lines[0].startswith("1\\. 2 answered · 50% right · D ")
    assert lines[0].endswith("⚠️ reported by players")
    assert lines[1:3] == ["2\\. 0 answered · 0% right · D -", "3\\. 0 answered · 0% right · D -"]
    assert lines[3] == "Problem reports (1), newest first:"
    assert lines[4].startswith("Parallelism \\_basics\\_ · 1. Which collective")
    assert lines[4].endswith(f"· The question is unclear · <@{BOB.id}>: Which \\*rank\\*?")

    refused = await bot.run("quizadmin", "report", by=ALICE, deck="basics")
    assert refused.ephemeral and refused.data["content"] == ADMIN_ONLY


def test_a_form_is_read_from_labels_or_action_rows_and_never_trusted() -> None:
    in_labels = [
        {"type": 10, "id": 1},
        {"type": 18, "id": 2, "component": {"type": 3, "custom_id": "reason", "values": ["typo"]}},
        {"type": 18, "id": 4, "component": {"type": 4, "custom_id": "details", "value": "x"}},
    ]
    assert form_values(in_labels) == ("typo", "x")
    in_rows = [{"type": 1, "components": [{"type": 4, "custom_id": "details", "value": "y"}]}]
    assert form_values(in_rows) == (None, "y")
    two = [{"type": 3, "custom_id": "reason", "values": ["typo", "other"]}]
    assert form_values(two) == (None, "")
    assert form_values(None) == form_values([1, "a", {"component": 5}]) == (None, "")


async def test_the_daily_summary_shows_what_players_typed_as_plain_text(bot: DiscordBot) -> None:
    """A masked link, an address and markdown typed into a report reach the owner's DM as
    the words they are: nothing in it is a link or formatting (pings were blocked already)."""
    (reply,) = await answered(bot, (ALICE, False))
    opened, _ = await open_form(bot, reply, ALICE)
    typed = "[Your server will be deleted - verify here](https://evil.example/v) **now** ||x||"
    await bot.reply(await bot.submit(opened, {"reason": "other", "details": typed}, by=ALICE))
    digest = bot.app.services.scheduler.digest
    assert digest is not None
    assert await digest.send(datetime.now(UTC)) == [SERVER]

    (dm,) = bot.fake.dms_to(OWNER)
    shown = dm["content"].split("\n")[1]
    assert shown.endswith(
        f"· Something else · <@{ALICE.id}>: \\[Your server will be deleted - verify here]"
        "(`https://evil.example/v)` \\*\\*now\\*\\* \\|\\|x\\|\\|"
    )
    assert dm["allowed_mentions"] == {"parse": []}


async def test_the_summary_goes_to_a_setter_only_while_they_manage_the_server(
    make_bot: BotFactory,
) -> None:
    clock = ManualClock(datetime(2026, 3, 2, 10, tzinfo=UTC))
    bot = await make_bot(clock=clock)
    guild = SERVER.partition(":")[2]
    bot.fake.roles[guild] = {"555": discord.Permissions(manage_guild=True).value}
    bot.fake.members[(guild, str(ADMIN.id))] = ["555"]
    await bot.run("quizadmin", "set", subgroup="schedule", by=ADMIN, time="09:00", timezone="UTC")
    digest = bot.app.services.scheduler.digest
    assert digest is not None

    (reply,) = await answered(bot, (ALICE, False))
    opened, _ = await open_form(bot, reply, ALICE)
    await bot.reply(await bot.submit(opened, {"reason": "typo", "details": "one"}, by=ALICE))
    await digest.send(clock.now())
    assert [len(bot.fake.dms_to(p)) for p in (OWNER, ADMIN.id)] == [1, 1]

    bot.fake.members[(guild, str(ADMIN.id))] = []  # the role is taken away
    opened, _ = await open_form(bot, reply, ALICE)
    await bot.reply(await bot.submit(opened, {"reason": "typo", "details": "two"}, by=BOB))
    clock.advance(timedelta(days=1, minutes=1))
    await digest.send(clock.now())
    assert [len(bot.fake.dms_to(p)) for p in (OWNER, ADMIN.id)] == [2, 1]
    assert "two" in bot.fake.dms_to(OWNER)[-1]["content"]


async def test_question_health_shows_what_players_typed_as_plain_text(bot: DiscordBot) -> None:
    """/quizadmin report (issue 32, finding 11): a masked link, an address, a mention and
    markdown typed into a report show as the characters typed, as in the summary DM; the
    reporter's own mention stays one."""
    (reply,) = await answered(bot, (ALICE, False))
    opened, _ = await open_form(bot, reply, ALICE)
    typed = "[Verify here](https://evil.example/v) <@199> <#1> **now** https://evil.example/x"
    await bot.reply(await bot.submit(opened, {"reason": "other", "details": typed}, by=ALICE))

    health = await bot.run("quizadmin", "report", by=ADMIN, deck="basics")
    (line,) = [x for x in health.embed["description"].split("\n") if "evil" in x]
    assert line.endswith(
        f"· Something else · <@{ALICE.id}>: \\[Verify here](`https://evil.example/v)` "
        "\\<@199> \\<#1> \\*\\*now\\*\\* `https://evil.example/x`"
    )
