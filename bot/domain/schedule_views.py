"""What `/quiz schedule set|show|off|now` answer with: plain records that presentation renders
(kept here, below the services, so presentation imports no service)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.decks.model import Deck
from bot.domain.post import PostView, Reveal
from bot.domain.records import SlotRecord
from bot.domain.schedule import Schedule, Slot


@dataclass(frozen=True)
class ScheduleInfo:
    """A schedule as `show` tells it."""

    schedule: Schedule
    deck: Deck | None
    """None when the deck is no longer loaded (its posts fail until it is back). Of a
    schedule that follows the server's default, the default now."""
    next: Slot
    last_slot: SlotRecord | None
    """The newest date the scheduler handled, in whatever status."""
    last_failure: SlotRecord | None
    """The newest failed date, unless a date posted since."""
    unconfirmed: SlotRecord | None = None
    """The newest date, when it was claimed long ago and never marked posted or failed."""

    @property
    def next_local(self) -> datetime:
        return self.next.at.astimezone(self.schedule.tz)

    @property
    def next_utc(self) -> datetime:
        return self.next.at


@dataclass(frozen=True)
class ScheduleSet:
    info: ScheduleInfo
    replaced: Schedule | None
    """The channel's earlier schedule, when this one replaced an enabled one."""
    locale: str


@dataclass(frozen=True)
class ScheduleList:
    items: list[ScheduleInfo]
    channel_id: str | None
    """The channel asked about, or None for the whole server."""
    locale: str


@dataclass(frozen=True)
class ScheduleOff:
    schedule: Schedule
    locale: str


@dataclass(frozen=True)
class ScheduleNow:
    """The question posted now, and the reveals shown in place of the schedule's earlier
    open posts."""

    schedule: Schedule
    view: PostView
    reveals: list[Reveal]
    locale: str
    failure: str | None = None
    """Why the question could not be sent (`DeliveryError.reason`); it was withdrawn."""
