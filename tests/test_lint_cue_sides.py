"""The `form-cues` warning's other side: right answers that are the longest or the shortest
choice far less often than chance, or neither of them far more often (the "middle-picker"),
in one deck and across decks loaded together; and a deck balanced as chance would place its
right answers, which gets none."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main

# Four choices of distinct lengths, no word shared with one another or with the question, so
# only the length cues can name a choice. By length rank: 0 shortest ... 3 longest.
RANKED = ["Ash", "Birch tree", "Cedar wood planks", "Douglas firs, cut in the far north"]


def deck(path: Path, ranks: list[int], title: str = "Cues") -> Path:
    """A deck whose question i has its right answer at length rank `ranks[i]`; the choices'
    order rotates so the right answer's position says nothing."""
    lines = [f"title: {title}", "locales: [en]", "questions:"]
    for index, rank in enumerate(ranks):
        turn = index % 4
        choices = RANKED[turn:] + RANKED[:turn]
        lines += [f"  - id: {title.lower()}-{index + 1}", f'    text: "Which one, case {index}?"']
        lines += ["    choices:", *(f'      - "{choice}"' for choice in choices)]
        lines += [f"    answer: {choices.index(RANKED[rank])}", '    explanation: "So it is."']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def form_cues(capsys: pytest.CaptureFixture[str], *paths: Path) -> list[str]:
    main(["validate", *map(str, paths)])
    return [line for line in capsys.readouterr().out.splitlines() if "[form-cues]" in line]


def test_the_right_answer_never_the_longest_is_a_form_cue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 18 questions: shortest 5 times (chance 4.5), in the middle 13, the longest never.
    path = deck(tmp_path / "cues.yaml", [0] * 5 + [1, 2] * 6 + [1])
    assert form_cues(capsys, path) == [
        f"{path}:3:1: warning: the right answer is the longest choice in only 0 of the 18 "
        f"questions with a single longest choice; chance would give 4.5 (p = 0.006), so ruling "
        f"out the longest choice scores without knowing: let the right answer be the longest "
        f"choice about as often as chance [form-cues]"
    ]


def test_the_right_answer_never_the_shortest_is_a_form_cue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = deck(tmp_path / "cues.yaml", [3] * 5 + [1, 2] * 6 + [2])
    assert form_cues(capsys, path) == [
        f"{path}:3:1: warning: the right answer is the shortest choice in only 0 of the 18 "
        f"questions with a single shortest choice; chance would give 4.5 (p = 0.006), so "
        f"ruling out the shortest choice scores without knowing: let the right answer be the "
        f"shortest choice about as often as chance [form-cues]"
    ]


def test_the_right_answer_always_in_the_middle_is_a_form_cue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 12 of 12 in the middle: neither end alone is clearly rare (0.75^12 = 0.03), both are.
    path = deck(tmp_path / "cues.yaml", [1, 2] * 6)
    assert form_cues(capsys, path) == [
        f"{path}:3:1: warning: the right answer is neither the longest nor the shortest choice "
        f"in 12 of the 12 questions with a single longest or shortest choice; chance would give "
        f"6.0 (p = 0.0002), so ruling out the longest and the shortest scores without knowing: "
        f"let the right answer be one of them about as often as chance [form-cues]"
    ]


def test_a_deck_balanced_as_chance_places_its_answers_gets_no_form_cue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = deck(tmp_path / "cues.yaml", [0, 1, 2, 3] * 4)
    assert form_cues(capsys, path) == []


def test_decks_each_a_little_off_add_up_to_a_cue_across_decks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each deck: the longest never in 10 (0.75^10 = 0.06, within chance); both: 0 in 20.
    ranks = [0, 0, 0, 1, 2, 1, 2, 1, 2, 1]
    first = deck(tmp_path / "a.yaml", ranks, "First")
    second = deck(tmp_path / "b.yaml", ranks, "Second")
    assert form_cues(capsys, first) == []
    assert form_cues(capsys, second) == []
    assert form_cues(capsys, first, second) == [
        f"{first}:3:1: warning: across the 2 decks loaded together, the right answer is the "
        f"longest choice in only 0 of the 20 questions with a single longest choice; chance "
        f"would give 5.0 (p = 0.003), so ruling out the longest choice scores without knowing: "
        f"let the right answer be the longest choice about as often as chance [form-cues]"
    ]


def test_too_many_longest_across_decks_names_each_question_and_its_deck_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 3 of 3 longest in each deck is within chance (1 in 64); 6 of 6 together is not.
    first = deck(tmp_path / "a.yaml", [3, 3, 3], "First")
    second = deck(tmp_path / "b.yaml", [3, 3, 3], "Second")
    (warning,) = form_cues(capsys, first, second)
    assert warning.startswith(
        f"{first}:3:1: warning: across the 2 decks loaded together, the right answer is the "
        f"longest choice in 6 of the 6 questions with a single longest choice;"
    )
    assert warning.endswith(
        "'first-1' (a), 'first-2' (a), 'first-3' (a), 'second-1' (b), 'second-2' (b), "
        "'second-3' (b) [form-cues]"
    )


def test_questions_that_ignore_form_cues_are_left_out_across_decks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = deck(tmp_path / "a.yaml", [3, 3, 3], "First")
    second = deck(tmp_path / "b.yaml", [3, 3, 3], "Second")
    text = second.read_text(encoding="utf-8")
    second.write_text(
        text.replace("  - id: second-1\n", "  - id: second-1\n    lint: {ignore: [form-cues]}\n"),
        encoding="utf-8",
    )
    (warning,) = form_cues(capsys, first, second)
    assert "in 5 of the 5 questions" in warning
    assert "'second-1'" not in warning
