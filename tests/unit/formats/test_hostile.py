"""Hostile input: refused in one line naming the file and the problem, with nothing written.

No timing assertions: what keeps these fast is checked instead (the size refusal never opens
the file; entity declarations are refused before expansion).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.decks.formats import FORMATS, import_file
from bot.decks.formats.draft import FormatError
from bot.decks.loading import load_decks
from tests.unit.formats.conftest import TODAY, Importer

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE quiz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<quiz><question type="multichoice"><name><text>&lol9;</text></name></question></quiz>
"""


@pytest.mark.parametrize("fmt", [None, "moodle-xml"])
def test_an_xml_bomb_is_refused_before_it_expands(
    tmp_path: Path, run_import: Importer, fmt: str | None
) -> None:
    bomb = tmp_path / "bomb.xml"
    bomb.write_text(BILLION_LAUGHS)
    outcome, deck = run_import(bomb, fmt=fmt)
    assert deck is None and outcome.status == 1
    assert outcome.lines == [
        f"{bomb}: error: the XML declares an entity ('lol'); entities can expand to gigabytes "
        "(an XML bomb), so the file is refused"
    ]


def test_an_external_entity_is_refused(tmp_path: Path, run_import: Importer) -> None:
    sneaky = tmp_path / "xxe.xml"
    sneaky.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE quiz [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        "<quiz><question type='multichoice'><name><text>&x;</text></name></question></quiz>"
    )
    outcome, deck = run_import(sneaky)
    assert deck is None
    assert outcome.lines[0].startswith(f"{sneaky}: error: the XML declares an entity ('x')")


def test_a_50_mb_file_is_refused_by_its_size_without_being_opened(
    tmp_path: Path, run_import: Importer, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.gift"
    with big.open("wb") as file:
        file.truncate(50 * 1024 * 1024)  # sparse: takes no disk
    opened: list[Path] = []
    real_open = Path.open

    def spy(self: Path, *args: Any, **kwargs: Any) -> Any:
        opened.append(self)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", spy)
    outcome, deck = run_import(big)
    assert deck is None and outcome.status == 1
    assert outcome.lines == [
        f"{big}: error: the file is 52,428,800 bytes; an import may be at most 10 MiB"
    ]
    assert big not in opened


@pytest.mark.parametrize("fmt", [None, "gift", "aiken", "csv", "opentdb", "moodle-xml"])
def test_a_png_is_refused_as_an_image(
    tmp_path: Path, run_import: Importer, fmt: str | None
) -> None:
    image = tmp_path / "quiz.txt"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + random.Random(1).randbytes(4000))
    outcome, deck = run_import(image, fmt=fmt)
    assert deck is None
    title = FORMATS[fmt].title if fmt else "question"
    assert outcome.lines == [f"{image}: error: this is a PNG image, not a {title} file"]


def test_random_bytes_are_refused_as_binary(tmp_path: Path, run_import: Importer) -> None:
    noise = tmp_path / "noise.gift"
    noise.write_bytes(bytes(range(256)) * 16)
    outcome, _ = run_import(noise)
    assert outcome.lines == [f"{noise}: error: this is binary data, not a question file"]
    outcome, _ = run_import(noise, fmt="gift")
    assert outcome.lines == [f"{noise}: error: this is binary data, not a Moodle GIFT file"]


def test_invalid_utf8_is_refused_at_its_line(tmp_path: Path, run_import: Importer) -> None:
    latin = tmp_path / "latin.gift"
    latin.write_bytes(b"// ok\n\n::q::Caf\xe9?{=yes ~no}\n")
    outcome, _ = run_import(latin)
    assert outcome.lines == [
        f"{latin}:3: error: not UTF-8 (byte 0xe9, column 9); save the file as UTF-8"
    ]


