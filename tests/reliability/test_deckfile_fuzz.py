"""Fuzzed deck files: whatever the bytes, the loader answers with problems, never a crash."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.decks.loading import load_decks

SETTINGS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
KEYS = [
    "id",
    "title",
    "locales",
    "questions",
    "text",
    "choices",
    "answer",
    "explanation",
    "why",
    "shuffle",
    "tags",
    "en",
    "bn",
]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 10), st.floats(allow_nan=True), st.text(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), inner, max_size=6),
    ),
    max_leaves=40,
)


def check(path: Path) -> None:
    report = load_decks([path])
    problems = report.problems
    assert len(report.decks) == (0 if problems else 1)
    for p in problems:
        assert p.path == str(path)
        assert p.line >= 1 and p.column >= 1
        assert p.message.strip()


@SETTINGS
@given(data=values)
def test_any_yaml_structure(tmp_path: Path, data: object) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    check(path)


@SETTINGS
@given(raw=st.binary(max_size=400))
def test_any_bytes(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(raw)
    check(path)


@SETTINGS
@given(
    cut=st.integers(0, 2000),
    junk=st.text(alphabet="{}[]:&*!|>-'\"\n\t #%@`", max_size=10),
)
def test_a_real_deck_cut_and_spliced(tmp_path: Path, cut: int, junk: str) -> None:
    seed = Path(__file__).resolve().parents[2] / "questions" / "model-pipeline-parallelism.yaml"
    text = seed.read_text(encoding="utf-8")
    cut = min(cut * 7, len(text))
    path = tmp_path / "fuzz.yaml"
    path.write_text(text[:cut] + junk + text[cut:], encoding="utf-8")
    check(path)
