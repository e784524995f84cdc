"""CI runs the PostgreSQL tests: `.ci/run` requires them whatever the environment holds, and
the test run leaves them out only when asked (`QUIZBOT_TEST_POSTGRES=skip`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_ci_requires_the_postgresql_tests() -> None:
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    code = [line for line in lines if line and not line.startswith("#")]
    assert "export QUIZBOT_TEST_POSTGRES=require" in code
    assert code.index("export QUIZBOT_TEST_POSTGRES=require") < code.index("make test")
    settings = [line for line in code if "QUIZBOT_TEST_POSTGRES=" in line]
    assert settings == ["export QUIZBOT_TEST_POSTGRES=require"]


def pytest_run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, **env},
    )


NOWHERE = "postgresql://postgres@127.0.0.1:9/test"
"""The discard port: nothing answers there."""


def test_a_missing_postgresql_is_one_line_that_says_what_to_do() -> None:
    ran = pytest_run(
        "tests/contract/storage/test_store_rules.py", QUIZBOT_TEST_POSTGRES_URL=NOWHERE
    )
    assert ran.returncode != 0
    said = [line for line in ran.stdout.splitlines() if "PostgreSQL at" in line]
    assert len(said) == 1
    assert "docs/install.md#postgresql-for-the-tests" in said[0]
    assert "QUIZBOT_TEST_POSTGRES=skip make test" in said[0]
    assert "Traceback" not in ran.stdout and "ConnectionRefusedError" not in ran.stdout
    parallel = pytest_run(
        "-n", "2", "tests/contract/storage/test_store_rules.py", QUIZBOT_TEST_POSTGRES_URL=NOWHERE
    )
    assert parallel.returncode != 0  # as `make test` runs it: two workers, still one line
    said = [line for line in parallel.stdout.splitlines() if "PostgreSQL at" in line]
    assert len(said) == 1 and "QUIZBOT_TEST_POSTGRES=skip make test" in said[0], parallel.stdout
    assert "Traceback" not in parallel.stdout
    required = pytest_run(
        "tests/contract/storage/test_store_rules.py",
        QUIZBOT_TEST_POSTGRES_URL=NOWHERE,
        QUIZBOT_TEST_POSTGRES="require",
    )
    assert required.returncode != 0  # as CI sets it: no skipping


def test_skip_leaves_out_only_the_postgresql_tests() -> None:
    ran = pytest_run(
        "tests/contract/storage/test_store_rules.py",
        "-rs",
        QUIZBOT_TEST_POSTGRES_URL=NOWHERE,
        QUIZBOT_TEST_POSTGRES="skip",
    )
    assert ran.returncode == 0, ran.stdout
    assert "QUIZBOT_TEST_POSTGRES=skip (CI runs them)" in ran.stdout
    summary = ran.stdout.strip().splitlines()[-1]
    assert " passed" in summary and " skipped" in summary