BROKEN = {
    "gift": ("quiz.gift", b"::a::Unclosed {=x ~y\n", "1: skipped: its '{' is never closed"),
    "moodle-xml": ("quiz.xml", b"<quiz>\n<question>\n", "3: error: not well-formed XML"),
    "aiken": ("quiz.txt", b"A) no question\n", "1: skipped: a choice line"),
    "opentdb": ("quiz.json", b'{"results": [\n{]}', "2: error: not valid JSON"),
    "csv": ("quiz.csv", b"a,b\n1,2\n", "1: error: the header has no answer, text"),
    "kahoot": ("quiz.xlsx", b"PK\x03\x04broken", ": error: not an .xlsx workbook"),
    "json": ("quiz.json", b'[\n{"question": ]', "2: error: not valid JSON"),
    "red": ("list.yaml", b"AUTHOR: x\nUp?: [yes\n", "3: error: YAML syntax error"),
    "moodle-csv": ("quiz.csv", b"questionname,questiontext\n", "1: error: the header has no A"),
    "bn-mcq": ("exam.txt", "১. প্রশ্ন?\n".encode(), "1: skipped: a question with no choices"),
    "opentriviaqa": ("trivia.txt", b"#Q Up?\nA yes\n", "1: skipped: it has no ^ line"),
}


@pytest.mark.parametrize("fmt", sorted(BROKEN))
def test_every_importer_reports_a_broken_file_at_a_line(
    tmp_path: Path, run_import: Importer, fmt: str
) -> None:
    name, data, expected = BROKEN[fmt]
    path = tmp_path / name
    path.write_bytes(data)
    outcome, deck = run_import(path, fmt=fmt)
    assert deck is None and outcome.status == 1
    assert outcome.lines[0].startswith(f"{path}:" if expected[0].isdigit() else str(path))
    assert expected in outcome.lines[0]
    assert not any(name.endswith(".importing.yaml") for name in os.listdir(tmp_path / "out"))


@settings(max_examples=150, deadline=None)
@given(
    fmt=st.sampled_from(sorted(FORMATS)),
    data=st.one_of(
        st.binary(max_size=300),
        st.text(
            alphabet=st.sampled_from(list("{}=~#:\\%[]<>/\"',;\n AB)ANSWER:TF1-")), max_size=300
        ).map(str.encode),
    ),
)
def test_readers_never_raise_anything_but_a_format_error(fmt: str, data: bytes) -> None:
    with contextlib.suppress(FormatError):
        FORMATS[fmt].read(data, "en")


@settings(max_examples=150, deadline=None)
@given(
    fmt=st.sampled_from(["json", "red", "moodle-csv", "bn-mcq"]),
    data=st.text(
        alphabet=st.sampled_from(list('কখগঘঙ()।.:ঃউত্তরব্যাখ্যা১২3[]{}",-? \nqustionaAB0')),
        max_size=300,
    ).map(str.encode),
)
def test_the_new_readers_never_raise_on_text_shaped_like_theirs(fmt: str, data: bytes) -> None:
    with contextlib.suppress(FormatError):
        FORMATS[fmt].read(data, "en")


_KEYS = st.sampled_from(
    [
        "question",
        "q",
        "options",
        "choices",
        "answers",
        "answer",
        "correctAnswer",
        "answerIndex",
        "correct",
        "incorrect_answers",
        "is_correct",
        "text",
        "optionA",
        "optionB",
        "questions",
        "explanation",
        "id",
        "category",
        "tags",
        "type",
        "results",
    ]
)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 6)
    | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_KEYS, inner, max_size=6),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(document=_JSON)
def test_quiz_json_never_raises_on_any_json_of_its_keys(document: Any) -> None:
    data = json.dumps(document).encode()
    with contextlib.suppress(FormatError):
        FORMATS["json"].read(data, "en")


@settings(max_examples=100, deadline=None)
@given(
    document=st.lists(
        st.fixed_dictionaries(
            {"question": st.text(max_size=8)},
            optional={
                "options": st.lists(st.text(max_size=4) | st.integers(0, 4), max_size=6),
                "answer": st.text(max_size=3) | st.integers(-1, 6) | st.lists(st.integers(0, 3)),
                "explanation": st.text(max_size=6),
            },
        ),
        max_size=6,
    )
)
def test_a_quiz_json_import_writes_a_valid_deck_or_nothing(
    tmp_path_factory: pytest.TempPathFactory, document: list[dict[str, Any]]
) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    source = folder / "quiz.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    outcome = import_file(
        source, fmt="json", out=folder / "deck.yaml", locale="en", deck_id="fuzz", today=TODAY
    )
    assert outcome.status in (0, 1), outcome.lines
    if outcome.status == 0:
        assert load_decks([folder / "deck.yaml"]).ok
    else:
        assert not (folder / "deck.yaml").exists()
