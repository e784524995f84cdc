"""A server's own deck leaves the database as files a team keeps in git: `quizbot export
--server ID --deck team --format yaml|gift|csv`; the YAML passes `quizbot validate --strict`,
the CSV and GIFT load back with `quizbot import` into decks that pass it too. `quizbot forget`
takes a person's name off their approved questions, which stay."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from bot.domain.suggestion import Draft, Status
from bot.storage import SqlSuggestions, open_store
from tests.reliability.processes.test_cli import quizbot

AT = datetime(2026, 12, 5, 9, tzinfo=UTC)
SERVER = "slack:T1"
EN = Draft(
    "Which file format does a team deck use in git?",
    "YAML",
    ("JSON", "TOML", "CSV"),
    "Deck files are YAML: comments and multi-line text read well in review.",
    ("JSON has no comments", "TOML is for configuration", "CSV cannot hold a why per choice"),
    "en",
)
BN = Draft(
    "ডেকের প্রশ্ন যাচাই করে কোন কমান্ড?",
    "quizbot validate",
    ("quizbot run", "quizbot play"),
    "validate ডেক ফাইল পড়ে সমস্যা আর সতর্কতা দেখায়।",
    ("run বট চালায়", "play টার্মিনালে খেলায়"),
    "bn",
)


async def _approved(db: Path, *drafts: tuple[str, Draft]) -> None:
    store = await open_store(f"sqlite:///{db}")
    box = SqlSuggestions(store)
    try:
        for author, draft in drafts:
            made = await box.save_draft(SERVER, author, author.lower(), draft, AT)
            await box.send(made.id, author, [], AT, AT, 3, 20)
            await box.decide(made.id, SERVER, Status.APPROVED, "UA", None, AT)
    finally:
        await store.close()


def test_the_team_deck_exports_validates_and_imports_back(tmp_path: Path) -> None:
    asyncio.run(_approved(tmp_path / "quizbot.db", ("U1", EN), ("U2", BN)))
    proc = quizbot(tmp_path, "", "export", "--server", SERVER, "--deck", "team", "--format", "yaml")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "team-t1.yaml: 2 questions of team-t1 as yaml\n"
    written = (tmp_path / "team-t1.yaml").read_text(encoding="utf-8")
    print("--- quizbot export --server slack:T1 --deck team --format yaml ---")
    print(written)
    assert "# - q1: @u1" in written and "# - q2: @u2" in written
    assert "ignore:\n        - missing-explanation" in written  # written in one language
    strict = quizbot(tmp_path, "", "validate", "--strict", "team-t1.yaml")
    assert strict.returncode == 0, strict.stdout + strict.stderr

    for fmt in ("csv", "gift"):
        out = f"team.{fmt}"
        proc = quizbot(
            tmp_path,
            "",
            *("export", "--server", SERVER, "--deck", "team-t1", "--format", fmt),
            *("--locale", "en", "--out", out),
        )
        assert proc.returncode == 0, proc.stderr
        back = quizbot(
            tmp_path,
            "",
            "import",
            out,
            "--locale",
            "en",
            "--id",
            f"ours-{fmt}",
            "--out",
            f"ours-{fmt}.yaml",
        )
        assert back.returncode == 0, back.stdout + back.stderr
        strict = quizbot(tmp_path, "", "validate", "--strict", f"ours-{fmt}.yaml")
        assert strict.returncode == 0, strict.stdout + strict.stderr


def test_forget_takes_the_credit_and_keeps_the_question(tmp_path: Path) -> None:
    asyncio.run(_approved(tmp_path / "quizbot.db", ("U1", EN)))
    forgot = quizbot(tmp_path, "", "forget", "--server", SERVER, "--user", "U1")
    assert forgot.returncode == 0, forgot.stderr
    assert "1 suggested questions deleted or uncredited" in forgot.stdout
    proc = quizbot(tmp_path, "", "export", "--server", SERVER, "--deck", "team", "--format", "yaml")
    assert proc.returncode == 0, proc.stderr
    written = (tmp_path / "team-t1.yaml").read_text(encoding="utf-8")
    assert "# - q1: uncredited" in written and "u1" not in written.lower().replace("q1", "")


def test_a_server_without_approved_questions_has_no_team_deck(tmp_path: Path) -> None:
    proc = quizbot(tmp_path, "", "export", "--server", SERVER, "--deck", "team", "--format", "yaml")
    assert proc.returncode == 1
    assert "no deck 'team'" in proc.stderr
