"""database_url: what people write in the config, turned into the async URL the store opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage import database_url

BASE = Path("/srv/quizbot")


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("sqlite:///quizbot.db", "sqlite+aiosqlite:////srv/quizbot/quizbot.db"),
        ("sqlite:///data/q.db", "sqlite+aiosqlite:////srv/quizbot/data/q.db"),
        ("sqlite:///../shared/q.db", "sqlite+aiosqlite:////srv/shared/q.db"),
        ("sqlite:////var/lib/quizbot.db", "sqlite+aiosqlite:////var/lib/quizbot.db"),
        ("sqlite+aiosqlite:////var/lib/quizbot.db", "sqlite+aiosqlite:////var/lib/quizbot.db"),
        ("sqlite+aiosqlite:///quizbot.db", "sqlite+aiosqlite:////srv/quizbot/quizbot.db"),
        ("postgresql://bot:s3cret@db:5432/quiz", "postgresql+asyncpg://bot:s3cret@db:5432/quiz"),
        ("postgres://bot:s3cret@db/quiz", "postgresql+asyncpg://bot:s3cret@db/quiz"),
        ("postgresql+asyncpg://bot@db/quiz", "postgresql+asyncpg://bot@db/quiz"),
        (
            "postgresql://bot@/quiz?host=/run/postgresql",
            "postgresql+asyncpg://bot@/quiz?host=%2Frun%2Fpostgresql",
        ),
        # SQLite URI filenames stay URIs (a read-only open, say), their path resolved too
        (
            "sqlite:///file:quizbot.db?mode=ro",
            "sqlite+aiosqlite:///file%3A/srv/quizbot/quizbot.db?mode=ro&uri=true",
        ),
        (
            "sqlite:///file:/var/lib/q.db?mode=ro&uri=true",
            "sqlite+aiosqlite:///file%3A/var/lib/q.db?mode=ro&uri=true",
        ),
    ],
)
def test_database_url(written: str, expected: str) -> None:
    assert database_url(written, BASE) == expected


def test_relative_base_dir_gives_an_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        database_url("sqlite:///q.db", Path("conf")) == f"sqlite+aiosqlite:///{tmp_path}/conf/q.db"
    )


@pytest.mark.parametrize(
    "written",
    [
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite+aiosqlite:///:memory:",
        "sqlite:///file::memory:?cache=shared&uri=true",
        "sqlite:///q.db?mode=memory&uri=true",
    ],
)
def test_in_memory_sqlite_is_refused(written: str) -> None:
    with pytest.raises(ValueError, match="in-memory SQLite"):
        database_url(written, BASE)


@pytest.mark.parametrize(
    "written",
    [
        "mysql://bot:s3cret@db/quiz",
        "postgresql+psycopg2://bot:s3cret@db/quiz",
        "sqlite+pysqlite:///q.db",
        "quizbot.db",
        "",
    ],
)
def test_other_databases_are_refused(written: str) -> None:
    with pytest.raises(ValueError, match="sqlite:///PATH or postgresql://") as error:
        database_url(written, BASE)
    assert "s3cret" not in str(error.value)
