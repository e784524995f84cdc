"""The port through which the scheduler reaches a platform: post, reveal, tell the admin.

Each adapter (Slack, Discord) implements `Delivery` with its own client; the scheduler takes
one per server-id prefix ("slack", "discord"), so one loop serves every platform.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from bot.domain.game import GameNews
from bot.domain.post import PostView, Reveal
from bot.domain.schedule import Schedule

log = logging.getLogger("quizbot.scheduler")


class DeliveryError(Exception):
    """The platform did not take a message: `reason` says why, in words (kept in English,
    like the platforms' own codes). A daily question's date is recorded as failed with it,
    shown by `schedule show` and told to the admin.

    Transient trouble (rate limits, 5xx, a dropped connection) is first retried by the
    platform's client; a plain DeliveryError is what still escaped, or a post whose fate is
    unknown (it may have landed). `ChannelRefused` is the kind no retry fixes.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ChannelRefused(DeliveryError):
    """The platform refused the channel itself: the bot is not in it, it is gone or
    archived, posting there is restricted, the app is not installed there or lost its
    token (Slack: `not_in_channel`, `channel_not_found`, `is_archived`, ...; Discord:
    Forbidden, NotFound). Nothing sent there can work until a person fixes it, so a game
    there ends (and its starter is told), where any other DeliveryError is tried again."""


class Delivery(Protocol):
    """Minimum methods a platform implements for scheduled posts."""

    async def post(self, view: PostView) -> str:
        """Sends the question to `view.post.channel_id`; returns the platform's message ref
        (Slack ts, Discord message id), which `Publishing` stores with `Answering.set_message`.
        Raises ChannelRefused if the channel refused it, DeliveryError for anything else."""
        ...

    async def reveal(self, reveal: Reveal) -> None:
        """Shows the closed post's public reveal (edits `reveal.view.post.message_ref`)."""
        ...

    async def announce(self, news: GameNews) -> None:
        """Posts a game's announcement, standings or results in its channel (raises
        ChannelRefused if the channel refused it, DeliveryError for anything else)."""
        ...

    async def notify_game_end(self, news: GameNews) -> None:
        """Tells a game's starter privately, in their language, why it ended early
        (`news.cause`, `news.reason`); best effort: an error here is logged and ignored."""
        ...

    async def notify_failure(self, schedule: Schedule, reason: str) -> None:
        """Tells the schedule's admin (`schedule.created_by`) that a post failed; best effort:
        an error here is logged and ignored."""
        ...

    async def admins(self, server_id: str) -> Sequence[str]:
        """Who the platform itself names as the server's admins (Slack: `[slack] admins`;
        Discord: the server's owner). The daily summary of problem reports goes to them and
        to whoever set a daily question there."""
        ...

    async def is_admin(self, server_id: str, user_id: str) -> bool:
        """Whether the platform says `user_id` administers the server now (the daily summary
        re-checks whoever set a daily question before telling them players' reports)."""
        ...

    def mention(self, user_id: str) -> str:
        """How a message given to `tell` names a user."""
        ...

    def fits(self, message: str) -> bool:
        """Whether `tell` can send `message` whole, once escaped for the platform."""
        ...

    async def tell(self, server_id: str, user_id: str, message: str) -> bool:
        """A direct message from the bot; True if it was sent. `message` is plain text that
        may hold `mention`s: the platform escapes the rest (what players typed is never markup).
        Best effort: an error is logged and gives False."""
        ...


async def show_reveal(delivery: Delivery, reveal: Reveal) -> None:
    """A closed post's reveal, shown by the platform; whatever it could not do is logged (the
    caller goes on to its next question either way)."""
    try:
        await delivery.reveal(reveal)
    except DeliveryError as error:
        log.info("reveal of post %s not shown: %s", reveal.view.post.id, error.reason)
    except Exception:
        log.exception("revealing post %s", reveal.view.post.id)
