"""Operations in HTTP mode: `/healthz` and Prometheus `/metrics` on the ops listener (and not
on the public events port), and one structured log line per click."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.observability import clicklog, metrics
from bot.storage import open_store
from tests.reliability.conftest import (
    RIGHT,
    STALE,
    WRONG,
    LiveFactory,
    Shot,
    proxied_postgres,
    reply_text,
    send_click,
    settle,
)


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """(sample name, sorted labels) -> value, from the exposition text."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(
    found: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_healthz_metrics_and_a_log_line_per_click(
    make_live: LiveFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="quizbot")
    live = await make_live()
    status, content_type, body = await live.get("/healthz")
    assert (status, json.loads(body)) == (200, {"ok": True, "database": True})
    assert content_type.startswith("application/json")

    post_id = await live.post()
    right = [Shot(f"UR{i}", 0, f"right-{i}") for i in range(3)]
    wrong = [Shot(f"UW{i}", 1 + i % 2, f"wrong-{i}") for i in range(2)]
    again = [Shot("UR0", 2, "again")]  # a second click: the first answer stands
    before = set(asyncio.all_tasks())
    for shot in right + wrong + again:
        await send_click(live.tester, post_id, shot)
    stale = await live.tester.click("quiz_answer_A", "p:999999:0", user="US")
    await settle(before)
    for shot in right:
        assert RIGHT in reply_text(await live.reply(shot.key))
    for shot in wrong:
        assert WRONG in reply_text(await live.reply(shot.key))
    assert "You already answered A" in reply_text(await live.reply("again"))
    assert STALE in reply_text(await live.reply(stale.key))

    status, content_type, body = await live.get("/metrics")
    assert status == 200
    assert content_type == metrics.CONTENT_TYPE
    found = samples(body)
    clicks = {
        outcome: value(found, "quizbot_clicks_total", platform="slack", outcome=outcome)
        for outcome in ("new", "duplicate", "stale", "busy", "error")
    }
    answers = {
        correct: value(found, "quizbot_answers_total", platform="slack", correct=correct)
        for correct in ("true", "false")
    }
    replied = value(found, "quizbot_click_reply_seconds_count", platform="slack")
    print(f"\n/metrics after 7 clicks: clicks {clicks}, answers {answers}, latencies {replied}")
    assert clicks == {"new": 5, "duplicate": 1, "stale": 1, "busy": 0, "error": 0}
    assert answers == {"true": 3, "false": 2}
    assert replied == 7

    clicklog.flush()  # lines are held back while clicks keep coming
    lines = [r for r in caplog.records if getattr(r, "event", None) == "click"]
    assert len(lines) == 7
    by_user = {r.user: r for r in lines}  # type: ignore[attr-defined]
    assert by_user["UR1"].outcome == "new" and by_user["UR1"].post == post_id  # type: ignore[attr-defined]
    assert by_user["US"].outcome == "stale"  # type: ignore[attr-defined]
    for record in lines:
        assert record.server == "slack:T1"  # type: ignore[attr-defined]
        assert isinstance(record.latency_ms, float | int) and record.latency_ms >= 0  # type: ignore[attr-defined]
    assert sorted(r.outcome for r in lines) == sorted(  # type: ignore[attr-defined]
        ["new"] * 5 + ["duplicate", "stale"]
    )


async def test_nothing_operational_on_the_public_events_port(make_live: LiveFactory) -> None:
    """Before, `/healthz` and `/metrics` (answer counts, database state) were served beside
    `/slack/events`, on the port published to the internet."""
    live = await make_live()
    for path in ("/healthz", "/metrics"):
        status, _, _ = await live.get(path, port=live.base)
        assert status == 404, path
        status, _, _ = await live.get(path)
        assert status == 200, path


async def test_healthz_is_503_while_postgresql_is_cut(
    make_live: LiveFactory, pg_schema: str
) -> None:
    proxy, url = await proxied_postgres(pg_schema)
    try:
        live = await make_live(store=await open_store(url, schema=pg_schema))
        up = await live.get("/healthz")
        await proxy.cut()
        down = await live.get("/healthz")
        await proxy.restore()
        back = await live.get("/healthz")
        print(f"\n/healthz: up {up[0]}, PostgreSQL cut {down[0]}, restored {back[0]}")
        assert (up[0], json.loads(up[2])) == (200, {"ok": True, "database": True})
        assert (down[0], json.loads(down[2])) == (503, {"ok": False, "database": False})
        assert back[0] == 200
    finally:
        await proxy.cut()


async def test_metrics_count_slash_commands_by_subcommand(make_live: LiveFactory) -> None:
    live = await make_live()
    await live.post()
    typed = ["leaderboard", "LeaderBoard week", "", "frobnicate now", "decks"]
    sent = [await live.tester.command(text) for text in typed]
    for each in sent:
        assert each.status == 200
        await live.reply(each.key)  # the command's work (and its count) is done

    status, _, body = await live.get("/metrics")
    assert status == 200
    found = samples(body)
    counted = {
        name: value(found, "quizbot_commands_total", platform="slack", command=name)
        for name in ("post", "leaderboard", "help", "decks", "unknown", "frobnicate")
    }
    print(f"\n/metrics after 6 slash commands: {counted}")
    assert counted == {
        "post": 1,
        "leaderboard": 2,
        "help": 1,
        "decks": 1,
        "unknown": 1,
        "frobnicate": 0,
    }
