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
from pathlib import Path

import pytest

from tests.databases import POSTGRES_URL, SHARED, db, store

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


LEVELS = ("unit", "contract", "platform", "reliability")
"""The folders of tests/, each a marker and a make target (tests/README.md)."""
TESTS = Path(__file__).resolve().parent


def mark_levels(items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.relative_to(TESTS).parts if item.path.is_relative_to(TESTS) else ()
        if parts and parts[0] in LEVELS:
            item.add_marker(parts[0])
        if needs_postgres(item):
            item.add_marker("postgresql")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_levels(items)
    wanted = [item for item in items if needs_postgres(item)]
    if not wanted:
        return
    if SKIP_POSTGRES:
        skip = pytest.mark.skip(reason="QUIZBOT_TEST_POSTGRES=skip (CI runs them)")
        for item in wanted:
            item.add_marker(skip)
        return
    if hasattr(config, "workerinput"):
        return  # a pytest-xdist worker: the controller asked before starting it
    exit_unless_postgres_answers(f"its {len(wanted)} tests")


def exit_unless_postgres_answers(tests: str) -> None:
    """Stops the run in one line that says what to do when the test PostgreSQL is missing."""
    problem = postgres_problem(POSTGRES_URL)
    if problem is not None:
        pytest.exit(
            f"PostgreSQL at {POSTGRES_URL} cannot be used ({problem}): start it as "
            "docs/install.md#postgresql-for-the-tests shows, or leave "
            f"{tests} out: QUIZBOT_TEST_POSTGRES=skip make test",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )


def pytest_sessionstart(session: pytest.Session) -> None:
    """With pytest-xdist (`make test` runs two workers), the controller collects nothing, so
    it asks PostgreSQL here, once, before any worker starts."""
    config = session.config
    parallel = getattr(config.option, "numprocesses", None)
    if parallel and not hasattr(config, "workerinput") and not SKIP_POSTGRES:
        exit_unless_postgres_answers("its tests")


def pytest_sessionfinish(session: pytest.Session) -> None:
    SHARED.close()


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
