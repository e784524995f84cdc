"""libyaml composes deck files; what an author sees must not change by a byte.

Each case loads the same files with libyaml on and with `_GuardedLoader` alone, and compares
decks, problems and the positions of every node the tree builder reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.decks import reading
from bot.decks.format import MAX_DEPTH, MAX_NODES
from bot.decks.loading import DeckReport, load_decks

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")

DECKS = Path(__file__).resolve().parents[1] / "decks"
SEED = Path(__file__).resolve().parents[2] / "questions" / "model-pipeline-parallelism.yaml"
FIXTURES = sorted([SEED, *DECKS.rglob("*.yaml"), *DECKS.rglob("*.yml")])
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def loaded(paths: list[Path], fast: bool) -> DeckReport:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reading, "_USE_LIBYAML", fast)
        return load_decks(paths)


def assert_same_both_ways(*paths: Path) -> DeckReport:
    fast, slow = loaded(list(paths), fast=True), loaded(list(paths), fast=False)
    assert [str(p) for p in fast.problems] == [str(p) for p in slow.problems]
    assert fast.decks == slow.decks
    assert fast.files == slow.files
    return fast


def walk(node: yaml.Node) -> Iterator[tuple[object, ...]]:
    """Every node in order with what the builder reads; an alias shows where it first was."""
    first: dict[int, int] = {}
    stack = [node]
    while stack:
        node = stack.pop()
        if id(node) in first:
            yield ("alias", first[id(node)])
            continue
        first[id(node)] = len(first)
        mark = node.start_mark
        value = node.value if isinstance(node, yaml.ScalarNode) else type(node).__name__
        yield (node.tag, value, mark.line, mark.column)
        if isinstance(node, yaml.MappingNode):
            stack.extend(item for pair in reversed(node.value) for item in reversed(pair))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_and_shipped_deck_loads_the_same(path: Path) -> None:
    assert_same_both_ways(path)


def test_libyaml_marks_every_node_where_pyyaml_does() -> None:
    slow_path = set()
    for path in FIXTURES:
        text = path.read_text(encoding="utf-8-sig")
        if not reading._libyaml_may_compose(text):
            slow_path.add(path.name)
            continue
        fast = yaml.compose(text, Loader=yaml.CSafeLoader)
        slow = yaml.compose(text, Loader=reading._GuardedLoader)
        assert fast is not None and slow is not None, path.name
        assert list(walk(fast)) == list(walk(slow)), path.name
    # An empty value, a tag, a syntax error: everything else is composed by libyaml.
    assert slow_path == {"Bad_Name.yaml", "python-tag.yaml", "syntax.yaml"}


def test_the_good_and_shipped_decks_take_the_libyaml_path() -> None:
    for path in [SEED, *sorted((DECKS / "good").iterdir())]:
        assert reading._libyaml_may_compose(path.read_text(encoding="utf-8-sig")), path.name


def test_folders_load_the_same() -> None:
    report = assert_same_both_ways(DECKS / "good", DECKS / "broken", SEED.parent)
    assert report.decks and report.problems


def test_mangled_fixtures_load_the_same(tmp_path: Path) -> None:
    """Each line dropped, or cut in half: the syntax errors too keep PyYAML's words."""
    for source in [path for path in FIXTURES if path != SEED]:  # the seed is spliced below
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
        for index, line in enumerate(lines):
            for variant in ("", line[: len(line) // 2]):
                path = tmp_path / source.name
                path.write_text("".join([*lines[:index], variant, *lines[index + 1 :]]), "utf-8")
                assert_same_both_ways(path)


@pytest.mark.parametrize(
    "text",
    [
        "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1),
        "[" * MAX_DEPTH + "]" * MAX_DEPTH,
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
        "a: &a [x]\nb: [" + "*a, " * (MAX_NODES - 6) + "]\n",
        "a: &a [x]\nb: [" + "*a, " * (MAX_NODES - 5) + "]\n",
        "title: &loop [*loop]\n",
        "a: *nowhere\n",
        "a: &x 1\nb: &x 2\n",
        "title: A\n---\ntitle: B\n",
        "locales: [en]\ntitle: a\x85b\u2028c\n",
        "\ufefftitle: T\n",
        "title: T\r\nlocales: [en]\rquestions:\n",
        # Where libyaml and PyYAML differ, found by the fuzzing below: all take the slow path.
        "title: 1\t\n",
        "title: !\n",
        "tags: [what?]\n",
        "text: {en: a?b}\n",
        "text: |#\n  x\n",
        "title: {en: }\n",
        "? a",
        "title: T\n\ufefflocales: [en]\n",
    ],
)
def test_limits_and_odd_input_load_the_same(tmp_path: Path, text: str) -> None:
    path = tmp_path / "odd.yaml"
    path.write_text(text, encoding="utf-8", newline="")
    assert_same_both_ways(path)


@SETTINGS
@given(
    cut=st.integers(0, 2000),
    junk=st.text(alphabet="{}[]:&*!|>-?,'\"\\\n\r\t #%@`\x85\u2028\ufeff\xa0é", max_size=12),
)
def test_a_real_deck_cut_and_spliced_loads_the_same(tmp_path: Path, cut: int, junk: str) -> None:
    text = SEED.read_text(encoding="utf-8")
    cut = min(cut * 7, len(text))
    path = tmp_path / "fuzz.yaml"
    path.write_text(text[:cut] + junk + text[cut:], encoding="utf-8", newline="")
    assert_same_both_ways(path)


PIECES = [
    *"ab1 :-[]{},&*!?|>'\"#%@`\\\n\r\t\x85\u2028\ufeffé",
    *["\n  ", "\n- ", ": ", "? ", "|\n", ">-\n", "---\n", "...\n", "&a ", "*a", "!!str "],
    *["\\u00e9", "\\x41", "\\/", "\\N", "''", "ক", "en: ", "{en: ", "[en, bn]"],
]


@SETTINGS
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=30))
def test_any_yaml_ish_text_loads_the_same(tmp_path: Path, pieces: list[str]) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text("".join(pieces), encoding="utf-8", newline="")
    assert_same_both_ways(path)
