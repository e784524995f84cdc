"""The config's database URL, turned into the async SQLAlchemy URL the store opens.

People write `sqlite:///quizbot.db` or `postgresql://user:pass@host/db`; SQLAlchemy's async
engine needs the async driver named (`sqlite+aiosqlite`, `postgresql+asyncpg`), and a
relative SQLite path must resolve against the config file's folder, not the working directory.
A SQLite URI filename (`sqlite:///file:quizbot.db?mode=ro`) is kept a URI, its path resolved
the same way.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, unquote

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

_SQLITE = "sqlite+aiosqlite"
_POSTGRES = "postgresql+asyncpg"
_DRIVERS = {
    "sqlite": _SQLITE,
    _SQLITE: _SQLITE,
    "postgresql": _POSTGRES,
    "postgres": _POSTGRES,
    _POSTGRES: _POSTGRES,
}
_EXAMPLES = "use sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE"


def database_url(url: str, base_dir: Path) -> str:
    """The async SQLAlchemy URL for `url`; relative SQLite paths resolve against `base_dir`.

    Raises ValueError for other databases and drivers, and for in-memory SQLite: aiosqlite
    shares one connection between all tasks there, so transactions would interfere.
    """
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise ValueError(f"not a database URL: {url!r} ({_EXAMPLES})") from error
    driver = _DRIVERS.get(parsed.drivername)
    if driver is None:
        shown = parsed.render_as_string(hide_password=True)
        raise ValueError(f"unsupported database URL {shown!r}: {_EXAMPLES}")
    if driver == _SQLITE:
        parsed = parsed.set(database=_sqlite_path(parsed, base_dir))
        if parsed.database and parsed.database.startswith("file:"):
            parsed = parsed.set(query={**parsed.query, "uri": "true"})  # else read as a name
    return parsed.set(drivername=driver).render_as_string(hide_password=False)


def _sqlite_path(url: URL, base_dir: Path) -> str:
    database = url.database or ""
    if (
        database in ("", ":memory:")
        or database.startswith("file::memory:")
        or url.query.get("mode") == "memory"
    ):
        raise ValueError(
            "in-memory SQLite is not supported (aiosqlite shares one connection between "
            "tasks): use a file, e.g. sqlite:///quizbot.db"
        )
    if database.startswith("file:"):
        rest = database.removeprefix("file:")
        if rest.startswith("/"):
            return database  # file:/path or file:///path: absolute already
        return "file:" + quote(str((base_dir / unquote(rest)).resolve()))
    path = Path(database)
    return str(path if path.is_absolute() else (base_dir / path).resolve())
