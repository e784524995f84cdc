"""Supervised background work (issue 32, Deliver 1): no loop's fault ends `quizbot run`, a
failing step is logged once with its cause and tried again with backoff, and a platform that
stops is started again, or ends the process with its reason when it cannot work. Driven by
the ManualClock; the database fails on demand (`FlakyStore`)."""

from __future__ import annotations

import asyncio
import itertools
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.bootstrap import build_app, cannot_work, run_platforms
from bot.config import SetupError, parse_config
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.game import NewsKind
from bot.service.delivery import DeliveryError
from bot.service.ports import StoreUnavailable
from bot.service.supervision import Backoff, Faults, PlatformStopped, Supervisor
from bot.storage.memory import MemoryStore
from tests import factories
from tests.core.flaky_store import FlakyStore, until
from tests.core.schedule_fakes import FakeDelivery

START = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)
log = logging.getLogger("quizbot.test_supervision")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


def lines(caplog: pytest.LogCaptureFixture, word: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if word in r.getMessage()]


def test_backoff_doubles_up_to_its_cap() -> None:
    backoff = Backoff(first=1.0, most=8.0)
    assert [backoff.after(n) for n in range(1, 7)] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert backoff.after(10_000) == 8.0


def test_a_failing_thing_is_logged_once_with_its_cause_then_once_a_minute(
    clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="quizbot.test_supervision")
    faults = Faults(clock, log)
    for _ in range(10):  # ten failures in 45 s: one line, the first, with its reason
        faults.failed("loop", "the loop", StoreUnavailable())
        clock.advance(timedelta(seconds=5))
    (first,) = lines(caplog, "the loop")
    assert first.getMessage() == (
        "the loop failed: the database is unavailable (locked, full, read-only or unreachable)"
    )
    assert first.levelno == logging.WARNING and first.exc_info is None  # expected: no traceback
    clock.advance(timedelta(seconds=15))
    faults.failed("loop", "the loop", StoreUnavailable())
    later = lines(caplog, "the loop")[-1].getMessage()
    assert later.startswith("the loop still failing since 2026-12-04T17:00:00+00:00 (11 failures)")
    faults.recovered("loop", "the loop")
    assert (
        lines(caplog, "the loop")[-1]
        .getMessage()
        .startswith("the loop works again after 11 failure(s)")
    )
    faults.recovered("loop", "the loop")  # said once
    assert len(lines(caplog, "the loop")) == 3


