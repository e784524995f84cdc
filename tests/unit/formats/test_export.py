"""`export_deck`: the formats and locales it accepts, and a CSV that keeps every locale."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from bot.decks.formats import ExportError, export_deck, export_file_name
from tests.unit.formats.conftest import load_deck

SEED = Path(__file__).resolve().parents[3] / "questions" / "model-pipeline-parallelism.yaml"


def test_unknown_formats_and_locales_are_refused() -> None:
    deck, _ = load_deck(SEED)
    assert deck is not None
    with pytest.raises(
        ExportError, match="cannot export to 'aiken'; use one of gift, moodle-xml, csv"
    ):
        export_deck(deck, "aiken")
    with pytest.raises(ExportError, match=r"has no locale 'fr' \(it has bn, en\)"):
        export_deck(deck, "gift", "fr")
    assert export_file_name(deck, "moodle-xml") == "model-pipeline-parallelism.xml"


def test_gift_defaults_to_the_first_locale() -> None:
    deck, _ = load_deck(SEED)
    assert deck is not None
    assert deck.questions[0].text["bn"] in export_deck(deck, "gift")


def test_csv_has_every_locale_and_a_bom_for_excel() -> None:
    deck, _ = load_deck(SEED)
    assert deck is not None
    text = export_deck(deck, "csv")
    assert text.startswith("\ufeffid,answer,tags,shuffle,seconds,text:bn,")
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert len(rows) == len(deck.questions)
    first = rows[0]
    assert first["text:en"] == deck.questions[0].text["en"]
    assert first["answer"] == "A"
    assert first["deck_title:bn"] == deck.title["bn"]
    assert rows[1]["deck_title:bn"] == ""
