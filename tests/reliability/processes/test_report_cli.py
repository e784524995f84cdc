"""`quizbot report --html` on a database of a few hundred simulated players (written through
the store, as runs): the planted questions show their flags in the terminal and in the page."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from bot.domain.problems import ProblemReport, Reason
from bot.presentation.locales import text
from bot.storage import open_store
from tests.unit.report.simulation import DECK, ORDINARY, PLANTED, QUESTIONS, answers, deck_yaml

SERVER = "slack:TSIM"
FLAGS = {
    "too-easy": "too_easy",
    "too-hard": "too_hard",
    "dead-choice": "dead_choice",
    "backwards": "negative",
}
"""Each planted question's flag, by its catalog key (the page says flags in its language)."""


async def _simulate(url: str) -> int:
    store = await open_store(url)
    try:
        runs = {}
        count = 0
        for user, question, choice, when in answers():
            if user not in runs:
                runs[user] = await store.start_run(SERVER, user, DECK, 1, when)
            await store.record_run_answer(runs[user], question, choice, choice == 0, when)
            count += 1
        await store.report_problem(
            ProblemReport(
                SERVER, "p7", DECK, ORDINARY[0], "abc123", Reason.TYPO, "“GPU” misspelt <b>", when
            )
        )
        return count
    finally:
        await store.close()


def test_report_flags_the_planted_questions(tmp_path: Path) -> None:
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / f"{DECK}.yaml").write_text(deck_yaml(), encoding="utf-8")
    database = tmp_path / "sim.db"
    (tmp_path / "config.toml").write_text(
        f'[database]\nurl = "sqlite:///{database}"\n[questions]\npaths = ["decks"]\n',
        encoding="utf-8",
    )
    stored = asyncio.run(_simulate(f"sqlite:///{database}"))
    assert stored == 300 * len(QUESTIONS)

    command = ["report", "--deck", DECK, "--server", SERVER, "--html", "health.html"]
    command += ["--config", "config.toml"]
    proc = subprocess.run(
        [sys.executable, "-m", "bot", *command],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    print("\n" + proc.stdout)
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line.startswith(DECK)}
    for question, flag in PLANTED.items():
        assert lines[f"{DECK}/{question}"].endswith(flag), lines[f"{DECK}/{question}"]
        assert " 300 " in lines[f"{DECK}/{question}"]
    for question in ORDINARY:
        assert not any(flag in lines[f"{DECK}/{question}"] for flag in PLANTED.values())
    assert lines[f"{DECK}/{ORDINARY[0]}"].endswith("reported by players")
    assert f"{len(QUESTIONS)} questions, {len(PLANTED) + 1} flagged" in proc.stdout
    assert "Problem reports (1):" in proc.stdout
    assert f"{DECK}/{ORDINARY[0]} " in proc.stdout and "typo (deck version abc123)" in proc.stdout

    page = (tmp_path / "health.html").read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>")
    assert page.count("<svg") == len(QUESTIONS) + 1  # a chart per question, the deck's map
    assert "<h1>Question health: Planted questions</h1>" in page
    assert f"Server: {SERVER} · made 20" in page  # the date it was made, in UTC
    assert page.count('Right answer: <b lang="en">A. right</b>') == len(QUESTIONS)
    for flag in PLANTED:
        said = text("en", f"report.flag.{FLAGS[flag]}")
        assert f'<span class="flag">{said}</span>' in page
    assert "The question called backwards?" in page
    assert "“GPU” misspelt &lt;b&gt;" in page