def test_an_unexpected_error_is_logged_with_its_traceback_once(
    clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    faults = Faults(clock, log)
    for _ in range(3):
        try:
            raise KeyError("boom")
        except KeyError as error:
            faults.failed("x", "the step", error)
    (line,) = lines(caplog, "the step")
    assert line.levelno == logging.ERROR and line.exc_info is not None


async def test_a_loop_whose_step_fails_backs_off_and_goes_on(clock: ManualClock) -> None:
    supervisor = Supervisor(clock, Faults(clock, log))
    ran: list[datetime] = []
    enough = asyncio.Event()

    async def step() -> None:
        ran.append(clock.now())
        if len(ran) in (2, 3, 4):  # three failures in a row
            raise DeliveryError("Slack answered internal_error")
        if len(ran) == 7:
            enough.set()

    task = asyncio.create_task(supervisor.loop("a loop", step, 1.0, Backoff(2.0, 5.0)))
    await asyncio.wait_for(enough.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(ran)]
    assert gaps[:6] == [1.0, 2.0, 4.0, 5.0, 1.0, 1.0]  # backoff after failures, reset on success


async def test_a_platform_that_stops_is_started_again(
    clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    supervisor = Supervisor(clock, Faults(clock, log))
    starts: list[datetime] = []
    up = asyncio.Event()

    async def platform() -> None:
        starts.append(clock.now())
        if len(starts) == 1:
            return  # stopped by itself
        if len(starts) == 2:
            raise ConnectionResetError("the socket dropped")
        up.set()
        await asyncio.Event().wait()

    task = asyncio.create_task(supervisor.platform("Slack", platform, cannot_work))
    await asyncio.wait_for(up.wait(), 5)
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [(b - a).total_seconds() for a, b in itertools.pairwise(starts)] == [1, 2]
    (said,) = lines(caplog, "Slack")  # the second stop, a second later, is not said again
    assert said.getMessage() == "Slack stopped: it ended by itself; starting it again in 1 s"


async def test_a_platform_that_cannot_work_ends_the_process_with_its_reason(
    clock: ManualClock,
) -> None:
    supervisor = Supervisor(clock, Faults(clock, log))

    async def refused_at_once() -> None:
        raise SetupError("Slack refused SLACK_BOT_TOKEN (invalid_auth): copy it again")

    with pytest.raises(SetupError, match="invalid_auth") as first:  # as `cannot start: ...`
        await supervisor.platform("Slack", refused_at_once, cannot_work)
    assert not isinstance(first.value, PlatformStopped)

    calls = 0

    async def revoked_later() -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ConnectionResetError("dropped")
        if calls == 2:  # the network is away as it restarts: tried again
            raise SetupError("cannot reach Slack") from OSError("unreachable")
        raise SetupError("Slack refused SLACK_BOT_TOKEN (token_revoked): reinstall the app")

    with pytest.raises(PlatformStopped) as stopped:
        await supervisor.platform("Slack", revoked_later, cannot_work)
    assert str(stopped.value) == (
        "Slack stopped: Slack refused SLACK_BOT_TOKEN (token_revoked): reinstall the app"
    )
    assert calls == 3


async def test_no_fault_of_the_database_ends_quizbot_run(
    clock: ManualClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game loop and the scheduler run beside a platform on a database that refuses
    (finding 1: a refused claim of a game's step). Before, the claim's error left the game
    loop and its TaskGroup cancelled Slack with it: `quizbot run` exited."""
    flaky = FlakyStore(MemoryStore())
    config = parse_config(
        "[slack]\nenabled = true\n\n[ops]\nenabled = false\n",
        "test.toml",
        tmp_path,
        {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_APP_TOKEN": "xapp-test"},
    )
    library = factories.library(factories.deck("demo", n=3))
    app = await build_app(config, clock=clock, store=flaky.as_store(), library=library)
    delivery = FakeDelivery()
    up = asyncio.Event()
    slack_cancelled = asyncio.Event()

    async def run_slack(services: object) -> None:
        app.services.deliveries.register("slack", delivery)
        up.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            slack_cancelled.set()
            raise

    monkeypatch.setattr("bot.slack.runner.run_slack", run_slack)
    monkeypatch.setattr("bot.bootstrap.reload_on_sighup", lambda catalog: None)
    await app.services.games.start(Actor("slack:T1", "host"), "C1", "demo", 1, 10)
    flaky.failing.update(claim_game=-1, enabled_schedules=-1)
    running = asyncio.create_task(run_platforms(app))
    try:
        await asyncio.wait_for(up.wait(), 5)
        await until(
            lambda: flaky.calls["claim_game"] >= 5 and flaky.calls["enabled_schedules"] >= 3
        )
        assert not running.done() and not slack_cancelled.is_set()
        flaky.failing.clear()  # the database is back
        await until(lambda: bool(delivery.news))
        assert [n.kind for n in delivery.news] == [NewsKind.STARTED]
        assert not running.done() and not slack_cancelled.is_set()
    finally:
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
    assert slack_cancelled.is_set()  # only by the stop itself


def test_a_platform_refused_for_good_ends_quizbot_run_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Slack's task drops (started again a second later), then Slack refuses the token: the
    process ends, saying why in one line, with no traceback."""
    from bot.cli import main

    starts = 0

    async def run_slack(app: object) -> None:
        nonlocal starts
        starts += 1
        if starts == 1:
            raise ConnectionResetError("the socket dropped")
        raise SetupError("Slack refused SLACK_BOT_TOKEN (token_revoked): reinstall the app")

    monkeypatch.setattr("bot.slack.runner.run_slack", run_slack)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-test")
    config = tmp_path / "config.toml"
    config.write_text("[slack]\nenabled = true\n\n[ops]\nenabled = false\n")
    assert main(["run", "--config", str(config)]) == 1
    said = capsys.readouterr().err
    assert said.splitlines()[-1] == (
        "quizbot stopped: Slack stopped: Slack refused SLACK_BOT_TOKEN (token_revoked): "
        "reinstall the app"
    )
    assert "Traceback" not in said and starts == 2
