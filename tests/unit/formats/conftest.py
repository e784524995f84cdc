"""Shared by the format tests: the fixture folder, and an import that returns the loaded deck."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from bot.decks.formats import ImportOutcome, import_file
from bot.decks.loading import load_decks
from bot.decks.model import Deck
from bot.decks.problem import Problem

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TODAY = date(2026, 12, 3)

Importer = Callable[..., tuple[ImportOutcome, Deck | None]]


@pytest.fixture
def run_import(tmp_path: Path) -> Importer:
    """Imports a file into tmp_path/out/<name>.yaml; the deck is None when nothing was written."""

    def run(
        path: Path,
        *,
        fmt: str | None = None,
        locale: str | None = "en",
        deck_id: str | None = None,
        out: Path | None = None,
    ) -> tuple[ImportOutcome, Deck | None]:
        target = out or tmp_path / "out" / f"{path.name}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        existed = target.exists()
        outcome = import_file(
            path,
            fmt=fmt,
            out=target,
            locale=locale,
            deck_id=deck_id,
            today=TODAY,
        )
        if outcome.written is None:
            assert target.exists() is existed
            return outcome, None
        return outcome, loaded(outcome.written)

    return run


def loaded(path: Path) -> Deck:
    """The deck in `path`, validated as `quizbot validate` does."""
    deck, problems = load_deck(path)
    assert problems == [], [str(problem) for problem in problems]
    assert deck is not None
    return deck


def texts(deck: Deck, locale: str = "en") -> dict[str, dict[str, Any]]:
    """Each question by id as plain values in one locale, for readable assertions."""
    return {
        question.id: {
            "text": question.text[locale],
            "choices": [choice.text[locale] for choice in question.choices],
            "answer": question.answer,
            "whys": [(choice.why or {}).get(locale) for choice in question.choices],
            "explanation": question.explanation[locale],
            "tags": list(question.tags),
        }
        for question in deck.questions
    }


def load_deck(path: Path) -> tuple[Deck | None, list[Problem]]:
    """The deck in one file, or None, and the file's problems."""
    report = load_decks([path])
    return (report.decks[0] if report.decks else None), list(report.problems)
