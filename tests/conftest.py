"""Fixtures every suite shares: `db` and `store` run a test on a SQLite file and on PostgreSQL.

PostgreSQL is asked once per run, before the first test, whether it answers: if not, the run
stops with one line saying how to start it or how to leave its tests out
(`QUIZBOT_TEST_POSTGRES=skip`), instead of a traceback per test. CI (`.ci/run`) sets
`QUIZBOT_TEST_POSTGRES=require`, so there they never skip.

The load, fault and fuzz tests print their figures (clicks sent, acked, stored; faults
injected); pytest keeps a passing test's output to itself, so those lines are repeated in a
section at the end of the run, where CI's log shows them.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from tests.storage.databases import POSTGRES_URL, db, store

__all__ = ["db", "store"]

SKIP_POSTGRES = os.environ.get("QUIZBOT_TEST_POSTGRES", "").strip().lower() == "skip"
POSTGRES_FIXTURES = {"pg_schema", "pg", "pg_database"}
"""Fixtures that open the test PostgreSQL themselves (besides `db`/`store`/`any_store` run
with the "postgresql" parameter)."""


def needs_postgres(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "postgresql" in callspec.params.values():
        return True
    return bool(POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())))


def postgres_problem(url: str) -> str | None:
    """Why the test PostgreSQL cannot be used, in words; None when it answers."""
    import asyncpg

    async def connect() -> None:
        connection = await asyncpg.connect(url.replace("+asyncpg", ""), timeout=5)
        await connection.close()

    try:
        asyncio.run(connect())
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        return str(error) or type(error).__name__
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = [item for item in items if needs_postgres(item)]
    if not wanted:
        return
    if SKIP_POSTGRES:
        skip = pytest.mark.skip(reason="QUIZBOT_TEST_POSTGRES=skip (CI runs them)")
        for item in wanted:
            item.add_marker(skip)
        return
    problem = postgres_problem(POSTGRES_URL)
    if problem is not None:
        pytest.exit(
            f"PostgreSQL at {POSTGRES_URL} cannot be used ({problem}): start it as "
            "docs/install.md#postgresql-for-the-tests shows, or leave its "
            f"{len(wanted)} tests out: QUIZBOT_TEST_POSTGRES=skip make test",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )


def pytest_report_header(config: pytest.Config) -> str:
    if SKIP_POSTGRES:
        return "PostgreSQL tests: skipped (QUIZBOT_TEST_POSTGRES=skip); CI runs them"
    return f"PostgreSQL tests: on {POSTGRES_URL} (QUIZBOT_TEST_POSTGRES=skip leaves them out)"


_passed: set[str] = set()
_figures: list[tuple[str, str]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.passed:
        _passed.add(report.nodeid)
    elif report.when == "teardown" and report.nodeid in _passed:
        printed = report.capstdout.strip()  # every phase's, by teardown
        if printed:
            _figures.append((report.nodeid, printed))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _figures:
        return
    terminalreporter.section("figures printed by the tests")
    for nodeid, printed in _figures:
        terminalreporter.write_line(nodeid)
        for line in printed.splitlines():
            if line.strip():
                terminalreporter.write_line(f"    {line}")
