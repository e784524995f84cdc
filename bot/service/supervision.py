"""Background work that no fault may end: the loops (games, daily questions, the problem
summary) and the platforms, each supervised.

A loop's step that fails is tried again after a backoff that doubles up to a cap and starts
over after a success. Its failures are logged so that an outage says what failed and why
without a traceback every tick (`Faults`): the first failure with its cause (a traceback only
for an error nobody expected), then at most one line a minute saying how often it failed
since, and one line when it works again.

A platform whose task ends, returning or raising, is logged and started again after a
backoff, unless its error means it cannot work as configured (a token refused): then
`PlatformStopped` ends the process with that one-line reason, and the other tasks are
stopped as in any orderly stop (`quizbot run` says why), never silently.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from datetime import datetime
from typing import NoReturn

from bot.config import SetupError
from bot.domain.clock import Clock
from bot.service.delivery import DeliveryError
from bot.service.ports import StoreUnavailable

log = logging.getLogger("quizbot.supervision")

QUIET = 60.0
"""Seconds between two log lines about one thing that keeps failing."""


class PlatformStopped(SetupError):
    """A platform stopped for a reason a person must fix (its token refused, say): the
    process ends, and says this."""


@dataclass(frozen=True)
class Backoff:
    """How long to wait after failures in a row: `first`, doubling, at most `most`."""

    first: float
    most: float

    def after(self, failures: int) -> float:
        """Seconds to wait after the `failures`-th failure in a row (1: `first`)."""
        doubled: float = self.first * 2.0 ** min(max(failures - 1, 0), 30)
        return min(self.most, doubled)


EXPECTED = (StoreUnavailable, DeliveryError, OSError, TimeoutError)
"""Faults of the world, not of the code: logged by their reason, without a traceback."""


def reason(error: BaseException) -> str:
    """An error in words, as a log line gives it."""
    if isinstance(error, _Returned):
        return str(error)
    if isinstance(error, DeliveryError):
        return error.reason
    if isinstance(error, StoreUnavailable):
        return "the database is unavailable (locked, full, read-only or unreachable)"
    said = str(error)
    return f"{type(error).__name__}: {said}" if said else type(error).__name__


@dataclass
class _Failing:
    since: datetime
    count: int = 0
    logged_at: datetime | None = None


class Faults:
    """Failures of named things (a loop, a game, a schedule), logged without flooding."""

    def __init__(self, clock: Clock, logger: logging.Logger = log, quiet: float = QUIET) -> None:
        self._clock = clock
        self._log = logger
        self._quiet = quiet
        self._failing: dict[Hashable, _Failing] = {}

    def failing(self, key: Hashable) -> int:
        """How many times in a row `key` failed (0 once it worked)."""
        state = self._failing.get(key)
        return 0 if state is None else state.count

    def failed(
        self,
        key: Hashable,
        what: str,
        error: BaseException,
        then: str = "",
        *,
        verb: str = "failed",
    ) -> int:
        """Records a failure of `what` (named by `key`); logs it if it is the first in a row
        or the last line is `QUIET` seconds old, with what happens `then`. How many times in
        a row it failed."""
        now = self._clock.now()
        state = self._failing.setdefault(key, _Failing(now))
        state.count += 1
        extra = {"event": "background_failed", "task": what, "failures": state.count}
        if state.logged_at is None:
            unexpected = not isinstance(error, EXPECTED) and error.__traceback__ is not None
            self._log.log(
                logging.ERROR if unexpected else logging.WARNING,
                "%s %s: %s%s",
                what,
                verb,
                reason(error),
                then and f"; {then}",
                exc_info=error if unexpected else None,
                extra=extra,
            )
        elif (now - state.logged_at).total_seconds() >= self._quiet:
            self._log.warning(
                "%s still failing since %s (%d failures): %s%s",
                what,
                state.since.isoformat(timespec="seconds"),
                state.count,
                reason(error),
                then and f"; {then}",
                extra=extra,
            )
        else:
            return state.count
        state.logged_at = now
        return state.count

    def reset(self, key: Hashable) -> None:
        """Forgets `key`'s failures without a word (it ran well for a while since)."""
        self._failing.pop(key, None)

    def recovered(self, key: Hashable, what: str) -> None:
        """`what` works again: said once if it had failed."""
        state = self._failing.pop(key, None)
        if state is not None:
            self._log.info(
                "%s works again after %d failure(s) since %s",
                what,
                state.count,
                state.since.isoformat(timespec="seconds"),
                extra={"event": "background_recovered", "task": what, "failures": state.count},
            )


Step = Callable[[], Awaitable[object]]
CannotWork = Callable[[BaseException, int], str | None]
"""Given a platform's error and how many times it was started before, the one-line reason
it cannot work as configured (the process ends), or None (start it again)."""

PLATFORM_BACKOFF = Backoff(first=1.0, most=60.0)


class Supervisor:
    """Runs background work so that no fault ends it (see the module doc)."""

    def __init__(self, clock: Clock, faults: Faults | None = None) -> None:
        self.clock = clock
        self.faults = faults or Faults(clock)

    async def loop(self, what: str, step: Step, every: float, backoff: Backoff) -> NoReturn:
        """Runs `step` every `every` seconds until cancelled; after a failure, again after
        `backoff` instead."""
        while True:
            try:
                await step()
            except Exception as error:
                failures = self.faults.failing(what) + 1
                wait = max(every, backoff.after(failures))
                self.faults.failed(what, what, error, f"trying again in {wait:g} s")
                await self.clock.sleep(wait)
                continue
            self.faults.recovered(what, what)
            await self.clock.sleep(every)

    async def platform(
        self,
        what: str,
        run: Callable[[], Awaitable[None]],
        cannot_work: CannotWork,
        backoff: Backoff = PLATFORM_BACKOFF,
    ) -> NoReturn:
        """Runs `run` (a platform, which serves until cancelled) and starts it again
        whenever it ends, after `backoff` (starting over once it ran for `backoff.most`
        seconds). Raises `PlatformStopped` (or the first start's own SetupError) when
        `cannot_work` says it cannot work."""
        starts = 0
        failures = 0
        while True:
            began = self.clock.now()
            try:
                await run()
            except Exception as error:
                fatal = cannot_work(error, starts)
                if fatal is not None:
                    if starts == 0 and isinstance(error, SetupError):
                        raise  # as before: `quizbot run` says "cannot start: ..."
                    log.error(
                        "%s cannot run: %s",
                        what,
                        fatal,
                        extra={"event": "platform_stopped", "platform": what},
                    )
                    raise PlatformStopped(f"{what} stopped: {fatal}") from error
                outcome: BaseException = error
            else:
                outcome = _Returned("it ended by itself")
            starts += 1
            ran = (self.clock.now() - began).total_seconds()
            if ran >= backoff.most:  # it had been up a while: this is a new trouble
                failures = 0
                self.faults.reset(("platform", what))
            failures += 1
            wait = backoff.after(failures)
            then = f"starting it again in {wait:g} s"
            self.faults.failed(("platform", what), what, outcome, then, verb="stopped")
            await self.clock.sleep(wait)


class _Returned(Exception):
    """A platform's task that returned, which it never should while the bot runs."""
