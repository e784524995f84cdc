"""Open question messages: the coalesced "N answered" redraw and the reveal, in turn.

Both platforms rate-limit message edits per channel, so many clicks on one post become one
redraw every `interval` seconds (`Refresher`). A redraw and the reveal of one post never
interleave: both hold the post's lock, and a redraw that gets the lock after the post closed
draws nothing. Otherwise a redraw that waits out a rate limit could land after the reveal and
bring the buttons back. The edits themselves are the platform's (`MessageEditor`). A redraw
the platform refused for now is tried again until the count shows what is stored
(`bot.service.refresh`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from bot.domain.clock import Clock
from bot.domain.post import PostView, Reveal
from bot.service.answering import Answering
from bot.service.ports import StoreUnavailable
from bot.service.refresh import Refresher, TryLater

log = logging.getLogger("quizbot.posts")

Fallback = Callable[[Reveal], Awaitable[bool]]
"""Shows a reveal some other way (a new message, the command's reply); False if it could not."""


class MessageEditor(Protocol):
    """How a platform edits a question message it sent (Slack: with one workspace's token)."""

    async def redraw(self, view: PostView) -> None:
        """Draws the open post again (its count). Raises `TryLater` when the platform refused
        for now (a rate limit, a 5xx, no answer), so it is tried again; any other failure
        (the message gone) is logged, as the reveal will meet it too."""
        ...

    async def reveal(self, reveal: Reveal) -> str | None:
        """Edits the message into its reveal: None when done, else why not (gone, no access),
        so the caller can show the reveal some other way."""
        ...


@dataclass
class _Live:
    """A post this process draws: its lock, and the editor of the click that last counted."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    editor: MessageEditor | None = None


class LivePosts:
    """At most `keep` posts are remembered; the oldest idle ones are forgotten first."""

    def __init__(
        self, answering: Answering, clock: Clock, interval: float = 3.0, keep: int = 1000
    ) -> None:
        self._answering = answering
        self._refresher: Refresher[int] = Refresher(self._redraw, clock, interval)
        self._live: OrderedDict[int, _Live] = OrderedDict()
        self._keep = keep

    def answered(self, post_id: int, editor: MessageEditor) -> None:
        """A click counted: the count is redrawn soon, once for many clicks."""
        self._entry(post_id).editor = editor
        self._refresher.touch(post_id)

    async def reveal(
        self, reveal: Reveal, editor: MessageEditor, fallback: Fallback | None = None
    ) -> str | None:
        """Shows the reveal: the question message edited (buttons gone), else `fallback`.
        None when shown; else why the edit failed (`no_message` when none was stored)."""
        failure = await self._edit_reveal(reveal, editor)
        if failure is None or fallback is None:
            return failure
        try:
            shown = await fallback(reveal)
        except Exception as error:
            log.warning("showing the reveal of %s failed: %r", reveal.view.post.id, error)
            shown = False
        return None if shown else failure

    async def _edit_reveal(self, reveal: Reveal, editor: MessageEditor) -> str | None:
        post = reveal.view.post
        self._refresher.cancel(post.id)
        entry = self._entry(post.id)
        async with entry.lock:
            try:
                if not post.message_ref:
                    return "no_message"
                return await editor.reveal(reveal)
            finally:
                self._live.pop(post.id, None)

    async def flush(self) -> None:
        """Waits for the redraws still pending (shutdown, tests)."""
        await self._refresher.flush()

    def _entry(self, post_id: int) -> _Live:
        entry = self._live.get(post_id)
        if entry is None:
            entry = self._live[post_id] = _Live()
            idle = [k for k, e in self._live.items() if not e.lock.locked()]
            for old in idle[: max(0, len(self._live) - self._keep)]:
                del self._live[old]
        self._live.move_to_end(post_id)
        return entry

    async def _redraw(self, post_id: int) -> None:
        entry = self._live.get(post_id)
        if entry is None or entry.editor is None:
            return
        async with entry.lock:
            try:
                view = await self._answering.view(post_id)  # read inside the lock: closed since?
            except StoreUnavailable as error:
                raise TryLater("the database is unavailable") from error
            if view.post.is_open and view.post.message_ref:
                await entry.editor.redraw(view)
