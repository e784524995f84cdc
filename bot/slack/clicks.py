"""Button clicks: a value read back into one core call, and a private reply; then one metrics
sample and one log line per click.

Values are parsed by `actions`; one that names no open post and choice is a stale click.
Acknowledged clicks wait in a `Backlog` for their turn, so answering a burst never delays
the acks of the clicks still arriving.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot import clicklog
from bot.clicklog import DONE, failed
from bot.clicklog import Handled as Handled  # re-exported: the listeners type their results
from bot.core.actor import Actor
from bot.core.errors import QuizError
from bot.core.quiz import Quiz
from bot.core.store import AnswerStatus
from bot.locales import text
from bot.metrics import Metrics
from bot.slack import actions, blocks
from bot.slack.posts import Posts
from bot.slack.replies import BUG, private


@dataclass(frozen=True)
class Click:
    actor: Actor
    value: object
    """The button's `value` as sent: untrusted."""
    client: AsyncWebClient
    respond: AsyncRespond | None


def record(
    metrics: Metrics, actor: Actor | None, value: object, result: Handled | str, arrived: float
) -> None:
    """One click, from its request's arrival (`time.monotonic()`) to its reply being sent:
    the metrics and a log line (`clicklog.record`). `result`: what the click did, or the
    failure `guarded` reported (its post read off the button's value)."""
    if isinstance(result, str):
        result = Handled(failed(None if result == BUG else result), actions.post_id_of(value))
    clicklog.record(metrics, "slack", actor, result, arrived)


ANSWERING = 4
"""Clicks answered at once. Each is a database transaction (on SQLite, in a thread that
competes with the event loop for the GIL) and a response_url post: more at once answer no
faster, and the acks still waiting on the event loop are what they slow down."""
PATIENCE = 2.0
"""The longest a click's answer waits, from the click's arrival, for the acks to be done."""
LULL = 0.05
"""How long no request must have come or gone before answering starts: a burst's requests
arrive in waves, and a gap between two waves is not the end of the burst."""


class Backlog:
    """Acknowledged clicks waiting for their answer: at most `limit` worked on at once, and
    none started while a request is still waiting for its ack (`acking`) or in the `lull`
    after one, unless the click has waited `patience` seconds since it arrived (so steady
    traffic still gets answers).

    A transaction in a worker thread holds the GIL for milliseconds at a time, and the event
    loop waits for it at every system call: answering while acks are due is what made
    the acks of a burst slow. Order is kept (asyncio's semaphore is first come, first
    served), and `finished` tells shutdown when the last taken click has been answered."""

    def __init__(
        self, limit: int = ANSWERING, patience: float = PATIENCE, lull: float = LULL
    ) -> None:
        self._slots = asyncio.Semaphore(limit)
        self._patience = patience
        self._lull = lull
        self._last = 0.0
        """When a request last came or went (`time.monotonic()`)."""
        self._turns: dict[object, list[Any]] = {}
        """Per person: a lock their clicks take in turn, and how many hold or want it."""
        self._pending = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._acking = 0
        self._acked = asyncio.Event()
        self._acked.set()

    @property
    def pending(self) -> int:
        """Clicks acknowledged and not yet answered (being answered, or waiting)."""
        return self._pending

    @contextlib.contextmanager
    def acking(self) -> Iterator[None]:
        """Around the handling of a request until its ack is sent (HTTP mode)."""
        self._acking += 1
        self._acked.clear()
        self._last = time.monotonic()
        try:
            yield
        finally:
            self._acking -= 1
            self._last = time.monotonic()
            if not self._acking:
                self._acked.set()

    async def run(
        self, work: Callable[[], Awaitable[None]], arrived: float, who: object = None
    ) -> None:
        """Runs `work` in its turn; `arrived`: the click's arrival (`time.monotonic()`).

        The clicks of one `who` (a person; None: no one in particular) are answered one
        after another, in the order they came: a second click never overtakes the first,
        which stands."""
        self._pending += 1
        self._idle.clear()
        turn = self._turns.setdefault(who, [asyncio.Lock(), 0])
        turn[1] += 1
        try:
            async with turn[0] if who is not None else contextlib.nullcontext(), self._slots:
                await self._lull_or_patience(arrived + self._patience)
                await work()
        finally:
            turn[1] -= 1
            if not turn[1]:
                del self._turns[who]
            self._pending -= 1
            if not self._pending:
                self._idle.set()

    async def _lull_or_patience(self, deadline: float) -> None:
        """Returns once no ack is due and none was for `lull` seconds, or at `deadline`."""
        while (now := time.monotonic()) < deadline:
            if not self._acked.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._acked.wait(), deadline - now)
            elif (quiet := time.monotonic() - self._last) < self._lull:
                await asyncio.sleep(min(self._lull - quiet, deadline - now))
            else:
                return

    async def finished(self, seconds: float) -> bool:
        """Waits, up to `seconds`, until every click taken has been answered."""
        try:
            await asyncio.wait_for(self._idle.wait(), seconds)
        except TimeoutError:
            return False
        return True


class Clicks:
    def __init__(self, quiz: Quiz, posts: Posts) -> None:
        self._quiz = quiz
        self._posts = posts

    async def answer(self, click: Click) -> Handled:
        """A choice on a posted question: right or wrong, privately; the first click stands."""
        parsed = actions.parse_post(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        result = await self._quiz.answer(click.actor, parsed.post_id, parsed.shown)
        new = result.status is AnswerStatus.NEW
        if new:
            self._posts.answered(click.client, parsed.post_id)
        await private(click.respond, blocks.answer_reply(result))
        return Handled(result.status.value, parsed.post_id, result.correct if new else None)

    async def switch_locale(self, click: Click) -> Handled:
        """The reply to a click again, in the deck's other language (replaces the reply)."""
        parsed = actions.parse_locale(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        result = await self._quiz.my_answer(click.actor, parsed.post_id, parsed.locale)
        await private(click.respond, blocks.answer_reply(result), replace=True)
        return Handled("done", parsed.post_id)

    async def run_answer(self, click: Click) -> Handled:
        """A choice in a private run: feedback, then the next question or the summary."""
        parsed = actions.parse_run(click.value)
        if parsed is None:
            raise QuizError("stale_click")
        feedback = await self._quiz.run_answer(
            click.actor, parsed.run_id, parsed.question_id, parsed.shown
        )
        await private(click.respond, blocks.feedback_reply(feedback), replace=True)
        if feedback.duplicate:
            return Handled("duplicate")
        return Handled("new", correct=feedback.answer.correct)

    async def reset(self, click: Click) -> Handled:
        """The confirm button of `/quiz reset`: a new season, once (the button carries the
        season it was shown for; the actor's admin flag is checked again for this click)."""
        confirms = actions.parse_reset(click.value)
        if confirms is None:
            raise QuizError("stale_click")
        season = await self._quiz.reset(click.actor, confirms)
        message = text(await self._quiz.ui_locale(click.actor), "reset.done", season=season)
        await private(click.respond, blocks.text_reply(message), replace=True)
        return DONE

    async def cancel_reset(self, click: Click) -> Handled:
        message = text(await self._quiz.ui_locale(click.actor), "reset.cancelled")
        await private(click.respond, blocks.text_reply(message), replace=True)
        return DONE

    async def unknown(self, click: Click) -> Handled:
        """A button this bot does not know (an old version's, or a forged one)."""
        raise QuizError("stale_click")
