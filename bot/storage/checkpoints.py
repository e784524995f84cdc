"""SQLite: the write-ahead log copied into the database file by a thread of its own, soon
after writes, instead of by the commit that happens to fill the log (SQLite's own
checkpoint, which held every click of a burst queued behind that commit).

A checkpoint that fails (a full disk, a read-only or failing file) loses nothing: the
answers stay in the log, which readers see. It is said once, tried again after a pause that
doubles up to a minute, with or without new writes, and said once more when it works again.
Nothing here can stop the store or the bot.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import Engine

from bot.storage.trouble import describe

log = logging.getLogger("quizbot.storage")

CHECKPOINT_EVERY = 1.0
"""Seconds between checkpoints while writes come in (12 ms here on a quiet disk, several
times that under load, that no click waits for)."""
PAUSE_MOST = 60.0
"""Seconds, at most, between two tries of a checkpoint that keeps failing."""


class Checkpoints:
    """Passive checkpoints of `engine`'s file (a reader engine: no BEGIN) on `thread`, one
    CHECKPOINT_EVERY after writes for all the writes in between. A passive checkpoint waits
    for no one and keeps no one waiting: the writer goes on appending to the log. Call
    `after_write` on the event loop; `close` before shutting the thread down."""

    def __init__(self, engine: Engine, thread: ThreadPoolExecutor) -> None:
        self._engine = engine
        self._thread = thread
        self._timer: asyncio.TimerHandle | None = None
        self._running: asyncio.Future[bool] | None = None
        self._failures = 0
        """Checkpoints failed in a row (read on the loop once the thread's try is over)."""
        self._closed = False

    def after_write(self) -> None:
        """A checkpoint CHECKPOINT_EVERY from now, unless one is due already (or failing
        ones are being tried again on their own pauses)."""
        if self._timer is None and not self._failures and not self._closed:
            self._due_in(CHECKPOINT_EVERY)

    def close(self) -> None:
        """No more checkpoints (the last connection to close checkpoints the log)."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _due_in(self, seconds: float) -> None:
        self._timer = asyncio.get_running_loop().call_later(seconds, self._start)

    def _start(self) -> None:
        self._timer = None
        if self._closed:
            return
        if self._running is not None and not self._running.done():
            self._due_in(CHECKPOINT_EVERY)  # the last one is still copying
            return
        running = asyncio.get_running_loop().run_in_executor(self._thread, self._checkpoint)
        running.add_done_callback(self._finished)
        self._running = running

    def _finished(self, done: asyncio.Future[bool]) -> None:
        if self._closed or done.cancelled() or done.exception() is not None or done.result():
            return
        if self._timer is not None:
            self._timer.cancel()
        self._due_in(min(CHECKPOINT_EVERY * 2 ** min(self._failures, 16), PAUSE_MOST))

    def _checkpoint(self) -> bool:
        """One passive checkpoint, in the checkpoint thread; never raises. On the driver's
        connection itself: a failed checkpoint is not a refused write, and is logged here
        rather than as database trouble."""
        try:
            with self._engine.connect() as conn:
                try:
                    conn.connection.driver_connection.execute(  # type: ignore[union-attr]
                        "PRAGMA wal_checkpoint(PASSIVE)"
                    ).fetchall()
                except Exception as error:
                    # A connection opened while the file was read-only stays so (and fails
                    # with an I/O error here): the next try opens one afresh.
                    conn.invalidate(error)
                    raise
        except Exception as error:
            self._failures += 1
            if self._failures == 1:
                log.warning(
                    "the write-ahead log could not be checkpointed (%s); the answers are "
                    "safe in the log, and it is tried again, with or without new writes",
                    describe(error),
                    extra={"event": "checkpoint_failed"},
                )
            return False
        if self._failures:
            log.warning(
                "the write-ahead log is checkpointed again, after %d failed tries",
                self._failures,
                extra={"event": "checkpoint_recovered", "failures": self._failures},
            )
            self._failures = 0
        return True
