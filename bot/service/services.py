"""What the adapters receive: the services of one process, built once by `bot.bootstrap`.

A frozen record: an adapter turns platform input into calls on these capabilities and
renders the results. It holds no store (an adapter cannot reach the database; the import
contract in pyproject.toml forbids importing `bot.storage` too) and builds no service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.config import Config
from bot.domain.clock import Clock
from bot.observability.metrics import Metrics
from bot.service.admission import Admission
from bot.service.answering import Answering
from bot.service.authoring import Authoring
from bot.service.boards import Boards
from bot.service.catalog import Catalog
from bot.service.deliveries import Deliveries
from bot.service.games import Games
from bot.service.live_posts import LivePosts
from bot.service.membership import Membership
from bot.service.process_state import ProcessState
from bot.service.publishing import Publishing
from bot.service.review import Review
from bot.service.runs import Runs
from bot.service.scheduler import Scheduler
from bot.service.schedules import Schedules

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine


@dataclass(frozen=True)
class Capabilities:
    """The quiz's capabilities on one store, decks and clock: what every front end calls
    (and the service tests build alone, with `bot.bootstrap.capabilities`)."""

    catalog: Catalog
    answering: Answering
    boards: Boards
    membership: Membership
    runs: Runs
    review: Review
    authoring: Authoring
    publishing: Publishing
    """The one way a question is posted (the commands, schedules, the scheduler, games)."""


@dataclass(frozen=True)
class Services:
    config: Config
    clock: Clock
    catalog: Catalog
    answering: Answering
    boards: Boards
    membership: Membership
    runs: Runs
    review: Review
    authoring: Authoring
    publishing: Publishing
    schedules: Schedules
    scheduler: Scheduler
    games: Games
    deliveries: Deliveries
    """Each platform registers its `Delivery` here when it is up: the scheduler, games and
    the problem digest post through it."""
    state: ProcessState
    live_posts: Callable[[float], LivePosts]
    """The open question messages of one platform, redrawn at most every `interval` s."""
    installations: Callable[[], AsyncEngine] | None = None
    """Opens the engine of Slack's OAuth installation store (the project's database)."""
    metrics: Metrics = field(default_factory=Metrics)
    admission: Admission = field(default_factory=Admission)
    """The clicks being answered, on every platform of this process."""
