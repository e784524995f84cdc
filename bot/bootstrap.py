"""The composition root: the one place that wires config, decks, store, clock and adapters."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import random
import signal
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from bot.config import Config, SetupError
from bot.decks.loading import DeckReport, load_decks
from bot.decks.model import DeckLibrary
from bot.domain.clock import Clock, SystemClock
from bot.observability import clicklog
from bot.observability.ops import ops_listener
from bot.presentation.locales import LOCALES
from bot.presentation.report_messages import digest_messages
from bot.service.answering import Answering
from bot.service.authoring import Authoring
from bot.service.boards import Boards
from bot.service.catalog import Catalog
from bot.service.deliveries import Deliveries
from bot.service.games import Games
from bot.service.live_posts import LivePosts
from bot.service.membership import Membership
from bot.service.operations import Operations, OperationsStore
from bot.service.ports import QuizStore
from bot.service.problem_digest import ProblemDigest
from bot.service.process_state import ProcessState
from bot.service.publishing import Publishing
from bot.service.review import Review
from bot.service.runs import Runs
from bot.service.scheduler import Scheduler
from bot.service.schedules import Schedules
from bot.service.services import Capabilities, Services
from bot.service.supervision import Faults, Supervisor

log = logging.getLogger("quizbot")


class DeckError(Exception):
    """No deck loaded and some had problems: nothing to start with, every problem listed."""

    def __init__(self, report: DeckReport) -> None:
        super().__init__("\n".join(str(p) for p in report.problems))
        self.report = report


def load_library(config: Config) -> DeckLibrary:
    """The configured and shipped decks. A deck with a problem is logged (file, line) and left
    out, so one broken file does not stop the others; with none left, nothing starts."""
    report = load_decks(config.question_paths, config.shipped_decks)
    if not report.ok:
        if not report.decks:
            raise DeckError(report)
        log.warning(
            report.left_out(),
            extra={"event": "decks_left_out", "problems": len(report.problems)},
        )
    return DeckLibrary(report.decks)


GC_THRESHOLDS = (50_000, 50, 100)
"""The collector's thresholds once the heap is settled (Python's are 700, 10, 10). A
200-click burst allocates about a million objects; with the defaults the bot paused for a
young collection every 700 of them and for older ones every few thousand (1 to 2 ms each,
a full one 10 to 16 ms), mostly finding nothing: a click's garbage is freed by reference
counting, not in cycles. With these, a handful of young collections a burst and a full one
every few hundred bursts; cyclic garbage still goes, later. Measured side by side (bench
children taking 16 bursts of 200 clicks in turns): Discord's private answer p50 1.41x the
bare client's against 1.62x before, p99 1.47x against 1.79x."""


