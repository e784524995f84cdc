"""Every deck in questions/ is valid: a broken deck must fail here, not in a channel.

Nothing here skips: a missing or empty questions/ folder is a failure, as is a missing seed deck.
"""

from __future__ import annotations

from pathlib import Path

from bot.decks.loading import load_decks

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"
SEED = QUESTIONS / "model-pipeline-parallelism.yaml"


def test_the_seed_deck_is_shipped() -> None:
    assert SEED.is_file(), f"{SEED} is missing"


def test_every_shipped_deck_loads_without_problems() -> None:
    report = load_decks([QUESTIONS])
    assert [str(problem) for problem in report.problems] == []
    assert report.files >= 1
    assert len(report.decks) == report.files


def test_every_shipped_deck_has_questions() -> None:
    report = load_decks([QUESTIONS])
    assert report.decks, f"no decks in {QUESTIONS}"
    for deck in report.decks:
        assert len(deck) >= 1, deck.source


def test_the_seed_deck_is_in_bengali_then_english_with_the_seeds_eight_questions() -> None:
    report = load_decks([SEED])
    assert [str(problem) for problem in report.problems] == []
    (deck,) = report.decks
    assert deck.id == "model-pipeline-parallelism"
    assert deck.locales == ("bn", "en")
    assert len(deck) >= 8
