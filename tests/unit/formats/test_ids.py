"""Question ids come from what a question says, never from where it sits in the file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.decks.formats.slug import IdMaker, content_id, in_other_script
from tests.unit.formats.conftest import FIXTURES, Importer
from tests.unit.formats.fixtures.list_ids import fixture_files, ids_of

ON_MAIN = json.loads((FIXTURES / "ids-on-main.json").read_text(encoding="utf-8"))
REPROS = FIXTURES / "repros"
CONTENT_ID = re.compile(r"q-[0-9a-f]{10}")


@pytest.mark.parametrize("relative", sorted(ON_MAIN))
def test_every_id_a_fixture_got_before_is_unchanged_but_positional_ones(relative: str) -> None:
    # Issue 36 Deliver 1: ids that import today stay; `question-N` (by position) did not
    # come from the question, so those, and only those, become content ids.
    before = ON_MAIN[relative]
    now = ids_of(FIXTURES / relative)
    if before is None:
        assert now is None
        return
    # a Red question's own line breaks are kept now: compare the words
    assert now is not None
    assert [text.split() for text, _ in now] == [text.split() for text, _ in before]
    for (text, old), (_, new) in zip(before, now, strict=True):
        if re.fullmatch(r"question-\d+", old):
            assert CONTENT_ID.fullmatch(new), (text, new)
        else:
            assert new == old, text


def test_the_list_covers_every_fixture_main_had() -> None:
    listed = {path.relative_to(FIXTURES).as_posix() for path in fixture_files()}
    assert listed == set(ON_MAIN)


def test_bengali_ids_follow_their_questions_when_the_file_is_reordered(
    run_import: Importer, tmp_path: Path
) -> None:
    # Finding 2 (d5): both files gave `question-1` to their first question, so stored answers
    # of the national flower attached to the national fruit after a reorder.
    _, first = run_import(REPROS / "d5-ids-non-latin.json", locale=None)
    _, second = run_import(REPROS / "d5-ids-non-latin-reordered.json", locale=None)
    assert first is not None and second is not None
    by_text = {question.text["bn"]: question.id for question in first.questions}
    assert {question.text["bn"]: question.id for question in second.questions} == by_text
    assert all(CONTENT_ID.fullmatch(question_id) for question_id in by_text.values())
    assert len(set(by_text.values())) == 2
    _, again = run_import(REPROS / "d5-ids-non-latin.json", locale=None, out=tmp_path / "a.yaml")
    assert again is not None
    assert [question.id for question in again.questions] == [q.id for q in first.questions]


def test_a_content_id_ignores_case_spacing_unicode_form_and_choice_order() -> None:
    composed, decomposed = "কী?", "কী?"
    assert content_id(f"  {composed} ", ["আম", "জাম"]) == content_id(decomposed, ["জাম", "আম"])
    assert content_id("Ünïcode", ["A"]) == content_id("u\u0308ni\u0308code".upper(), ["a"])
    assert content_id("নিচের কোনটি সঠিক?", ["i ও ii"]) != content_id(
        "নিচের কোনটি সঠিক?", ["ii ও iii"]
    )


def test_stray_latin_bits_in_a_bengali_text_do_not_make_its_id() -> None:
    # Finding 2: "flow", "flow-2", "1-50" came from Latin bits of Bengali questions, and the
    # -2 went to whichever came second.
    ids = IdMaker()
    first = ids.make("", "Data flow কী ধরনের ডায়াগ্রাম দেখায়?", ["a", "b"])
    second = ids.make("", "Control flow কী বোঝায়?", ["c", "d"])
    assert CONTENT_ID.fullmatch(first) and CONTENT_ID.fullmatch(second)
    assert in_other_script("১-৫০ পর্যন্ত সংখ্যা কয়টি?")
    assert not in_other_script("What does σ denote in the normal distribution?")
    assert IdMaker().make("", "What does σ denote?", []) == "what-does-denote"


def test_a_title_in_another_script_gives_the_content_id_of_the_title() -> None:
    ids = IdMaker()
    assert ids.make("জাতীয় ফুল", "অন্য লেখা", ["x"]) == content_id("জাতীয় ফুল")
    assert ids.make("red-planet", "বাংলা", []) == "red-planet"
    assert ids.make("7", "Seven?", []) == "q-7"


def test_many_questions_that_start_alike_get_numbered_ids_in_linear_time() -> None:
    ids = IdMaker()
    made = [ids.make("", "Which of these is right?", []) for _ in range(20_000)]
    assert made[:3] == [
        "which-of-these-is-right",
        "which-of-these-is-right-2",
        "which-of-these-is-right-3",
    ]
    assert len(set(made)) == 20_000