def settle_heap() -> None:
    """What start-up made (decks, modules, the app) lives as long as the process: out of the
    collector's sight, a full collection in a burst of clicks took 10-50 ms here, not 100-250
    ms; and the collector runs less often from then on (`GC_THRESHOLDS`). `quizbot run`
    calls this once the app is built."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def capabilities(
    store: QuizStore,
    decks: DeckLibrary,
    clock: Clock,
    *,
    rng: random.Random | None = None,
    config_default: str | None = None,
    ui_locales: tuple[str, ...] = LOCALES,
    load: Callable[[], DeckReport] | None = None,
) -> Capabilities:
    """The quiz's capabilities on one store, each given only the ports it uses (the store
    is every port). `rng` is shared, so one seed fixes a question and its order."""
    catalog = Catalog(
        store,
        decks,
        ui_locales=ui_locales,
        rng=rng or random.Random(),
        config_default=config_default,
        load=load,
    )
    answering = Answering(catalog, clock, store, store, store)
    return Capabilities(
        catalog=catalog,
        answering=answering,
        boards=Boards(catalog, clock, store, store, store, store),
        membership=Membership(catalog, clock, store),
        runs=Runs(catalog, clock, store, store, store),
        review=Review(catalog, clock, store, store, store),
        authoring=Authoring(catalog, clock, store, store),
        publishing=Publishing(answering, clock),
    )


@dataclass(frozen=True)
class App:
    """One process as the composition root holds it: the services the adapters get, and the
    store they never see (closed here, probed by `/healthz`, read by tests)."""

    services: Services
    store: QuizStore

    async def close(self) -> None:
        clicklog.flush()  # the last clicks' lines, held back while clicks came (clicklog)
        await self.store.close()


def build_digest(
    store: QuizStore,
    core: Capabilities,
    clock: Clock,
    deliveries: Deliveries,
    faults: Faults | None = None,
) -> ProblemDigest:
    """The daily summary of problem reports, written by `digest_messages`."""
    return ProblemDigest(
        core.catalog, clock, store, store, store, deliveries, digest_messages, faults
    )


def build_scheduler(
    store: QuizStore,
    core: Capabilities,
    clock: Clock,
    deliveries: Deliveries,
    **options: Any,
) -> Scheduler:
    """The daily-question loop; `options` as `Scheduler` takes them (`catch_up_hours`,
    `close_after_hours`, `digest`, `faults`, `interval`)."""
    return Scheduler(
        core.catalog,
        clock,
        core.answering,
        core.publishing,
        deliveries,
        store,
        store,
        store,
        **options,
    )


def build_games(
    store: QuizStore,
    core: Capabilities,
    clock: Clock,
    deliveries: Deliveries,
    rng: random.Random | None = None,
) -> Games:
    return Games(
        core.catalog, clock, core.answering, core.publishing, deliveries, store, store, store, rng
    )


def build_schedules(store: QuizStore, core: Capabilities, clock: Clock) -> Schedules:
    return Schedules(
        core.catalog, clock, core.answering, core.publishing, store, store, store, store
    )


def wire(config: Config, store: QuizStore, library: DeckLibrary, clock: Clock) -> Services:
    """Every service of a process, each built once, on `store`."""
    from bot.storage.engine import store_engine
    from bot.storage.url import database_url

    core = capabilities(
        store,
        library,
        clock,
        config_default=config.default_deck,
        load=lambda: load_decks(config.question_paths, config.shipped_decks),
    )
    deliveries = Deliveries()
    faults = Faults(clock, logging.getLogger("quizbot.scheduler"))
    timing = config.file.schedule
    scheduler = build_scheduler(
        store,
        core,
        clock,
        deliveries,
        catch_up_hours=timing.catch_up_hours,
        close_after_hours=timing.close_after_hours,
        digest=build_digest(store, core, clock, deliveries, faults),
        faults=faults,
    )
    url = database_url(config.database_url, config.base_dir)
    return Services(
        config=config,
        clock=clock,
        catalog=core.catalog,
        answering=core.answering,
        boards=core.boards,
        membership=core.membership,
        runs=core.runs,
        review=core.review,
        authoring=core.authoring,
        publishing=core.publishing,
        schedules=build_schedules(store, core, clock),
        scheduler=scheduler,
        games=build_games(store, core, clock, deliveries),
        deliveries=deliveries,
        state=ProcessState(clock, store),
        live_posts=functools.partial(LivePosts, core.answering, clock),
        installations=lambda: store_engine(url),
    )


async def build_app(
    config: Config,
    *,
    clock: Clock | None = None,
    store: QuizStore | None = None,
    library: DeckLibrary | None = None,
) -> App:
    """Builds the app; tests pass their own clock, store or decks."""
    from bot.storage.sql import open_store
    from bot.storage.url import database_url

    library = library or load_library(config)
    clock = clock or SystemClock()
    if store is None:
        store = await open_store(database_url(config.database_url, config.base_dir))
    return App(wire(config, store, library, clock), store)


@contextlib.asynccontextmanager
async def operations(config: Config) -> AsyncIterator[Operations]:
    """The command line's use-cases (`quizbot report`, `forget`, `export --server`) on the
    configured database, which is opened only when one of them needs it."""
    from bot.storage.export import export_server
    from bot.storage.sql import open_store
    from bot.storage.url import database_url

    url = database_url(config.database_url, config.base_dir)
    opened: list[QuizStore] = []

    async def store() -> OperationsStore:
        opened.append(await open_store(url))
        return opened[-1]

    try:
        yield Operations(store, functools.partial(export_server, url))
    finally:
        for one in opened:
            await one.close()


class NothingToRun(Exception):
    """`quizbot run` with no platform enabled: the message says what to set."""


def enabled_platforms(config: Config) -> list[str]:
    return [
        name
        for name, on in (
            ("slack", config.slack_enabled),
            ("discord", config.discord_enabled),
        )
        if on
    ]


def nothing_to_run_message(config: Config) -> str:
    where = str(config.source) if config.source else "config.toml (copy config.example.toml)"
    hints = []
    slack, discord = config.file.slack.enabled, config.file.discord.enabled
    secrets = config.secrets
    if slack is False and (secrets.slack_bot_token or secrets.slack_client_id):
        hints.append(
            f"Slack credentials are set in the environment, but {where} has "
            "[slack] enabled = false."
        )
    elif slack is None and (secrets.slack_bot_token or secrets.slack_client_id):
        needs = (
            "SLACK_APP_TOKEN with SLACK_BOT_TOKEN or SLACK_CLIENT_ID"
            if config.file.slack.mode == "socket"
            else "SLACK_SIGNING_SECRET with SLACK_BOT_TOKEN or SLACK_CLIENT_ID"
        )
        hints.append(f"Slack {config.file.slack.mode} mode needs {needs} in the environment.")
    elif slack is None and (secrets.slack_app_token or secrets.slack_signing_secret):
        hints.append(
            f"{'SLACK_APP_TOKEN' if secrets.slack_app_token else 'SLACK_SIGNING_SECRET'} is "
            "set, but Slack also needs SLACK_BOT_TOKEN (the Bot User OAuth Token, xoxb-...), "
            "or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET for OAuth distribution."
        )
    if discord is False and secrets.discord_token:
        hints.append(f"DISCORD_TOKEN is set, but {where} has [discord] enabled = false.")
    return "\n".join(
        [
            "No platform is enabled, so there is nothing to run.",
            *hints,
            "To run on Slack: export SLACK_BOT_TOKEN and SLACK_APP_TOKEN (Socket Mode), or set "
            f'[slack] enabled = true and mode = "http" in {where} and export '
            "SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET.",
            "To run on Discord: export DISCORD_TOKEN.",
            "To take the quiz in this terminal without any chat account: quizbot play",
        ]
    )


def check_platforms(config: Config) -> None:
    """Checks every enabled platform's secrets before anything starts (SetupError)."""
    names = enabled_platforms(config)
    if not names:
        raise NothingToRun(nothing_to_run_message(config))
    if "slack" in names:
        from bot.slack.runner import check_setup as check_slack

        check_slack(config)
    if "discord" in names:
        from bot.discord.runner import check_setup as check_discord

        check_discord(config)


