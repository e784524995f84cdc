"""Where decks come from: the shipped decks, the team's folders, and a broken deck left out
while the others load (DESIGN.md, "Where decks come from")."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.bootstrap import DeckError, build_app
from bot.config import load_config
from bot.decks.loading import load_decks

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "questions"

DECK = """title: "{title}"
locales: [en]
questions:
  - id: one
    text: "Two plus two?"
    choices: ["4", "5"]
    answer: 0
    explanation: "Arithmetic."
"""


def shipped_ids() -> list[str]:
    return sorted(p.stem for p in SHIPPED.glob("*.yaml"))


def test_the_teams_decks_come_first_and_the_shipped_ones_follow(tmp_path: Path) -> None:
    (tmp_path / "ours.yaml").write_text(DECK.format(title="Ours"), encoding="utf-8")
    report = load_decks([tmp_path], SHIPPED)
    assert report.ok
    assert sorted(d.id for d in report.decks) == sorted(["ours", *shipped_ids()])


def test_a_copy_of_a_shipped_deck_replaces_it_without_a_problem(tmp_path: Path) -> None:
    """The repository's questions/ mounted next to an installed package: loaded once."""
    copy = tmp_path / "distributed-training.yaml"
    copy.write_text(DECK.format(title="Our own edition"), encoding="utf-8")
    report = load_decks([tmp_path], SHIPPED)
    assert report.ok, report.problems
    mine = [d for d in report.decks if d.id == "distributed-training"]
    assert len(mine) == 1 and mine[0].title == {"en": "Our own edition"}


def test_the_shipped_folder_given_as_a_path_is_not_loaded_twice() -> None:
    report = load_decks([SHIPPED], SHIPPED)
    assert report.ok
    assert sorted(d.id for d in report.decks) == shipped_ids()
    assert report.files == len(shipped_ids())


def test_a_broken_deck_is_left_out_and_named_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(DECK.format(title="Good"), encoding="utf-8")
    (tmp_path / "bad.yaml").write_text("title: x\nlocales: [en]\nquestions: [\n", encoding="utf-8")
    report = load_decks([tmp_path], SHIPPED)
    assert sorted(d.id for d in report.decks) == sorted(["good", *shipped_ids()])
    assert [p.path for p in report.problems] == [str(tmp_path / "bad.yaml")]
    assert report.problems[0].line >= 3
    said = report.left_out()
    assert said.startswith(f"{tmp_path / 'bad.yaml'}:")
    assert "1 deck file with problems left out" in said


async def test_the_bot_starts_with_the_good_decks_and_logs_the_broken_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    decks = tmp_path / "questions"
    decks.mkdir()
    (decks / "good.yaml").write_text(DECK.format(title="Good"), encoding="utf-8")
    (decks / "bad.yaml").write_text("title: [broken\n", encoding="utf-8")
    (tmp_path / "config.toml").write_text('[database]\nurl = "sqlite:///q.db"\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        app = await build_app(load_config(str(tmp_path / "config.toml"), env={}))
    try:
        assert app.services.catalog.decks.ids() == sorted(["good", *shipped_ids()])
        assert f"{decks / 'bad.yaml'}:" in caplog.text
        assert "left out" in caplog.text
    finally:
        await app.close()


async def test_nothing_starts_when_no_deck_loads(tmp_path: Path) -> None:
    decks = tmp_path / "questions"
    decks.mkdir()
    (decks / "bad.yaml").write_text("title: [broken\n", encoding="utf-8")
    (tmp_path / "config.toml").write_text(
        '[database]\nurl = "sqlite:///q.db"\n[questions]\nshipped = false\n', encoding="utf-8"
    )
    with pytest.raises(DeckError, match=r"bad\.yaml:"):
        await build_app(load_config(str(tmp_path / "config.toml"), env={}))
