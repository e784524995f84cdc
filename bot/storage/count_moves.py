"""One transaction's moves of people between counts (how many people stand at a total):
summed per key, then written once, in key order, just before the commit (`accumulate`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy.engine import Connection


class CountMoves:
    """Moves summed per key (a tuple of the `KEYS` columns' values); each dialect writes
    them its way (`write`)."""

    KEYS: tuple[str, ...] = ()
    """The columns a key's values go to, in order."""

    def __init__(self) -> None:
        self._users: defaultdict[tuple[Any, ...], int] = defaultdict(int)

    def flush(self, conn: Connection) -> None:
        rows = [
            {**dict(zip(self.KEYS, key, strict=True)), "users": users}
            for key, users in sorted(self._users.items())
            if users
        ]
        self._users.clear()
        if rows:
            self.write(conn, rows)

    def write(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        """Adds each row's `users` to its count, in the order given."""
        raise NotImplementedError
