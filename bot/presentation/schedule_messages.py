"""What `/quiz schedule ...` replies say, in the reader's language, before any platform markup.

Like `bot.presentation.messages`: plain-text pieces that each adapter turns into Block Kit
or an embed.
Channels are shown through the adapter's `channel` function (on Slack and Discord both,
`<#C123>` / `<#123>`), so a reply names the channel the way the platform links it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.decks.model import pick
from bot.domain.records import SlotStatus
from bot.domain.schedule import Days, Schedule
from bot.domain.schedule_views import (
    ScheduleInfo,
    ScheduleList,
    ScheduleNow,
    ScheduleOff,
    ScheduleSet,
)
from bot.presentation.locales import digits, text

ChannelRef = Callable[[str], str]
"""A channel id as the platform mentions it."""
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@dataclass(frozen=True)
class ScheduleMessage:
    title: str
    lines: list[str]

    @property
    def fallback(self) -> str:
        """Title and lines, one per line (a notification's text, or a plain reply)."""
        return "\n".join([self.title, *self.lines])


def days_text(locale: str, days: Days) -> str:
    return text(locale, f"schedule.days.{days}")


def local_when(locale: str, when: datetime) -> str:
    """ "Thursday 2026-03-05 09:00" in `when`'s own zone (Bengali digits in bn)."""
    weekday = text(locale, f"schedule.weekday.{WEEKDAYS[when.weekday()]}")
    return f"{weekday} {digits(locale, when.strftime('%Y-%m-%d %H:%M'))}"


def _deck(info: ScheduleInfo, locale: str) -> str:
    if info.deck is None:
        return text(locale, "schedule.deck_missing", deck=info.schedule.deck_id)
    title = pick(info.deck.title, locale)
    if info.schedule.deck_id is None:  # follows the server's default deck as it changes
        return text(locale, "schedule.deck_default", deck=title)
    return title


def _when(schedule: Schedule, locale: str) -> dict[str, str]:
    return {
        "days": days_text(locale, schedule.days),
        "time": digits(locale, schedule.time),
        "zone": schedule.zone,
    }


def schedule_lines(info: ScheduleInfo, locale: str, channel: ChannelRef) -> list[str]:
    """One schedule: what, when, the next post, and how the last one went if it went wrong."""
    s = info.schedule
    lines = [
        text(
            locale,
            "schedule.line",
            channel=channel(s.channel_id),
            deck=_deck(info, locale),
            **_when(s, locale),
        ),
        text(
            locale,
            "schedule.next",
            local=local_when(locale, info.next_local),
            zone=s.zone,
            utc=digits(locale, info.next_utc.strftime("%Y-%m-%d %H:%M")),
        ),
    ]
    last = info.last_slot
    if info.last_failure is not None:
        lines.append(
            text(
                locale,
                "schedule.failed",
                date=digits(locale, info.last_failure.local_date.isoformat()),
                error=info.last_failure.error or "?",
            )
        )
    if last is not None and last.status is SlotStatus.SKIPPED:
        lines.append(
            text(locale, "schedule.skipped", date=digits(locale, last.local_date.isoformat()))
        )
    if info.unconfirmed is not None:
        lines.append(
            text(
                locale,
                "schedule.stuck",
                date=digits(locale, info.unconfirmed.local_date.isoformat()),
            )
        )
    return lines


def schedule_set_message(result: ScheduleSet, channel: ChannelRef) -> ScheduleMessage:
    loc = result.locale
    info = result.info
    s = info.schedule
    title = text(
        loc, "schedule.set", channel=channel(s.channel_id), deck=_deck(info, loc), **_when(s, loc)
    )
    lines = schedule_lines(info, loc, channel)[1:]
    if result.replaced is not None:
        lines.append(text(loc, "schedule.replaced", **_when(result.replaced, loc)))
    lines.append(text(loc, "schedule.timezone", zone=s.zone))
    return ScheduleMessage(title, lines)


def schedule_list_message(result: ScheduleList, channel: ChannelRef) -> ScheduleMessage:
    loc = result.locale
    if not result.items:
        return ScheduleMessage(text(loc, "schedule.title"), [text(loc, "schedule.none")])
    lines = [line for info in result.items for line in schedule_lines(info, loc, channel)]
    return ScheduleMessage(text(loc, "schedule.title"), lines)


def schedule_off_message(result: ScheduleOff, channel: ChannelRef) -> str:
    return text(result.locale, "schedule.off", channel=channel(result.schedule.channel_id))


def schedule_now_text(result: ScheduleNow) -> str:
    """The private acknowledgement; the question itself is posted like any other."""
    return text(result.locale, "schedule.now")


def delivery_failure_text(schedule: Schedule, reason: str, locale: str, channel: ChannelRef) -> str:
    """What `Delivery.notify_failure` tells the admin."""
    return text(locale, "schedule.notify", channel=channel(schedule.channel_id), reason=reason)
