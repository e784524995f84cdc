"""`import_file` as the CLI calls it: where it writes, what it refuses, what the deck records."""

from __future__ import annotations

import gc
from dataclasses import replace
from pathlib import Path

import pytest

from bot.decks.formats import FORMATS, guess_format, import_file
from bot.decks.formats.draft import DraftDeck, FormatError
from bot.decks.formats.writer import WriteError, write_deck
from tests.unit.formats.conftest import FIXTURES, TODAY, Importer

GIFT = FIXTURES / "moodle" / "gift" / "questions.gift.txt"


def test_the_default_out_is_the_deck_id_in_the_questions_folder(tmp_path: Path) -> None:
    source = tmp_path / "My Quiz_2026.gift"
    source.write_text("::q::Up?{=yes ~no####Because.}\n")
    outcome = import_file(
        source, fmt=None, out=None, locale="en", deck_id=None, today=TODAY, questions_dir=tmp_path
    )
    assert outcome.status == 0, outcome.lines
    assert outcome.written == tmp_path / "my-quiz-2026.yaml"
    text = outcome.written.read_text(encoding="utf-8")
    assert text.startswith(
        "# Imported from My Quiz_2026.gift (Moodle GIFT) on 2026-12-03 by `quizbot import`.\n"
    )
    assert "title: My Quiz 2026\n" in text
    assert outcome.lines == [
        f"{outcome.written}: wrote 1 question from {source} (Moodle GIFT), 0 skipped"
    ]


def test_an_existing_file_is_never_replaced(tmp_path: Path, run_import: Importer) -> None:
    out = tmp_path / "out" / "deck.yaml"
    out.parent.mkdir()
    out.write_text("keep me")
    outcome, deck = run_import(GIFT, out=out)
    assert deck is None and outcome.status == 1
    assert outcome.lines[-1] == (
        f"{GIFT}: error: {out} already exists; choose another --out or remove it first; "
        "nothing written"
    )
    assert out.read_text() == "keep me"
    assert sorted(path.name for path in out.parent.iterdir()) == ["deck.yaml"]


def test_usage_errors(tmp_path: Path) -> None:
    def lines(fmt: str | None = None, locale: str = "en", deck_id: str | None = None) -> list[str]:
        outcome = import_file(
            GIFT,
            fmt=fmt,
            out=None,
            locale=locale,
            deck_id=deck_id,
            today=TODAY,
            questions_dir=tmp_path,
        )
        assert outcome.status == 2 and outcome.written is None
        return outcome.lines

    assert lines(fmt="docx") == [
        f"{GIFT}: error: unknown format 'docx'; "
        "use one of gift, moodle-xml, aiken, opentdb, csv, kahoot, json, red, moodle-csv, bn-mcq, "
        "opentriviaqa"
    ]
    assert lines(locale="english") == [
        f"{GIFT}: error: --locale 'english' is not a language code like en, bn or pt-BR"
    ]
    assert lines(deck_id="daily") == [
        f"{GIFT}: error: --id 'daily' must be a-z, 0-9 and '-' (at most 64), "
        "and not daily or weekdays"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_missing_file(tmp_path: Path, run_import: Importer) -> None:
    missing = tmp_path / "nope.gift"
    assert run_import(missing)[0].lines == [f"{missing}: error: no such file"]


def test_id_locale_and_provenance(run_import: Importer) -> None:
    outcome, deck = run_import(GIFT, locale="bn", deck_id="moodle-gift")
    assert deck is not None
    assert (deck.id, deck.locales) == ("moodle-gift", ("bn",))
    assert deck.questions[2].choices[0].text == {"bn": "সত্য"}
    assert deck.questions[2].explanation == {"bn": "উত্তর হলো সত্য।"}
    assert outcome.written is not None
    text = outcome.written.read_text(encoding="utf-8")
    assert "\nsource: Imported from questions.gift.txt (Moodle GIFT) on 2026-12-03\n" in text
    assert "license:" not in text
    assert deck.origin == "Imported from questions.gift.txt (Moodle GIFT) on 2026-12-03"


def test_a_deck_that_does_not_validate_is_not_written(tmp_path: Path) -> None:
    out = tmp_path / "bad.yaml"
    with pytest.raises(WriteError, match="does not validate"):
        write_deck("id: bad\ntitle: Bad\nlocales: [en]\nquestions: []\n", out)
    assert list(tmp_path.iterdir()) == []


def test_dropped_media_is_a_warning_at_the_question(tmp_path: Path, run_import: Importer) -> None:
    source = tmp_path / "media.gift"
    source.write_text(
        "\n\n::pic::[html]<p>Which bird?</p><img src='a.png'>"
        "<audio src='b.mp3'></audio>{=Owl ~Crow}\n"
    )
    outcome, deck = run_import(source)
    assert deck is not None
    assert outcome.lines[:2] == [
        f"{source}:3: warning: audio dropped from question pic",
        f"{source}:3: warning: image dropped from question pic",
    ]


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("moodle/gift/questions.gift.txt", "gift"),
        ("moodle/gift/questions_in_category.gift.txt", "gift"),
        ("moodle/aiken/questions.aiken.txt", "aiken"),
        ("moodle/aiken/aiken_errors.txt", "aiken"),
        ("moodle/xml/multichoice.trimmed.xml", "moodle-xml"),
        ("opentdb/amount10.json", "opentdb"),
        ("kahoot/kahoot-quiz-template.xlsx", "kahoot"),
    ],
)
def test_guess_format_knows_every_fixture(relative: str, expected: str) -> None:
    path = FIXTURES / relative
    renamed = path.with_suffix(".unknown") if expected != "kahoot" else path
    assert guess_format(renamed, path.read_bytes()[:8192]) == expected


def test_a_reader_bug_still_ends_in_one_line(
    tmp_path: Path, run_import: Importer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(data: bytes, locale: str) -> DraftDeck:
        raise ValueError("unexpected")

    monkeypatch.setitem(FORMATS, "gift", replace(FORMATS["gift"], reader=broken))
    outcome, deck = run_import(GIFT, fmt="gift")
    assert deck is None and outcome.status == 1
    assert outcome.lines == [
        f"{GIFT}: error: could not read it as Moodle GIFT (ValueError: unexpected); "
        "please report this with the file"
    ]


def test_a_read_pauses_the_garbage_collector_and_gives_it_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reader runs with the cyclic collector off (a third of a large read was its passes),
    which is on again afterwards, after a refusal too, and stays off if it was off."""
    seen: list[bool] = []

    def refusing(data: bytes, locale: str) -> DraftDeck:
        seen.append(gc.isenabled())
        raise FormatError("no")

    fmt = replace(FORMATS["gift"], reader=refusing)
    with pytest.raises(FormatError):
        fmt.read(b"x", "en")
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(FormatError):
            fmt.read(b"x", "en")
        assert not gc.isenabled()
    finally:
        gc.enable()
