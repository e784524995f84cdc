"""Discord in the App's metrics and logs, as Slack is: every click counted by outcome and
timed, every command counted by subcommand, unexpected errors counted, and one JSON
`click` line per click with its server, post, user, outcome and latency."""

from __future__ import annotations

import json
import logging

import pytest
from discord_harness import ADMIN, ALICE, BOB, GUILD_1, DiscordBot, eventually, with_button
from prometheus_client.parser import text_string_to_metric_families

from bot.observability import clicklog
from bot.observability.logs import JsonFormatter, Redactor
from bot.service.ports import StoreUnavailable

SERVER = f"discord:{GUILD_1}"
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def samples(bot: DiscordBot) -> Samples:
    """(sample name, sorted labels) -> value, from the App's exposition text."""
    out = {}
    for family in text_string_to_metric_families(bot.app.services.metrics.exposition().decode()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(found: Samples, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def click_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    """The `click` events, each as the JSON line `quizbot run` would write."""
    formatter = JsonFormatter(Redactor())
    clicklog.flush()  # lines are held back while clicks keep coming
    lines = [json.loads(formatter.format(r)) for r in caplog.records]
    return [line for line in lines if line.get("event") == "click"]


async def clicks_counted(bot: DiscordBot, n: int) -> None:
    """Waits for `n` clicks in the metrics: a click is recorded just after its reply."""

    async def counted() -> bool:
        return value(samples(bot), "quizbot_click_reply_seconds_count", platform="discord") >= n

    await eventually(counted)


async def test_clicks_and_commands_are_counted_and_logged(
    bot: DiscordBot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="quizbot")
    post_id, posted = await bot.post(deck="basics", question="all-reduce")
    message = posted.message_id or ""
    right = await bot.right_label(post_id)
    wrong = next(b["label"] for b in posted.buttons if b["label"] != right)

    alice = await bot.reply(await bot.click(message, right, by=ALICE))  # new, right
    bob = await bot.reply(await bot.click(message, wrong, by=BOB))  # new, wrong
    await bot.reply(await bot.click(message, wrong, by=ALICE))  # duplicate
    await bot.reply(await bot.click(bob.message_id or "", "বাংলায় দেখুন", by=BOB))  # done
    original = bot.fake.messages[message]
    for custom_id in ("quiz:a:987654321:1", "garbage"):  # no such post; no button of ours
        forged = bot.click_payload(with_button(original, custom_id), custom_id, by=BOB)
        await bot.reply(await bot.fake.dispatch_interaction(forged))  # stale, twice
    confirm = await bot.run("quizadmin", "reset", by=ADMIN)
    await bot.reply(await bot.click(confirm.message_id or "", "Cancel", by=ADMIN))  # done
    step = await bot.run("quiz", "start", by=BOB, deck="basics")
    await bot.reply(await bot.click(step.message_id or "", "A", by=BOB))  # new (a run)
    await bot.run("quiz", "close", by=ALICE)
    await bot.reply(await bot.click(message, right, by=ADMIN))  # closed
    await bot.run("quiz", "frobnicate", by=ALICE)  # a command Discord still shows
    await bot.run("quizadmin", "show", subgroup="schedule", by=ADMIN)
    assert alice.embed["title"] == "✅ Right!"
    await clicks_counted(bot, 9)

    found = samples(bot)
    clicks = {
        outcome: value(found, "quizbot_clicks_total", platform="discord", outcome=outcome)
        for outcome in ("new", "duplicate", "closed", "done", "stale", "busy", "refused", "error")
    }
    answers = {
        correct: value(found, "quizbot_answers_total", platform="discord", correct=correct)
        for correct in ("true", "false")
    }
    commands = {
        name: value(found, "quizbot_commands_total", platform="discord", command=name)
        for name in ("post", "reset", "start", "close", "unknown", "schedule")
    }
    replied = value(found, "quizbot_click_reply_seconds_count", platform="discord")
    print(f"\nDiscord after 9 clicks: clicks {clicks}, answers {answers}, commands {commands}")
    assert clicks == {
        "new": 3,
        "duplicate": 1,
        "closed": 1,
        "done": 2,
        "stale": 2,
        "busy": 0,
        "refused": 0,
        "error": 0,
    }
    assert answers["true"] + answers["false"] == 3  # the run's click: right or wrong
    assert answers["true"] >= 1 and answers["false"] >= 1
    assert commands == {
        "post": 1,
        "reset": 1,
        "start": 1,
        "close": 1,
        "unknown": 1,
        "schedule": 1,
    }
    assert replied == 9
    assert value(found, "quizbot_click_reply_seconds_sum", platform="discord") > 0
    assert not any(name == "quizbot_errors_total" for name, _ in found)

    lines = click_lines(caplog)
    assert len(lines) == 9
    for line in lines:
        assert line["logger"] == "quizbot.discord" and line["server"] == SERVER
        assert isinstance(line["latency_ms"], float | int) and line["latency_ms"] >= 0
    by_outcome = sorted(str(line["outcome"]) for line in lines)
    assert by_outcome == sorted(
        ["new"] * 3 + ["duplicate", "closed"] + ["done"] * 2 + ["stale"] * 2
    )
    first = lines[0]
    assert (first["user"], first["outcome"], first["post"]) == (str(ALICE.id), "new", post_id)
    assert {line["post"] for line in lines if line["outcome"] == "closed"} == {post_id}
    assert [line["post"] for line in lines if line["outcome"] == "stale"] == [987654321, None]


async def test_failures_are_counted_by_outcome_and_errors_by_where(
    bot: DiscordBot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="quizbot")
    post_id, posted = await bot.post(deck="basics", question="bubble")
    message = posted.message_id or ""

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("database on fire")

    async def unavailable(*args: object, **kwargs: object) -> None:
        raise StoreUnavailable

    monkeypatch.setattr(bot.app.services.answering, "answer", broken)
    await bot.reply(await bot.click(message, "A", by=BOB))  # error
    monkeypatch.setattr(bot.app.services.answering, "answer", unavailable)
    await bot.reply(await bot.click(message, "A", by=BOB))  # busy
    monkeypatch.setattr(bot.app.services.boards, "stats", broken)
    await bot.run("quiz", "stats", by=BOB)
    answer = posted.buttons[0]["custom_id"]
    in_dm = bot.as_dm(bot.click_payload(bot.fake.messages[message], answer, by=BOB))
    await bot.reply(await bot.fake.dispatch_interaction(in_dm))  # refused: no server
    await clicks_counted(bot, 3)

    found = samples(bot)
    for outcome, n in (("error", 1), ("busy", 1), ("refused", 1), ("new", 0)):
        assert value(found, "quizbot_clicks_total", platform="discord", outcome=outcome) == n
    assert value(found, "quizbot_errors_total", platform="discord", where="click") == 1
    assert value(found, "quizbot_errors_total", platform="discord", where="command") == 1
    assert value(found, "quizbot_commands_total", platform="discord", command="stats") == 1

    lines = click_lines(caplog)
    assert [(line["outcome"], line["post"]) for line in lines] == [
        ("error", post_id),
        ("busy", post_id),
        ("refused", post_id),
    ]
    assert [line["server"] for line in lines] == [SERVER, SERVER, None]
    assert lines[2]["user"] is None
