"""Fixtures every suite shares: `db` and `store` run a test on a SQLite file and on PostgreSQL.

The load, fault and fuzz tests print their figures (clicks sent, acked, stored; faults
injected); pytest keeps a passing test's output to itself, so those lines are repeated in a
section at the end of the run, where CI's log shows them.
"""

from __future__ import annotations

import pytest

from tests.storage.databases import db, store

__all__ = ["db", "store"]

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
