"""The fast deck writer writes what PyYAML writes, byte for byte, or leaves the deck to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.decks.formats import block_yaml
from bot.decks.formats.writer import dump_with_pyyaml

QUESTIONS = Path(__file__).resolve().parents[3] / "questions"


@pytest.mark.parametrize("deck", sorted(QUESTIONS.glob("*.yaml")), ids=lambda path: path.name)
def test_every_shipped_deck_is_written_as_pyyaml_writes_it(deck: Path) -> None:
    mapping = yaml.safe_load(deck.read_text(encoding="utf-8"))
    assert block_yaml.dump(mapping) == dump_with_pyyaml(mapping)


@pytest.mark.parametrize(
    "text",
    [
        "What is tensor parallelism?",
        "টেনসর প্যারালেলিজম কী?",
        "Note: the loss scales",
        "a # not a comment",
        "#hash first",
        "- a dash",
        "-1 is not a number here",
        "yes",
        "no",
        "null",
        "~",
        "12",
        "1.5",
        "0x1f",
        "2024-01-01",
        "it's",
        "'quoted'",
        '"double"',
        "ends with colon:",
        " leading space",
        "trailing space ",
        "",
        "---",
        "...",
        "a\nb",
        "a\nb\n",
        "a\n\nb",
        "a\n  indented\nb",
        "x\n\n",
        "\nleading break",
        "space before break \nb",
        "tab\there",
        "bell\x07",
        "bom\ufeff",
        "line\u2028separator",
        "nel\x85",
    ],
)
def test_each_kind_of_text_is_written_as_pyyaml_writes_it(text: str) -> None:
    mapping = {"id": "d", "questions": [{"id": "q1", "text": text, "choices": [text, "b"]}]}
    _same_or_left_to_pyyaml(mapping)


def test_the_common_texts_are_written_fast() -> None:
    """Plain, quoted and multi-line texts are not left to PyYAML (or nothing would be faster)."""
    mapping = {
        "id": "d",
        "title": {"en": "Parallelism", "bn": "প্যারালেলিজম"},
        "locales": ["en", "bn"],
        "shuffle": True,
        "questions": [
            {
                "id": "q1",
                "text": "Note: which is it?",
                "choices": ["yes", {"text": "it's 2", "why": "line one\nline two\n"}],
                "answer": 1,
            }
        ],
    }
    assert block_yaml.dump(mapping) == dump_with_pyyaml(mapping)


texts = st.text(
    alphabet=st.sampled_from([*"ab :#-'\"\n\t?!,[]{}|>%@`&*.01", "ক", "্", "\xa0"]),
    max_size=12,
)
values = st.one_of(texts, st.booleans(), st.integers(-5, 5), st.none())
decks = st.dictionaries(
    st.sampled_from(["id", "text", "no", "y", "title", "why"]),
    st.one_of(
        values,
        st.lists(st.one_of(values, st.dictionaries(st.sampled_from(["text", "why"]), values))),
        st.dictionaries(st.sampled_from(["en", "bn", "on"]), texts),
    ),
    min_size=1,
)


@settings(max_examples=400, deadline=None)
@given(decks)
def test_any_mapping_is_written_as_pyyaml_writes_it_or_left_to_pyyaml(mapping: Any) -> None:
    _same_or_left_to_pyyaml(mapping)


def _same_or_left_to_pyyaml(mapping: dict[str, Any]) -> None:
    try:
        fast = block_yaml.dump(mapping)
    except block_yaml.Unsupported:
        return
    assert fast == dump_with_pyyaml(mapping)
    assert yaml.safe_load(fast) == mapping
