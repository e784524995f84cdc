"""Posting a question, the one way every caller does it.

A post is stored before its message is sent (the click buttons carry its id), so a message
that never landed must not leave the post open: it is withdrawn, once, here. A message that
did land is recorded with its post, tried again a few times if the database refuses (a post
with no stored message can be neither redrawn nor revealed).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot.domain.clock import Clock
from bot.domain.post import PostView
from bot.service.answering import Answering

log = logging.getLogger("quizbot.posts")

RECORD_AGAIN_AFTER = (0.5, 1.0, 2.0)
"""Seconds to wait before each new try at storing a sent message's ref."""

Send = Callable[[PostView], Awaitable[str | None]]
"""Sends the question message; its ref ("channel:message"), or None when it is not known
(a Discord interaction reply whose message did not come back)."""


class Publishing:
    def __init__(self, answering: Answering, clock: Clock) -> None:
        self._answering = answering
        self._clock = clock

    async def publish(self, view: PostView, send: Send) -> str | None:
        """Sends the question and stores where it landed; if sending raised, the post is
        withdrawn (it must not stay the channel's open post) and the error goes on."""
        try:
            ref = await send(view)
        except Exception:
            await self.withdraw(view.post.id)
            raise
        if ref is not None:
            await self._record(view.post.id, ref)
        return ref

    async def _record(self, post_id: int, ref: str) -> None:
        """`set_message`, tried again after `RECORD_AGAIN_AFTER`; the last error goes on
        (the caller's post is then open with no stored message: a game withdraws it)."""
        for wait in (*RECORD_AGAIN_AFTER, None):
            try:
                await self._answering.set_message(post_id, ref)
                return
            except Exception as error:
                if wait is None:
                    raise
                log.warning(
                    "post %s was sent but not recorded (%r); trying again in %s s",
                    post_id,
                    error,
                    wait,
                )
                await self._clock.sleep(wait)

    async def withdraw(self, post_id: int) -> None:
        """Closes a post whose message was never sent, without a reveal; best effort."""
        try:
            await self._answering.withdraw(post_id)
        except Exception:
            log.exception("could not withdraw post %s, whose message was never sent", post_id)
