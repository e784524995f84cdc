"""The live game on Slack through faults (issue 32, findings 3 and 4), end to end through the
real bolt app and the fake Slack: a question whose chat.postMessage Slack answers 500 or
`internal_error` is withdrawn and asked again (the game goes on); a channel that stops taking
the bot (`not_in_channel`) ends the game and its starter gets a DM saying why; and the answer
of an open game question shows nowhere (`/quiz stats`, `/quiz leaderboard`) until its
reveal.

The fake Slack has no way yet to fail one call on demand: `web_faults` patches its Web API
handler for this module's tests (to fold into the shared fault plans of tests/slack)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp import web

from bot.domain.clock import ManualClock
from tests.slack.conftest import TEST_DECK, Slack, SlackFactory
from tests.slack.fake_slack import Call, FakeSlack
from tests.slack.harness import all_text, buttons

START = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)

Faults = dict[str, list[int | str]]
"""Web API method -> what its next calls get, in order: an HTTP status (with `ok: false`,
`internal_error`), or an error code answered `ok: false` with 200."""


@pytest.fixture
def web_faults(monkeypatch: pytest.MonkeyPatch) -> Iterator[Faults]:
    """A fault plan for the fake Slacks this test starts (before `make_slack` starts one)."""
    plan: Faults = {}
    passed_on = FakeSlack._api

    async def api(self: FakeSlack, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if not plan.get(method):
            return await passed_on(self, request)
        fault = plan[method].pop(0)
        params: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            params.update(await request.json())
        elif request.can_read_body:
            params.update(dict(await request.post()))
        if isinstance(params.get("blocks"), str):
            params["blocks"] = json.loads(params["blocks"])
        status = fault if isinstance(fault, int) else 200
        error = fault if isinstance(fault, str) else "internal_error"
        answer = {"ok": False, "error": error}
        await self._add(self.calls, Call(method, params, None, status, answer))
        return web.json_response(answer, status=status)

    monkeypatch.setattr(FakeSlack, "_api", api)
    yield plan


async def started(make_slack: SlackFactory, rounds: int = 2) -> tuple[Slack, ManualClock]:
    clock = ManualClock(START)
    slack = await make_slack(clock=clock)
    assert slack.bot.delivery is not None
    # What run_slack does once up:
    slack.app.services.deliveries.register("slack", slack.bot.delivery)
    sent = await slack.tester.command(f"game {TEST_DECK} {rounds} 10", user="U1")
    await slack.fake.reply(sent.key)
    await slack.app.services.games.tick()  # the announcement
    return slack, clock


def in_channel(slack: Slack) -> list[Call]:
    """chat.postMessage calls to C1, those Slack refused too."""
    return [c for c in slack.fake.api("chat.postMessage") if c.params["channel"] == "C1"]


def questions(slack: Slack) -> list[dict[str, Any]]:
    """The question messages Slack took (those with buttons), as sent."""
    return [c.params for c in in_channel(slack) if c.status == 200 and c.answer and c.answer["ok"]]


async def click(slack: Slack, post_id: int, shown: int, user: str) -> str:
    sent = await slack.tester.click(
        f"quiz_answer_{'ABCDE'[shown]}", f"p:{post_id}:{shown}", user=user
    )
    assert sent.status == 200
    return all_text((await slack.fake.reply(sent.key))["blocks"])


def post_id_of(message: dict[str, Any]) -> int:
    return int(buttons(message["blocks"])[0]["value"].split(":")[1])


@pytest.mark.parametrize("fault", [500, "internal_error"])
async def test_a_question_slack_failed_to_post_is_asked_again_and_the_game_goes_on(
    web_faults: Faults, make_slack: SlackFactory, fault: int | str
) -> None:
    """Before, any failed chat.postMessage of a game's question stopped the game, silently."""
    slack, clock = await started(make_slack)
    web_faults["chat.postMessage"] = [fault]
    clock.advance(timedelta(seconds=5))
    await slack.app.services.games.tick()
    refused, shown = in_channel(slack)[1:]
    assert refused.status == (500 if fault == 500 else 200) and shown.answer["ok"]  # type: ignore[index]
    first_try = await slack.app.store.post(post_id_of(refused.params))
    assert first_try is not None and first_try.closed_at is not None  # withdrawn
    (question,) = [q for q in questions(slack) if buttons(q["blocks"])]
    assert "Question 1 of 2" in all_text(question["blocks"])
    post_id = post_id_of(question)
    said = await click(slack, post_id, await slack.right_shown(post_id), "U2")
    assert said.startswith("🔒 Locked in: ")
    for _ in range(2):
        clock.advance(timedelta(seconds=10))
        await slack.app.services.games.tick()
        clock.advance(timedelta(seconds=5))
        await slack.app.services.games.tick()
    results = all_text(questions(slack)[-1]["blocks"])
    assert "🏆 Final results" in results and "🥇 <@U2> · 1" in results


async def test_a_channel_that_stops_taking_the_bot_ends_the_game_and_its_starter_is_told(
    make_slack: SlackFactory,
) -> None:
    slack, clock = await started(make_slack, rounds=3)
    clock.advance(timedelta(seconds=5))
    await slack.app.services.games.tick()
    (question,) = [q for q in questions(slack) if buttons(q["blocks"])]
    post_id = post_id_of(question)
    await click(slack, post_id, await slack.right_shown(post_id), "U2")
    slack.fake.refuse_channels.add("C1")  # the bot was removed from the channel
    clock.advance(timedelta(seconds=10))
    await slack.app.services.games.tick()
    assert await slack.app.store.running_game("slack:T1", "C1") is None
    (dm,) = [c for c in slack.fake.api("chat.postMessage") if c.params["channel"] == "U1"]
    assert dm.params["text"] == (
        "Your quiz game in <#C1> ended after 1 of 3 questions: I cannot post there (Slack "
        "answered not_in_channel (the bot is not in the channel; invite it with /invite "
        "@quizbot)). Once that is fixed, start a new game."
    )
    tried = len(in_channel(slack))
    clock.advance(timedelta(seconds=30))
    await slack.app.services.games.tick()
    assert len(in_channel(slack)) == tried  # over: nothing more is sent there


async def test_an_open_game_question_shows_in_no_stats_and_no_leaderboard(
    make_slack: SlackFactory,
) -> None:
    slack, clock = await started(make_slack, rounds=1)
    clock.advance(timedelta(seconds=5))
    await slack.app.services.games.tick()
    (question,) = [q for q in questions(slack) if buttons(q["blocks"])]
    post_id = post_id_of(question)

    async def seen(words: str) -> str:
        sent = await slack.tester.command(words, user="U2")
        return all_text((await slack.fake.reply(sent.key))["blocks"])

    before = [await seen("stats"), await seen("leaderboard all")]
    await click(slack, post_id, await slack.right_shown(post_id), "U2")
    assert [await seen("stats"), await seen("leaderboard all")] == before  # nothing to learn
    clock.advance(timedelta(seconds=10))
    await slack.app.services.games.tick()
    after = [await seen("stats"), await seen("leaderboard all")]
    assert after != before and "<@U2> · 1" in after[1]
