"""Posting a question, the one way every caller does it.

A post is stored before its message is sent (the click buttons carry its id), so a message
that never landed must not leave the post open: it is withdrawn, once, here.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot.domain.post import PostView
from bot.service.quiz import Quiz

log = logging.getLogger("quizbot.posts")

Send = Callable[[PostView], Awaitable[str | None]]
"""Sends the question message; its ref ("channel:message"), or None when it is not known
(a Discord interaction reply whose message did not come back)."""


class Publishing:
    def __init__(self, quiz: Quiz) -> None:
        self._quiz = quiz

    async def publish(self, view: PostView, send: Send) -> str | None:
        """Sends the question and stores where it landed; if sending raised, the post is
        withdrawn (it must not stay the channel's open post) and the error goes on."""
        try:
            ref = await send(view)
        except Exception:
            await self.withdraw(view.post.id)
            raise
        if ref is not None:
            await self._quiz.set_message(view.post.id, ref)
        return ref

    async def withdraw(self, post_id: int) -> None:
        """Closes a post whose message was never sent, without a reveal; best effort."""
        try:
            await self._quiz.withdraw(post_id)
        except Exception:
            log.exception("could not withdraw post %s, whose message was never sent", post_id)
