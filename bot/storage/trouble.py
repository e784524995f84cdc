"""Database trouble: which errors mean "nothing was written, and it may pass" (so a click is
told to try again, never "something went wrong"), and how the log tells of them.

Trouble is a SQLite result code or a PostgreSQL SQLSTATE, not a message: SQLite's locked,
full, read-only, I/O and cannot-open errors, PostgreSQL's connection, shutdown, resource
and read-only (a standby after a failover) classes. A corrupt file or a constraint stays a
bug. The log says each kind once, then at most once a minute with a count of what it left
out, and once more when writes commit again: a full disk in a burst of clicks is a few
lines, not a traceback per click.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("quizbot.storage")

SQLITE_TROUBLE = {
    5: "locked",  # SQLITE_BUSY: another process holds the write lock past busy_timeout
    6: "locked",  # SQLITE_LOCKED
    7: "out of memory",  # SQLITE_NOMEM
    8: "read-only",  # SQLITE_READONLY: the file, its folder or its filesystem
    10: "I/O error",  # SQLITE_IOERR: a write or a sync the system refused
    13: "full",  # SQLITE_FULL: the disk (or a size limit) is full
    14: "cannot open",  # SQLITE_CANTOPEN: the file or its folder is gone or closed to us
    15: "locked",  # SQLITE_PROTOCOL: a lock race in the write-ahead log
}
"""SQLite's primary result codes that pass: what the log calls them."""
_SQLITE_REOPEN = frozenset({8, 14})
"""A connection opened while the file was read-only stays read-only: reopened, it sees the
file as it is now. Not for READONLY_DBMOVED, whose file is gone from its path (reopening
the path would not find it)."""
_SQLITE_DBMOVED = 8 | (4 << 8)
_LOCKED = ("database is locked", "database table is locked")

ROLLED_BACK = frozenset({"40P01", "40001"})
TRANSIENT_SQLSTATES = frozenset(
    {"40P01", "40001", "57P01", "57P02", "57P03", "25006", "58030", "55P03"}
)
"""Nothing written, try again: a deadlock PostgreSQL broke (40P01), a serialization failure
(40001); the server going away or not taking connections yet: admin_shutdown,
crash_shutdown, cannot_connect_now (57P01-03); a read-only server, such as a standby after a
failover (25006); an I/O error (58030); a lock not available (55P03). The whole 08 class
(connection exceptions) and 53 class (insufficient resources: disk full, out of memory, too
many connections) too."""
_PG_REOPEN = frozenset({"25006"})
"""A read-only server: the pooled connections may all lead to the old primary."""


def transient_sqlstate(state: str | None) -> bool:
    """Whether PostgreSQL's SQLSTATE means "nothing was written, try again"."""
    return bool(state) and (state in TRANSIENT_SQLSTATES or str(state).startswith(("08", "53")))


def sqlstate_of(error: BaseException) -> str | None:
    """The SQLSTATE of a PostgreSQL error. SQLAlchemy's asyncpg adapter raises its own
    generic error class (with `sqlstate`) around asyncpg's, so the class name says nothing."""
    for candidate in (error, error.__cause__):
        state = getattr(candidate, "sqlstate", None) or getattr(candidate, "pgcode", None)
        if isinstance(state, str) and state:
            return state
    return None


def sqlite_code(error: BaseException) -> int | None:
    """SQLite's extended result code of a driver error (or of the one it wraps)."""
    for candidate in (error, error.__cause__, getattr(error, "orig", None)):
        code = getattr(candidate, "sqlite_errorcode", None)
        if isinstance(code, int):
            return code
    return None


def passing(error: BaseException) -> str | None:
    """What kind of trouble `error` is ("locked", "full", "unreachable", ...) if it means
    nothing was written and it may pass; None if it is a bug or a refusal."""
    if not isinstance(error, Exception):
        return None  # a cancelled task (or Ctrl+C) must stay a cancellation
    code = sqlite_code(error)
    if code is not None:
        return SQLITE_TROUBLE.get(code & 0xFF)
    state = sqlstate_of(error)
    if state is not None:
        return _pg_kind(state) if transient_sqlstate(state) else None
    if isinstance(error, OSError | TimeoutError):
        return "unreachable"
    if any(text in str(error) for text in _LOCKED):
        return "locked"
    return None


def _pg_kind(state: str) -> str:
    if state == "25006":
        return "read-only"
    if state in ROLLED_BACK:
        return "rolled back"
    if state.startswith("53"):
        return "out of resources"
    return "unreachable"


def reopens(error: BaseException) -> bool:
    """Whether the connection that met `error` should be replaced by a new one (see
    `_SQLITE_REOPEN`, `_PG_REOPEN`)."""
    code = sqlite_code(error)
    if code is not None:
        return (code & 0xFF) in _SQLITE_REOPEN and code != _SQLITE_DBMOVED
    return sqlstate_of(error) in _PG_REOPEN


def describe(error: BaseException) -> str:
    """One line for the log: the database's own words and its code, no traceback."""
    origin = getattr(error, "orig", None) or error.__cause__ or error
    words = str(origin).strip().splitlines()[0] if str(origin).strip() else type(origin).__name__
    name = getattr(origin, "sqlite_errorname", None)
    if isinstance(name, str):
        return f"{words} ({name})"
    state = sqlstate_of(error)
    return f"{words} (SQLSTATE {state})" if state else words


EVERY = 60.0
"""Seconds between two log lines about the same kind of trouble."""


@dataclass
class _Kind:
    logged: float
    left_out: int = 0


class TroubleLog:
    """What the log says of database trouble, for one store: each kind at once, then at
    most once every `every` seconds with how many refusals it left out, and one line when a
    write commits again. Shared by the threads that run transactions."""

    def __init__(
        self,
        every: float = EVERY,
        clock: Callable[[], float] = time.monotonic,
        *,
        quiet: bool = False,
    ) -> None:
        self.quiet = quiet
        """Nothing is logged (at start, where a refusal is said in one line instead)."""
        self._every = every
        self._clock = clock
        self._lock = threading.Lock()
        self._kinds: dict[str, _Kind] = {}
        self._refused = 0
        self.active = False
        """Some trouble was logged and no write has committed since: read without the lock
        after each commit, so a healthy store pays one attribute read."""

    def refused(self, kind: str, error: BaseException) -> None:
        """Something was refused (a transaction, a connection) because of `error`."""
        if self.quiet:
            return
        now = self._clock()
        with self._lock:
            self._refused += 1
            self.active = True
            seen = self._kinds.get(kind)
            if seen is not None and now - seen.logged < self._every:
                seen.left_out += 1
                return
            left_out = 0 if seen is None else seen.left_out
            self._kinds[kind] = _Kind(now)
        more = f"; {left_out} more like it since the last line" if left_out else ""
        log.warning(
            'database trouble (%s): %s; what needs the database is answered "try again" '
            "until it passes%s",
            kind,
            describe(error),
            more,
            extra={"event": "store_trouble", "kind": kind, "left_out": left_out},
        )

    def cleared(self) -> None:
        """A write committed: if trouble was logged, says once that writes work again."""
        if not self.active:
            return
        with self._lock:
            refused, kinds = self._refused, sorted(self._kinds)
            self.active = False
            self._refused = 0
            self._kinds.clear()
        if not refused:
            return  # another thread said it
        log.warning(
            "database trouble over (%s): writes commit again; %d refusals while it lasted",
            ", ".join(kinds),
            refused,
            extra={"event": "store_recovered", "refused": refused},
        )
