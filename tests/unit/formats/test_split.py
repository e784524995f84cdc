"""Big files become several decks (issue 23, D5): with --split N, or on their own past 1 MiB."""

from __future__ import annotations

import json
from pathlib import Path

from bot.decks.format import MAX_FILE_BYTES
from bot.decks.formats import import_file
from tests.unit.formats.conftest import FIXTURES, TODAY, loaded

WORLDCUP = FIXTURES / "red" / "worldcup.yaml"


def run(source: Path, folder: Path, split: int | None = None) -> list[str]:
    outcome = import_file(
        source,
        fmt=None,
        out=None,
        locale="en",
        deck_id=None,
        today=TODAY,
        questions_dir=folder,
        split=split,
    )
    return outcome.lines


def test_split_n_puts_n_questions_in_each_deck(tmp_path: Path) -> None:
    lines = run(WORLDCUP, tmp_path, split=100)
    parts = [tmp_path / f"worldcup-{n}.yaml" for n in (1, 2, 3)]
    red = f"from {WORLDCUP} (Red-DiscordBot trivia list)"
    assert lines[-4:] == [
        f"{parts[0]}: wrote 100 questions {red}, part 1 of 3",
        f"{parts[1]}: wrote 100 questions {red}, part 2 of 3",
        f"{parts[2]}: wrote 27 questions {red}, part 3 of 3",
        f"{WORLDCUP}: 227 questions in 3 decks (--split 100), 1 skipped",
    ]
    decks = [loaded(part) for part in parts]
    assert [(deck.id, len(deck)) for deck in decks] == [
        ("worldcup-1", 100),
        ("worldcup-2", 100),
        ("worldcup-3", 27),
    ]
    assert [deck.title["en"] for deck in decks] == [
        "Worldcup (1/3)",
        "Worldcup (2/3)",
        "Worldcup (3/3)",
    ]
    ids = [question.id for deck in decks for question in deck.questions]
    assert len(ids) == len(set(ids)) == 227
    assert sorted(path.name for path in tmp_path.iterdir()) == [part.name for part in parts]


def test_split_larger_than_the_file_writes_one_deck(tmp_path: Path) -> None:
    lines = run(WORLDCUP, tmp_path, split=1000)
    assert lines[-1].startswith(f"{tmp_path / 'worldcup.yaml'}: wrote 227 questions")
    assert loaded(tmp_path / "worldcup.yaml").id == "worldcup"


def test_nothing_is_written_when_one_part_exists_already(tmp_path: Path) -> None:
    (tmp_path / "worldcup-2.yaml").write_text("keep me", encoding="utf-8")
    lines = run(WORLDCUP, tmp_path, split=100)
    assert lines[-1] == (
        f"{WORLDCUP}: error: {tmp_path / 'worldcup-2.yaml'} already exists; choose another "
        "--out or remove it first; nothing written"
    )
    assert [path.name for path in tmp_path.iterdir()] == ["worldcup-2.yaml"]


def test_split_must_be_positive(tmp_path: Path) -> None:
    assert run(WORLDCUP, tmp_path, split=0) == [
        f"{WORLDCUP}: error: --split 0: give how many questions each deck holds (1 or more)"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_5250_question_open_trivia_db_dump_becomes_decks_under_the_limit(
    tmp_path: Path,
) -> None:
    results = [
        {
            "type": "multiple",
            "difficulty": "medium",
            "category": "General Knowledge",
            "question": f"Which of these answers is the right one for question number {n}?",
            "correct_answer": f"The right answer to question {n}",
            "incorrect_answers": [f"Wrong answer {k} to question {n}" for k in (1, 2, 3)],
        }
        for n in range(5250)
    ]
    source = tmp_path / "opentdb-dump.json"
    source.write_text(json.dumps({"response_code": 0, "results": results}), encoding="utf-8")
    folder = tmp_path / "questions"
    folder.mkdir()
    lines = run(source, folder)
    written = sorted(folder.iterdir())
    assert len(written) > 1
    assert lines[-1] == (
        f"{source}: 5250 questions in {len(written)} decks "
        "(one deck file may have at most 1 MiB), 0 skipped"
    )
    sizes = [path.stat().st_size for path in written]
    assert all(size <= MAX_FILE_BYTES for size in sizes)
    decks = [loaded(path) for path in written]
    assert sum(len(deck) for deck in decks) == 5250
    assert max(len(deck) for deck in decks) - min(len(deck) for deck in decks) <= 1
    assert decks[0].title["en"] == f"Opentdb dump (1/{len(written)})"