async def run_platforms(app: App) -> None:
    """Runs every enabled platform in this process, with the game loop and the scheduler.
    A platform that stops is started again; one that cannot work as configured stops the
    process (`PlatformStopped`, or the SetupError of its first start)."""
    config = app.services.config
    check_platforms(config)
    names = enabled_platforms(config)
    reload_on_sighup(app.services.catalog)
    ops = config.file.ops
    try:
        async with contextlib.AsyncExitStack() as stack:
            if ops.enabled:
                await stack.enter_async_context(
                    ops_listener(app.store.writable, app.services.metrics, ops.host, ops.port)
                )
            await _run_each(app, names)
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None


def reload_on_sighup(catalog: Catalog) -> None:
    """`kill -HUP <pid>` reloads the decks (where the platform has signals)."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, AttributeError):
        loop.add_signal_handler(signal.SIGHUP, catalog.reload)


async def _run_each(app: App, names: list[str]) -> None:
    """The loops and the platforms side by side, each supervised: a fault in one never
    ends another (`bot.service.supervision`); only a platform that cannot work as
    configured ends them all, with its reason."""
    services = app.services
    supervisor = Supervisor(services.clock)
    async with asyncio.TaskGroup() as group:
        group.create_task(services.scheduler.run())
        group.create_task(services.games.run())
        if "slack" in names:
            from bot.slack.runner import run_slack

            group.create_task(
                supervisor.platform("Slack", lambda: run_slack(services), cannot_work)
            )
        if "discord" in names:
            from bot.discord.runner import run_discord

            group.create_task(
                supervisor.platform("Discord", lambda: run_discord(services), cannot_work)
            )


DISCORD_FATAL_CLOSES = {
    4004: "Discord refused DISCORD_TOKEN (gateway close 4004)",
    4010: "Discord refused the shard settings (gateway close 4010): check [discord] shard_ids",
    4011: "Discord requires sharding for this bot (gateway close 4011): set [discord] shard_count",
    4012: "Discord refused the gateway version (gateway close 4012): upgrade quizbot",
    4013: "Discord refused the gateway intents (gateway close 4013)",
    4014: "the bot asks for an intent not enabled in the Developer Portal (gateway close 4014)",
}
"""Gateway closes that no reconnect fixes (discord.py raises them from `connect`)."""


def cannot_work(error: BaseException, starts: int) -> str | None:
    """Why a platform whose task raised `error` cannot work as configured (the process
    ends), or None (it is started again). A SetupError says what a person must fix, except
    a restart's "cannot reach" (the network, which comes back); on Discord, a login refused,
    an intent the portal does not grant, or a gateway close no reconnect fixes."""
    if isinstance(error, SetupError):
        if starts > 0 and _network(error):
            return None
        return str(error)
    if "discord" in sys.modules:
        import discord

        if isinstance(error, discord.LoginFailure | discord.PrivilegedIntentsRequired):
            return str(error) or type(error).__name__
        if isinstance(error, discord.ConnectionClosed) and error.code in DISCORD_FATAL_CLOSES:
            return DISCORD_FATAL_CLOSES[error.code]
    return None


def _network(error: BaseException) -> bool:
    """Whether `error` came of a connection that failed or a platform that answered 5xx (its
    cause or context, however deep, is an OSError, a timeout, an aiohttp error, or has an
    HTTP `status` of 500 or more)."""
    import aiohttp

    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, OSError | TimeoutError | aiohttp.ClientError):
            return True
        status = getattr(cause, "status", None)
        if isinstance(status, int) and status >= 500:
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False
