"""Answering an interaction in time, and telling the user about refusals and failures.

Discord wants a first response within 3 s of the interaction. `in_time` runs the core call
and, only if it is still busy when the time budget is spent, acknowledges first (a deferral);
under load (a `Workload` of more than QUIET interactions) it acknowledges at once and the
call waits its turn. `send` and `update` then use the response or, once acknowledged, a
follow-up / an edit of the original. Every refusal (`QuizError`) becomes a private reply in
the user's language; anything else is logged and gets the generic apology, never Discord's
"interaction failed".
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import discord
from discord.utils import MISSING

from bot.core.errors import QuizError
from bot.discord import embeds as render
from bot.discord.identity import NotInGuild, actor
from bot.locales import FALLBACK, catalog, text
from bot.messages import error_text

if TYPE_CHECKING:
    from bot.discord.client import QuizClient

log = logging.getLogger("quizbot.discord")

T = TypeVar("T")

DEADLINE = 3.0
"""Discord's limit for the first response, counted from the interaction's creation."""
SPARE = 1.0
"""Kept for the deferral request itself."""
BUDGET = 1.0
"""The longest a core call may run before the interaction is acknowledged first."""

QUIET = 4
"""Interactions at work at once up to which a quick answer is waited for (one response, no
deferral); past it, every new one is acknowledged at once."""
ANSWERING = 4
"""Core calls run at once under load. Each is a database transaction (on SQLite, in a thread
that competes with the event loop for the GIL): more at once answer no faster, and the
acknowledgements still due on the event loop are what they slow down."""
PATIENCE = 2.0
"""The longest a call under load waits for the acknowledgements still due, from its start."""

_THINKING = "quizbot.thinking"
"""Set while a "thinking…" deferral is unresolved: whether it is ephemeral. The first
follow-up replaces that message and keeps its visibility, whatever the follow-up asks."""


class Workload:
    """The interactions being answered, so a burst is acknowledged first and answered after.

    Quiet (at most `quiet` at work): a core call gets the budget to finish, and its answer is
    the one response. Busy: a new interaction is acknowledged at once, one still waiting for
    its answer within the budget is acknowledged as soon as the crowd arrives, and the calls
    run at most `limit` at a time, none started while an acknowledgement is due (unless it
    has waited `patience` seconds, so steady traffic still gets answers)."""

    def __init__(
        self, quiet: int = QUIET, limit: int = ANSWERING, patience: float = PATIENCE
    ) -> None:
        self._quiet = quiet
        self._patience = patience
        self._slots = asyncio.Semaphore(limit)
        self._turns: dict[object, list[Any]] = {}
        """Per person: a lock their calls take in turn, and how many hold or want it."""
        self._active = 0
        self._crowded = asyncio.Event()
        self._unacked = 0
        self._acked = asyncio.Event()
        self._acked.set()

    @property
    def busy(self) -> bool:
        return self._crowded.is_set()

    @contextlib.contextmanager
    def taking(self) -> Iterator[Callable[[], None]]:
        """Around one interaction's `in_time`; what it yields is called once the interaction
        is acknowledged (leaving counts as acknowledged: the response follows at once)."""
        self._active += 1
        self._unacked += 1
        self._acked.clear()
        if self._active > self._quiet:
            self._crowded.set()
        due = [True]

        def acknowledged() -> None:
            if due:
                due.clear()
                self._unacked -= 1
                if not self._unacked:
                    self._acked.set()

        try:
            yield acknowledged
        finally:
            self._active -= 1
            if self._active <= self._quiet:
                self._crowded.clear()
            acknowledged()

    async def crowd(self) -> None:
        """Returns when more than `quiet` interactions are at work."""
        await self._crowded.wait()

    async def run(self, work: Awaitable[T], who: object = None) -> T:
        """`work` in its turn: a free slot, and no acknowledgement due (for `patience`).

        The calls of one `who` (a person; None: no one in particular) run one after
        another, in the order they came: a second click never overtakes the first."""
        started = time.monotonic()
        turn = self._turns.setdefault(who, [asyncio.Lock(), 0])
        turn[1] += 1
        try:
            async with turn[0] if who is not None else contextlib.nullcontext(), self._slots:
                wait = started + self._patience - time.monotonic()
                if not self._acked.is_set() and wait > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._acked.wait(), wait)
                return await work
        finally:
            turn[1] -= 1
            if not turn[1]:
                del self._turns[who]


def client_of(interaction: discord.Interaction) -> QuizClient:
    return cast("QuizClient", interaction.client)


def budget(interaction: discord.Interaction) -> float:
    """What is left of BUDGET, after the time the interaction took to reach us."""
    age = max(0.0, (discord.utils.utcnow() - interaction.created_at).total_seconds())
    return max(0.0, min(BUDGET, DEADLINE - SPARE - age))


async def in_time(
    interaction: discord.Interaction,
    work: Awaitable[T],
    *,
    ephemeral: bool = True,
    update: bool = False,
) -> T:
    """Awaits `work`, acknowledging the interaction first if it takes too long, or at once
    when many interactions are at work (then `work` waits its turn in the client's Workload).

    `update`: the reply will replace the clicked message (deferred update), else it will be
    a new message (thinking, private unless `ephemeral` is False).
    """
    load = client_of(interaction).workload
    with load.taking() as acknowledged:
        if load.busy or interaction.response.is_done():
            try:
                await acknowledge(interaction, ephemeral=ephemeral, update=update)
            except BaseException:
                if inspect.iscoroutine(work):
                    work.close()  # never started: no "never awaited" warning
                raise
            acknowledged()
            return await load.run(work, interaction.user.id)
        task = asyncio.ensure_future(work)
        crowd = asyncio.ensure_future(load.crowd())
        try:
            await asyncio.wait(
                {task, crowd}, timeout=budget(interaction), return_when=asyncio.FIRST_COMPLETED
            )
            if not task.done():
                await acknowledge(interaction, ephemeral=ephemeral, update=update)
                acknowledged()
        except BaseException:
            task.cancel()
            raise
        finally:
            crowd.cancel()
        return await task


async def acknowledge(interaction: discord.Interaction, *, ephemeral: bool, update: bool) -> None:
    if interaction.response.is_done():
        return
    try:
        if update:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)
            interaction.extras[_THINKING] = ephemeral
    except discord.HTTPException:
        log.warning("could not acknowledge interaction %s", interaction.id, exc_info=True)


async def send(
    interaction: discord.Interaction,
    *,
    content: str | None = None,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
    ephemeral: bool = True,
) -> int | None:
    """Sends a new message as the reply; returns its id when Discord says it."""
    shown = render.fit(embeds)
    body: Any = MISSING if content is None else render.clip(content, render.CONTENT)
    items: Any = MISSING if view is None else view
    if interaction.response.is_done():
        thinking_ephemeral = interaction.extras.pop(_THINKING, None)
        if thinking_ephemeral is not None and thinking_ephemeral != ephemeral:
            # Not a private reply in a public "thinking…" (or the reverse): drop it first,
            # so this follow-up is a message of its own, as visible as asked.
            await interaction.delete_original_response()
        message = await interaction.followup.send(
            content=body, embeds=shown, view=items, ephemeral=ephemeral, wait=True
        )
        return message.id
    response = await interaction.response.send_message(
        content=body, embeds=shown, view=items, ephemeral=ephemeral
    )
    return response.message_id


async def update(
    interaction: discord.Interaction,
    *,
    content: str | None = None,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
) -> None:
    """Replaces the message the clicked button is on (its buttons too; None removes them)."""
    shown = render.fit(embeds)
    body = None if content is None else render.clip(content, render.CONTENT)
    if interaction.response.is_done():
        await interaction.edit_original_response(content=body, embeds=shown, view=view)
    else:
        await interaction.response.edit_message(content=body, embeds=shown, view=view)


async def locale_of(interaction: discord.Interaction) -> str:
    """The caller's UI language; English when even that cannot be looked up."""
    try:
        return await client_of(interaction).app.quiz.ui_locale(actor(interaction))
    except Exception:
        return FALLBACK


def refusal_text(error: QuizError, locale: str) -> str:
    """The core's words for a refusal, in Discord's terms: `discord.error.<key>` replaces a
    string that names Slack's command syntax, and "admin" gets what it means here."""
    override = f"discord.error.{error.key}"
    if override in catalog(FALLBACK):
        return text(locale, override, **error.params)
    said = error_text(error, locale)
    if error.key == "admin_only":
        said = f"{said} {text(locale, 'discord.admin_hint')}"
    return said


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Tells the caller, privately, why nothing happened. Never raises."""
    try:
        if isinstance(error, NotInGuild):
            message = text(FALLBACK, "discord.guild_only")
        elif isinstance(error, QuizError):
            message = refusal_text(error, await locale_of(interaction))
        else:
            log.error("interaction %s failed", interaction.id, exc_info=error)
            message = text(await locale_of(interaction), "error.generic")
        await send(interaction, content=message, ephemeral=True)  # never public "thinking…"
    except Exception:
        log.exception("could not tell the caller of interaction %s what went wrong", interaction.id)
