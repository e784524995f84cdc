"""What every import does to choices: labels the source wrote itself, and true/false order."""

from __future__ import annotations

from pathlib import Path

from tests.unit.formats.conftest import Importer, texts


def test_letter_labels_are_stripped_when_every_choice_carries_them_in_order(
    tmp_path: Path, run_import: Importer
) -> None:
    # Issue 23 D7: "A) Paris" kept its label and was shuffled: players saw "A. C) Paris".
    source = tmp_path / "labels.gift"
    source.write_text(
        "::caps::Capital of France?{=A) Paris ~B) Lyon ~C) Nice}\n\n"
        "::small::Capital of Italy?{~a. Milan =b. Rome}\n\n"
        "::paren::Capital of Spain?{=(a) Madrid ~(b) Seville}\n\n"
        "::bengali::বাংলাদেশের রাজধানী?{=ক) ঢাকা ~খ) খুলনা}\n\n"
        "::gap::Pick one{=A) one ~C) three}\n\n"
        "::lone::Which grade?{=A. top ~average}\n\n"
        "::mixed::Which?{=A) one ~B. two}\n\n"
        "::word::Article?{=a cat ~b dog}\n",
        encoding="utf-8",
    )
    outcome, deck = run_import(source)
    assert deck is not None, outcome.lines
    found = {key: value["choices"] for key, value in texts(deck).items()}
    assert found == {
        "caps": ["Paris", "Lyon", "Nice"],
        "small": ["Milan", "Rome"],
        "paren": ["Madrid", "Seville"],
        "bengali": ["ঢাকা", "খুলনা"],
        "gap": ["A) one", "C) three"],
        "lone": ["A. top", "average"],
        "mixed": ["A) one", "B. two"],
        "word": ["a cat", "b dog"],
    }


def test_true_false_questions_are_not_shuffled_and_true_comes_first(
    tmp_path: Path, run_import: Importer
) -> None:
    # Issue 23 D8: imported true/false questions were shuffled ("A. False / B. True").
    gift = tmp_path / "tf.gift"
    gift.write_text("::sky::The sky is green.{F}\n\n::pick::Pick one{=x ~y}\n")
    aiken = tmp_path / "tf.txt"
    aiken.write_text("Water boils at 100 C at sea level.\nA) False\nB) True\nANSWER: B\n")
    opentdb = tmp_path / "tf.json"
    opentdb.write_text(
        '{"response_code": 0, "results": [{"category": "Science", "type": "boolean",'
        ' "difficulty": "easy", "question": "Ice is water.", "correct_answer": "True",'
        ' "incorrect_answers": ["False"]}]}'
    )
    xml = tmp_path / "tf.xml"
    xml.write_text(
        '<quiz><question type="truefalse"><name><text>ice</text></name>'
        '<questiontext format="plain_text"><text>Ice is water.</text></questiontext>'
        '<answer fraction="0"><text>false</text></answer>'
        '<answer fraction="100"><text>true</text></answer></question></quiz>'
    )
    for path in (gift, aiken, opentdb, xml):
        outcome, deck = run_import(path)
        assert deck is not None, outcome.lines
        first = deck.questions[0]
        assert [choice.text["en"] for choice in first.choices] == ["True", "False"]
        assert first.shuffle is False, path.name
    assert deck is not None
    _, gift_deck = run_import(gift, out=tmp_path / "again.yaml")
    assert gift_deck is not None
    assert gift_deck.questions[0].answer == 1
    assert gift_deck.questions[1].shuffle is True
    _, aiken_deck = run_import(aiken, out=tmp_path / "aiken.yaml")
    assert aiken_deck is not None and aiken_deck.questions[0].answer == 0
