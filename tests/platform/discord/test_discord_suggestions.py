"""Questions the team writes, on Discord, through discord.py against the fake Discord: a member
suggests a question with a length tell in the five-field form, is coached, edits and sends it;
an admin approves it from /quizadmin suggestions; it is posted, answered and revealed with its
author's credit (no ping); a rejection reaches its author; a member cannot approve."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from discord_harness import ADMIN, ALICE, BOB, CAROL, DiscordBot, Reply, form_of, make_app

from bot.discord.client import QuizClient
from bot.domain.suggestion import Field
from bot.testing.fake_discord import TOKEN, FakeDiscord

TELLS = {
    Field.QUESTION.value: "Which file format does a @everyone [team](https://x.io) deck use?",
    Field.RIGHT.value: "YAML with one mapping per question and its explanation",
    Field.WRONG.value: "JSON\nTOML\nCSV",
    Field.EXPLANATION.value: "Deck files are YAML: comments and multi-line text read well.",
    Field.WHYS.value: "JSON has no comments\nTOML is for config\nCSV cannot hold whys",
}
FIXED = {**TELLS, Field.RIGHT.value: "YAML"}


def screenshot(title: str, reply: Reply | dict[str, Any]) -> None:
    """What Discord draws, as text, for the record (pytest's figures section)."""
    data = reply.data if isinstance(reply, Reply) else reply
    print(f"--- {title} ---")
    lines: list[str] = []
    if data.get("title"):
        lines.append(f"[modal] {data['title']}")
    for c in data.get("components", []):
        if c.get("type") == 18:
            inner = c["component"]
            lines.append(
                f"{c['label']}  [{inner.get('placeholder', '')}] (max {inner.get('max_length')})"
            )
        elif c.get("type") == 1:
            lines.append("  ".join(f"[{b['label']}]" for b in c["components"]))
    if data.get("content"):
        lines.insert(0, data["content"])
    for e in data.get("embeds", []):
        lines += [e.get("title", ""), e.get("description", ""), e.get("footer", {}).get("text", "")]
    for line in "\n".join(lines).splitlines():
        print(f"  {line}")


async def _coached(bot: DiscordBot, values: dict[str, str], by: Any = ALICE) -> Reply:
    opened = await bot.command("quiz", "suggest", by=by)
    await bot.fake.until(lambda: form_of(opened) is not None)
    return await bot.reply(await bot.submit(opened, values, by=by), within=20)


async def test_suggest_coach_edit_approve_play_and_credit(bot: DiscordBot) -> None:
    opened = await bot.command("quiz", "suggest", by=ALICE)
    await bot.fake.until(lambda: form_of(opened) is not None)
    form = form_of(opened)
    assert form is not None
    screenshot("Discord: the form (/quiz suggest)", form)
    assert form["custom_id"] == "quiz:suggest" and len(form["components"]) == 5
    labels = [c["label"] for c in form["components"]]
    assert labels[0] == "The question (up to 300 characters)"
    assert [c["component"]["max_length"] for c in form["components"]] == [300, 120, 500, 600, 800]

    coached = await bot.reply(await bot.submit(opened, TELLS, by=ALICE), within=20)
    screenshot("Discord: the coaching", coached)
    assert coached.ephemeral
    assert coached.embed["title"] == "Before you send it: what the lint noticed"
    assert "The right answer is the longest choice by far" in coached.embed["description"]
    description = coached.embed["description"]
    assert "\\[team](`https://x.io)`" in description  # a code span: no link made
    assert [b["label"] for b in coached.buttons] == ["Edit", "Submit anyway"]

    edit = await bot.click(coached.message_id or "", "Edit", by=ALICE)
    await bot.fake.until(lambda: form_of(edit) is not None)
    reopened = form_of(edit)
    assert reopened is not None
    assert [c["component"]["value"] for c in reopened["components"]] == list(TELLS.values())

    sent = await bot.reply(await bot.submit(edit, FIXED, by=ALICE), within=20)
    assert sent.data["content"].startswith("The lint found nothing to fix. Sent to the admins.")

    member = await bot.run("quizadmin", "suggestions", by=BOB)
    assert member.data["content"].startswith("Only an admin can do that.")
    queue = await bot.run("quizadmin", "suggestions", by=ADMIN)
    screenshot("Discord: the admins' queue (/quizadmin suggestions)", queue)
    assert queue.ephemeral and queue.data["content"].startswith("**Suggestions waiting: 1**")
    assert "#1 by @alice" in queue.embed["title"]
    assert [b["label"] for b in queue.buttons] == ["Approve", "Edit", "Reject"]

    refused = await bot.reply(await bot.click(queue.message_id or "", "Approve", by=BOB))
    assert refused.data["content"].startswith("Only an admin can do that.")
    approved = await bot.reply(await bot.click(queue.message_id or "", "Approve", by=ADMIN))
    assert approved.data["content"].startswith("Approved #1: it is question q1 of Our questions")
    await bot.fake.until(lambda: bool(bot.fake.dms_to(ALICE.id)))
    assert (
        "was approved: it is question 1 of “Our questions” now"
        in (bot.fake.dms_to(ALICE.id)[-1]["content"])
    )

    record = await bot.fake.dispatch_interaction(
        bot.command_payload("quiz", "post", by=BOB, focused="deck", deck="our")
    )
    await bot.fake.until(lambda: bool(record.callbacks))
    assert record.callbacks[0][1]["data"]["choices"] == [
        {"name": "team-111111111111111111 · Our questions", "value": "team-111111111111111111"}
    ]
    post_id, posted = await bot.post(deck="team", by=ADMIN)
    assert "Which file format" in posted.embed["description"]
    right = await bot.right_label(post_id)
    await bot.reply(await bot.click(posted.message_id or "", right, by=CAROL))
    await bot.run("quizadmin", "close", by=ADMIN)
    await bot.fake.until(
        lambda: "Question by" in str(bot.fake.messages[posted.message_id or ""]["embeds"])
    )
    reveal = bot.fake.messages[posted.message_id or ""]["embeds"][0]["description"]
    assert "Question by @alice" in reveal
    assert f"<@{ALICE.id}>" not in reveal

    stats = await bot.run("quiz", "stats", by=BOB, user=ALICE)
    screenshot("Discord: /quiz stats of the author", stats)
    written = stats.data["embeds"][1]
    assert written["title"] == "Questions written: 1"
    assert written["description"].endswith(": answered 1, 100% right")


async def test_a_rejection_reaches_its_author_and_a_member_cannot_reject(bot: DiscordBot) -> None:
    sent = await _coached(bot, FIXED, by=BOB)
    assert "Sent to the admins" in sent.data["content"]
    queue = await bot.run("quizadmin", "suggestions", by=ADMIN)
    no = await bot.reply(await bot.click(queue.message_id or "", "Reject", by=CAROL))
    assert no.data["content"].startswith("Only an admin can do that.")
    opened = await bot.click(queue.message_id or "", "Reject", by=ADMIN)
    await bot.fake.until(lambda: form_of(opened) is not None)
    done = await bot.reply(
        await bot.submit(opened, {"reason": "We ask this in onboarding <@1>."}, by=ADMIN)
    )
    assert done.data["content"] == "Rejected #1; its author is told why."
    await bot.fake.until(lambda: bool(bot.fake.dms_to(BOB.id)))
    told = bot.fake.dms_to(BOB.id)[-1]
    assert "was not approved. The admin said: We ask this in onboarding" in told["content"]


async def test_a_form_it_cannot_take_is_kept_and_reopens_filled_in(bot: DiscordBot) -> None:
    short = {**TELLS, Field.WRONG.value: ""}
    said = await _coached(bot, short)
    assert said.data["content"] == (
        "Wrong answers, one per line (1 to 4): Write 1 to 4 wrong answers, one per line."
    )
    edit = await bot.click(said.message_id or "", "Edit", by=ALICE)
    await bot.fake.until(lambda: form_of(edit) is not None)
    form = form_of(edit)
    assert form is not None
    assert form["components"][0]["component"]["value"] == TELLS[Field.QUESTION.value]


async def test_an_approver_the_config_names_decides_without_manage_server(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    extra = f'\n[suggestions]\napprovers = ["{CAROL.id}"]\n'
    app = await make_app(tmp_path, extra=extra)
    client = QuizClient(app.services, refresh_interval=0.3)
    task = asyncio.create_task(client.start(TOKEN))
    await fake.until(lambda: bool(fake.identifies))
    bot = DiscordBot(fake, app, client, task)
    try:
        await _coached(bot, FIXED, by=BOB)
        queue = await bot.run("quizadmin", "suggestions", by=CAROL)
        assert queue.data["content"].startswith("**Suggestions waiting: 1**")
        done = await bot.reply(await bot.click(queue.message_id or "", "Approve", by=CAROL))
        assert done.data["content"].startswith("Approved #1")
    finally:
        await bot.stop()
