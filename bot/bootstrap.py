"""The composition root: the one place that wires config, decks, store, clock and adapters."""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, cast

from bot.config import Config
from bot.decks.loading import DeckReport, load_decks
from bot.decks.model import DeckLibrary
from bot.domain.clock import Clock, SystemClock
from bot.observability import clicklog
from bot.presentation.locales import LOCALES
from bot.presentation.report_messages import digest_messages
from bot.presentation.suggestion_messages import outcome_text
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
from bot.service.suggestions import Suggestions
from bot.service.supervision import Faults

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
        suggestions=build_suggestions(store, core, clock, deliveries),
        installations=lambda: store_engine(url),
    )


def build_suggestions(
    store: QuizStore, core: Capabilities, clock: Clock, deliveries: Deliveries
) -> Suggestions:
    """Questions the team writes, on the store's database through their own narrow port
    (in memory for a store that is not SQL); the servers' own decks live in the catalog's
    library."""
    from bot.storage.memory_suggestions import MemorySuggestions
    from bot.storage.sql import SqlStore
    from bot.storage.suggestions import SqlSuggestions

    port = SqlSuggestions(store) if isinstance(store, SqlStore) else MemorySuggestions()
    catalog = core.catalog
    return Suggestions(
        port, lambda: catalog.decks, clock, deliveries, outcome_text, store.question_tallies
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
    app = App(wire(config, store, library, clock), store)
    await app.services.suggestions.refresh()
    return app


@contextlib.asynccontextmanager
async def operations(config: Config) -> AsyncIterator[Operations]:
    """The command line's use-cases (`quizbot report`, `forget`, `export --server`) on the
    configured database, which is opened only when one of them needs it."""
    from bot.storage.export import export_server
    from bot.storage.sql import SqlStore, open_store
    from bot.storage.suggestions import SqlSuggestions
    from bot.storage.url import database_url

    url = database_url(config.database_url, config.base_dir)
    opened: list[QuizStore] = []

    async def store() -> OperationsStore:
        opened.append(await open_store(url))
        return opened[-1]

    try:
        yield Operations(
            store,
            functools.partial(export_server, url),
            lambda opened: SqlSuggestions(cast(SqlStore, opened)),
            SystemClock(),
        )
    finally:
        for one in opened:
            await one.close()
