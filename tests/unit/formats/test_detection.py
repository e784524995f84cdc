"""Which format a file is, from its content: for `quizbot import`, and for `quizbot validate`
and the bot's start when another tool's file sits where a deck should be (issue 23, D10)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.decks.formats import guess_format
from bot.decks.loading import load_decks
from tests.unit.formats.conftest import FIXTURES


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("json/devops-questions.json", "json"),
        ("json/bn-bank.json", "json"),
        ("json/bn-letters.json", "json"),
        ("json/flagged-options.json", "json"),
        ("json/one-based.json", "json"),
        ("json/questions.js", "json"),
        ("json/unquoted.js", "json"),  # a JS quiz array, not GIFT
        ("opentdb/amount10.json", "opentdb"),
        ("opentdb/general-knowledge-hard.json", "opentdb"),
        ("red/worldcup.yaml", "red"),
        ("red/general.head.yaml", "red"),
        ("moodle-csv/sample.csv", "moodle-csv"),
        ("moodle-csv/extended_sample.csv", "moodle-csv"),
        ("bn-mcq/exam.txt", "bn-mcq"),
    ],
)
def test_each_new_fixture_is_known_by_its_content_alone(relative: str, expected: str) -> None:
    path = FIXTURES / relative
    assert guess_format(path.with_suffix(".unknown"), path.read_bytes()) == expected


def test_a_json_file_of_something_else_is_not_taken_for_open_trivia_db(tmp_path: Path) -> None:
    package = json.dumps({"name": "quiz-app", "results": [{"id": 1}]}).encode()
    assert guess_format(tmp_path / "package.unknown", package) is None
    assert guess_format(tmp_path / "package.json", package) == "json"  # its reader says what


def test_the_head_of_a_big_file_is_enough(tmp_path: Path) -> None:
    head = (FIXTURES / "json" / "devops-questions.json").read_bytes()[:600]
    assert guess_format(tmp_path / "q.unknown", head) == "json"
    head = (FIXTURES / "opentdb" / "amount10.json").read_bytes()[:600]
    assert guess_format(tmp_path / "q.unknown", head) == "opentdb"


def test_a_red_list_in_the_decks_folder_is_one_line_with_its_import_command(
    tmp_path: Path,
) -> None:
    decks = tmp_path / "questions"
    decks.mkdir()
    shutil.copy(FIXTURES / "red" / "worldcup.yaml", decks / "worldcup.yaml")
    shutil.copy(Path(__file__).parents[3] / "questions" / "distributed-training.yaml", decks)
    report = load_decks([decks])
    assert [str(problem) for problem in report.problems] == [
        f"{decks / 'worldcup.yaml'}:1:1: this is a Red-DiscordBot trivia list, not a deck; "
        f"move it out of {decks} and convert it: quizbot import worldcup.yaml --format red"
    ]
    assert [deck.id for deck in report.decks] == ["distributed-training"]  # the others load


@pytest.mark.parametrize(
    ("relative", "fmt", "title"),
    [
        ("moodle/gift/questions.gift.txt", "gift", "a Moodle GIFT file"),
        ("moodle/aiken/questions.aiken.txt", "aiken", "an Aiken file"),
        ("json/bn-bank.json", "json", "a quiz JSON file"),
        ("opentdb/amount10.json", "opentdb", "an Open Trivia DB response"),
        ("bn-mcq/exam.txt", "bn-mcq", "Bengali exam text"),
        ("moodle/xml/truefalse.trimmed.xml", "moodle-xml", "a Moodle XML file"),
    ],
)
def test_another_tools_file_given_to_validate_is_named_in_one_line(
    relative: str, fmt: str, title: str
) -> None:
    path = FIXTURES / relative
    problems = [str(problem) for problem in load_decks([path]).problems]
    assert problems == [
        f"{path}:1:1: this is {title}, not a deck; convert it: quizbot import {path} --format {fmt}"
    ]


def test_a_broken_deck_keeps_its_own_problems(tmp_path: Path) -> None:
    deck = tmp_path / "mine.yaml"
    deck.write_text(
        "title: Mine\nlocales: [en]\nquestons:\n  - id: a\n    text: Up?\n", encoding="utf-8"
    )
    messages = [problem.message for problem in load_decks([deck]).problems]
    assert messages and not any("not a deck" in message for message in messages)
    assert any("unknown key 'questons'" in message for message in messages)


def test_a_deck_written_as_json_keeps_its_own_problems(tmp_path: Path) -> None:
    deck = tmp_path / "mine.yaml"
    question = {"id": "a", "text": "Up?", "choices": ["yes", "no"], "answer": 2}
    deck.write_text(
        json.dumps({"title": "Mine", "locales": ["en"], "questions": [question]}), encoding="utf-8"
    )
    messages = [problem.message for problem in load_decks([deck]).problems]
    assert messages and not any("not a deck" in message for message in messages)


def test_a_quiz_whose_questions_have_a_type_is_not_open_trivia_db(tmp_path: Path) -> None:
    typed = [{"type": "multiple", "question": "Up?", "options": ["yes", "no"], "answer": 0}]
    assert guess_format(tmp_path / "q.json", json.dumps(typed).encode()) == "json"
