"""Open Trivia DB import of real API responses, in each of the encodings the API offers."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

import pytest

from bot.decks.formats.opentdb import read_opentdb
from tests.unit.formats.conftest import FIXTURES, Importer, texts

OPENTDB = FIXTURES / "opentdb"


def test_a_real_response_decodes_entities_and_tags_category_and_difficulty(
    run_import: Importer,
) -> None:
    outcome, deck = run_import(OPENTDB / "amount10.json")
    assert deck is not None
    assert len(deck.questions) == 10
    found = list(texts(deck).values())
    assert found[3]["text"] == 'In flight systems, what does the initialism "TCAS" stand for?'
    assert found[5]["text"] == "In Finding Nemo, what was the name of Nemo's mom?"
    assert found[3]["tags"] == ["general-knowledge", "hard"]
    right = [q["choices"][q["answer"]] for q in found]
    assert right[0] == "Final Fantasy Versus XIII"
    assert right[9] == "Botulinum toxin"
    boolean = found[6]
    assert (boolean["choices"], boolean["answer"]) == (["True", "False"], 0)
    assert boolean["tags"] == ["vehicles", "easy"]
    assert outcome.written is not None
    written = outcome.written.read_text(encoding="utf-8")
    assert "license: CC BY-SA 4.0" in written
    assert "source: Imported from amount10.json (Open Trivia DB) on 2026-12-03" in written


def test_lines_point_at_each_result() -> None:
    deck = read_opentdb((OPENTDB / "amount10.json").read_text(encoding="utf-8"), "en")
    lines = (OPENTDB / "amount10.json").read_text(encoding="utf-8").splitlines()
    starts = [number for number, line in enumerate(lines, start=1) if line == "    {"]
    assert len(starts) == 10
    assert [question.line for question in deck.questions] == starts
    small = read_opentdb((OPENTDB / "general-knowledge-hard.json").read_text(), "en")
    assert small.questions[0].text == {
        "en": "What type of dog is 'Handsome Dan', the mascot of Yale University?"
    }


def _encoded(encode: str) -> str:
    document = json.loads((OPENTDB / "amount10.json").read_text(encoding="utf-8"))
    import html

    def convert(value: str) -> str:
        plain = html.unescape(value)
        if encode == "base64":
            return base64.b64encode(plain.encode()).decode()
        return quote(plain, safe="")

    for entry in document["results"]:
        for key in ("category", "type", "difficulty", "question", "correct_answer"):
            entry[key] = convert(entry[key])
        entry["incorrect_answers"] = [convert(value) for value in entry["incorrect_answers"]]
    return json.dumps(document)


@pytest.mark.parametrize("encode", ["url3986", "base64"])
def test_url_and_base64_encodings_are_detected(encode: str) -> None:
    deck = read_opentdb(_encoded(encode), "en")
    assert len(deck.questions) == 10
    assert deck.questions[3].text == {
        "en": 'In flight systems, what does the initialism "TCAS" stand for?'
    }
    assert deck.questions[6].choices[0].text == {"en": "True"}
    assert deck.questions[0].tags == ["entertainment-video-games", "medium"]


def test_error_responses_and_broken_json_are_refused(tmp_path: Path, run_import: Importer) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"response_code": 1, "results": []}')
    assert run_import(empty)[0].lines == [
        f"{empty}: error: the response has response_code 1: no results (the API had too few "
        f"questions for the query); it holds no questions"
    ]
    broken = tmp_path / "broken.json"
    broken.write_text('{"response_code": 0,\n "results": [\n  {"type": "multiple",,}\n]}')
    assert run_import(broken)[0].lines == [
        f"{broken}:3: error: not valid JSON: "
        "Expecting property name enclosed in double quotes (column 23)"
    ]
    odd = tmp_path / "odd.json"
    odd.write_text('[{"type": "multiple", "question": "Q?"}, 7]')
    outcome, deck = run_import(odd)
    assert deck is None
    assert outcome.lines[:2] == [
        f"{odd}:1: skipped: result 1 has no correct_answer, incorrect_answers",
        f"{odd}:1: skipped: result 2 is not an object",
    ]
