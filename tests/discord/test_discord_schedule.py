"""The daily question on Discord: /quizadmin schedule through the protocol, and the core
scheduler posting, revealing and failing through the Discord delivery, on a ManualClock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import discord
from discord_harness import (
    ADMIN,
    ALICE,
    BOB,
    CHANNEL,
    GUILD_1,
    BotFactory,
    Channel,
    DiscordBot,
)
from fake_discord import FakeDiscord

from bot.discord.options import COMMON_ZONES, zones_matching
from bot.domain.clock import ManualClock

MONDAY = datetime(2026, 3, 2, 2, 0, tzinfo=UTC)  # 08:00 in Dhaka (UTC+6, no DST)
AT_NINE = MONDAY + timedelta(hours=1)  # 09:00 in Dhaka
SERVER = f"discord:{GUILD_1}"
OTHER = Channel(444444444444444444, "announcements")


def buttons(message: dict[str, object]) -> list[dict[str, object]]:
    rows = message["components"]
    assert isinstance(rows, list)
    return [c for row in rows for c in row["components"]]


async def _tick(bot: DiscordBot) -> list[int]:
    report = await bot.app.services.scheduler.tick()
    return report.posted


async def test_the_daily_question_end_to_end(make_bot: BotFactory, fake: FakeDiscord) -> None:
    clock = ManualClock(MONDAY)
    bot = await make_bot(clock=clock)

    set_ = await bot.run(
        "quizadmin",
        "set",
        subgroup="schedule",
        by=ADMIN,
        time="9:00",
        timezone="asia/dhaka",
        deck="Basics",
    )
    assert set_.ephemeral
    said = set_.embed["description"]
    assert said.startswith(
        f"**Daily question set for <#{CHANNEL}>: every day at 09:00 (Asia/Dhaka), "
        "deck Parallelism \\_basics\\_.**"
    )
    assert "Next question: Monday 2026-03-02 09:00 (Asia/Dhaka) · 2026-03-02 03:00 UTC" in said
    assert "This server's weeks and months (leaderboards) now count in Asia/Dhaka." in said
    assert not [r for r in fake.interactions.values() if len(r.followups) > 0]  # no warning

    assert await _tick(bot) == []  # 08:00 local: not yet
    clock.set(AT_NINE + timedelta(seconds=10))
    (first_id,) = await _tick(bot)
    (first,) = fake.posts_in(CHANNEL)  # POST /channels/{id}/messages, no interaction
    assert first["embeds"][0]["title"].startswith("Parallelism \\_basics\\_ · Question ")
    assert first["embeds"][0]["footer"]["text"] == "0 answered"
    assert [b["custom_id"] for b in buttons(first)] == [
        f"quiz:a:{first_id}:{i}" for i in range(len(buttons(first)))
    ]
    post = await bot.app.store.post(first_id)
    assert post is not None and post.message_ref == f"{CHANNEL}:{first['id']}"
    assert post.schedule_id is not None
    assert await _tick(bot) == []  # the same minute again: the date is taken

    reply = await bot.reply(await bot.click(first["id"], await bot.right_label(first_id), by=ALICE))
    assert reply.ephemeral and reply.embed["title"] == "✅ Right!"
    assert "in a row" not in reply.embed["footer"]["text"]  # one day is no streak yet

    clock.set(AT_NINE + timedelta(days=1, seconds=5))
    (second_id,) = await _tick(bot)
    # Yesterday's message is now its reveal: buttons disabled, the right one green.
    revealed = fake.messages[first["id"]]
    assert all(b["disabled"] for b in buttons(revealed))
    assert revealed["embeds"][0]["footer"]["text"] == "1 answered · 100% got it right"
    old = await bot.app.store.post(first_id)
    assert old is not None and not old.is_open
    second = fake.posts_in(CHANNEL)[1]
    assert buttons(second)[0]["custom_id"] == f"quiz:a:{second_id}:0"

    right = await bot.right_label(second_id)
    reply = await bot.reply(await bot.click(second["id"], right, by=ALICE))
    assert reply.embed["footer"]["text"] == (
        "Your score this season: 2 points · 2 of 2 right · 🔥 2 days in a row"
    )
    bob = await bot.reply(await bot.click(second["id"], right, by=BOB))
    assert "in a row" not in bob.embed["footer"]["text"]  # Bob missed Monday

    show = await bot.run("quizadmin", "show", subgroup="schedule", by=ADMIN)
    assert show.embed["title"] == "Daily questions"
    assert show.embed["description"] == (
        f"<#{CHANNEL}>: every day at 09:00 (Asia/Dhaka) · deck Parallelism \\_basics\\_\n"
        "Next question: Wednesday 2026-03-04 09:00 (Asia/Dhaka) · 2026-03-04 03:00 UTC"
    )


async def test_a_post_whose_answer_was_lost_is_sent_once(
    make_bot: BotFactory, fake: FakeDiscord
) -> None:
    """Discord stored the message but the answer was a 502: discord.py sends it again with
    the same nonce and `enforce_nonce`, so Discord returns the first message, not a second."""
    clock = ManualClock(MONDAY)
    bot = await make_bot(clock=clock)
    await bot.run(
        "quizadmin",
        "set",
        subgroup="schedule",
        by=ADMIN,
        time="9:00",
        timezone="Asia/Dhaka",
        deck="Basics",
    )
    fake.lose_post_answers = 1
    clock.set(AT_NINE + timedelta(seconds=10))
    (post_id,) = await _tick(bot)
    sent = [data for channel, data in fake.channel_posts if channel == str(CHANNEL)]
    assert len(sent) == 2 and sent[0]["nonce"] == sent[1]["nonce"]  # tried twice, one nonce
    assert all(data["enforce_nonce"] for data in sent)
    (only,) = fake.posts_in(CHANNEL)
    post = await bot.app.store.post(post_id)
    assert post is not None and post.message_ref == f"{CHANNEL}:{only['id']}"


async def test_a_channel_the_bot_cannot_post_in(make_bot: BotFactory, fake: FakeDiscord) -> None:
    """The schedule is set for another channel, one the bot may not post in: the date is
    recorded as failed with Discord's reason, the admin gets a DM, `show` says so."""
    clock = ManualClock(MONDAY)
    bot = await make_bot(clock=clock)
    fake.forbidden_channels.add(str(OTHER.id))
    set_ = await bot.run(
        "quizadmin",
        "set",
        subgroup="schedule",
        by=ADMIN,
        time="09:00",
        timezone="Asia/Dhaka",
        channel=OTHER,
        days="weekdays",
    )
    assert set_.embed["description"].startswith(
        f"**Daily question set for <#{OTHER.id}>: Monday to Friday at 09:00 (Asia/Dhaka)"
    )

    clock.set(AT_NINE)
    report = await bot.app.services.scheduler.tick()
    assert report.posted == [] and len(report.failed) == 1
    assert fake.posts_in(OTHER.id) == []
    reason = "Discord answered 403 Missing Access: the bot may not see or post in the channel"
    (dm,) = fake.dms_to(ADMIN.id)
    assert dm["content"].startswith(
        f"The daily question for <#{OTHER.id}> could not be posted: {reason}. "
    )
    assert dm["allowed_mentions"] == {"parse": []}
    assert await bot.app.store.open_post_in_channel(SERVER, str(OTHER.id)) is None  # discarded

    show = await bot.run("quizadmin", "show", subgroup="schedule", by=ADMIN)
    assert (
        f"⚠️ The question of 2026-03-02 could not be posted: {reason}" in (show.embed["description"])
    )

    # The admin takes no DMs, the channel is deleted: still recorded, nothing breaks.
    fake.closed_dms.add(str(ADMIN.id))
    fake.gone_channels.add(str(OTHER.id))
    clock.set(AT_NINE + timedelta(days=1))
    report = await bot.app.services.scheduler.tick()
    assert len(report.failed) == 1
    show = await bot.run("quizadmin", "show", subgroup="schedule", by=ADMIN)
    assert (
        "⚠️ The question of 2026-03-03 could not be posted: Discord answered 404 Unknown "
        "Channel: the channel is gone, or the bot is no longer in the server"
    ) in show.embed["description"]
    assert len(fake.dms_to(ADMIN.id)) == 1


async def test_now_off_and_the_permission_note(make_bot: BotFactory, fake: FakeDiscord) -> None:
    clock = ManualClock(MONDAY)
    bot = await make_bot(clock=clock)
    lacking = discord.Permissions(view_channel=True, use_application_commands=True)
    record = await bot.command(
        "quizadmin",
        "set",
        subgroup="schedule",
        by=ADMIN,
        time="21:30",
        timezone="Europe/London",
        app_permissions=lacking,
    )
    await bot.reply(record)
    await fake.until(lambda: len(record.followups) == 1)
    note = record.followups[0]
    assert note["flags"] == 64
    assert note["content"].startswith(
        "Note: I lack Send Messages, Embed Links in this channel, so the daily question cannot"
    )

    now = await bot.run("quizadmin", "now", subgroup="schedule", by=ADMIN)
    assert now.ephemeral and now.data["content"] == "Posted the schedule's next question."
    (first,) = fake.posts_in(CHANNEL)
    first_id = int(buttons(first)[0]["custom_id"].split(":")[2])
    post = await bot.app.store.post(first_id)
    assert post is not None and post.message_ref == f"{CHANNEL}:{first['id']}"

    await bot.run("quizadmin", "now", subgroup="schedule", by=ADMIN)  # the next one
    assert len(fake.posts_in(CHANNEL)) == 2
    assert all(b["disabled"] for b in buttons(fake.messages[first["id"]]))  # revealed

    fake.forbidden_channels.add(str(CHANNEL))
    refused = await bot.run("quizadmin", "now", subgroup="schedule", by=ADMIN)
    assert refused.data["content"].startswith(
        f"Could not post in <#{CHANNEL}>: Discord answered 403 Missing Access"
    )
    fake.forbidden_channels.clear()

    off = await bot.run("quizadmin", "off", subgroup="schedule", by=ADMIN)
    assert off.data["content"] == (
        f"The daily question in <#{CHANNEL}> is off. Turn it on again with /quizadmin schedule set."
    )
    again = await bot.run("quizadmin", "off", subgroup="schedule", by=ADMIN)
    assert again.data["content"] == (
        "There is no daily question in this channel. "
        "Set one with /quizadmin schedule set time: timezone:."
    )
    show = await bot.run("quizadmin", "show", subgroup="schedule", by=ADMIN)
    assert show.embed["description"] == (
        "No daily question is scheduled in this server. "
        "Set one with /quizadmin schedule set time: timezone:."
    )
    bad = await bot.run(
        "quizadmin", "set", subgroup="schedule", by=ADMIN, time="25:00", timezone="UTC"
    )
    assert (
        bad.data["content"] == "“25:00” is not a time. Use the 24-hour HH:MM, like 09:05 or 17:30."
    )
    zone = await bot.run(
        "quizadmin", "set", subgroup="schedule", by=ADMIN, time="09:00", timezone="Asia/Dhakka"
    )
    assert zone.data["content"].startswith("“Asia/Dhakka” is not a time zone I know. Did you mean")


async def test_time_zone_autocomplete(bot: DiscordBot) -> None:
    assert zones_matching("") == list(COMMON_ZONES)
    assert zones_matching("dhaka") == ["Asia/Dhaka"]
    new = zones_matching("new y")
    assert new[0] == "America/New_York"
    assert len(zones_matching("a")) == 25

    record = await bot.fake.dispatch_interaction(
        bot.command_payload(
            "quizadmin",
            "set",
            subgroup="schedule",
            by=ADMIN,
            focused="timezone",
            time="09:00",
            timezone="london",
        )
    )
    await bot.fake.until(lambda: bool(record.callbacks))
    body = record.callbacks[0][1]
    assert body["type"] == 8
    assert body["data"]["choices"] == [{"name": "Europe/London", "value": "Europe/London"}]
