"""Every reader's time is linear in its input (issue 36, Deliver 4): each is fed the largest
file the import accepts (10 MiB, or the most questions a format's own limit lets in) in the
shape that was, or could be, its worst, and must simply finish. No timing assertions: a
quadratic reader takes hours on these, and pytest's own time shows the rest. The times each
took when written are in the issue 36 report; `python -m tests.reliability.test_format_bounds`
prints them.
Together they take two to three minutes on the shared two-core machine.
"""

from __future__ import annotations

import io
import json
import sys
import time
from collections.abc import Callable

import pytest

from bot.decks.formats import FORMATS
from bot.decks.formats.draft import DraftDeck, FormatError
from bot.decks.formats.registry import columns_format
from bot.decks.formats.source import MAX_IMPORT_BYTES

LIMIT = MAX_IMPORT_BYTES - 1024
"""Just under the import's size limit."""


def fill(unit: str, head: str = "", tail: str = "") -> bytes:
    """`head`, then `unit` repeated to just under the limit, then `tail`, as UTF-8."""
    room = LIMIT - len((head + tail).encode())
    return (head + unit * (room // len(unit.encode())) + tail).encode()


def bn_digits() -> bytes:
    # Finding 7: the answer-key pattern was quadratic on a line of digits (40 KB: 18 s).
    return fill("১", "১. বাংলাদেশের জাতীয় ফুল কী?\nক) শাপলা খ) গোলাপ\nউত্তর: ক\n\n")


def bn_continued_choice() -> bytes:
    return fill("আরও লেখা\n", "১. প্রশ্ন কী?\nক) এক খ) দুই\n")


def red_list() -> bytes:
    # Finding 6: 4,000 questions took 51 s; a list may hold 49,000 (its YAML node limit).
    return "".join(
        f"Which country hosted the world cup number {n} of the series?: Country {n}\n"
        for n in range(49_000)
    ).encode()


def gift_tag_spaces() -> bytes:
    # `[tag:` then spaces without `]`: the lazy tag pattern tried every split of them.
    return fill(" ", "// [tag:", "\n::q::Up?{=yes ~no}\n")


def gift_questions() -> bytes:
    return fill("::q::Which planet is called the Red Planet?{=Mars ~Venus ~Jupiter}\n\n")


def gift_open_braces() -> bytes:
    # every line opens a brace and a blank line follows: each blank line looks ahead for '}'
    return fill("::q::Up?{=yes\n\n")


def gift_markup() -> bytes:
    return fill("<b<i<String>&lt;<!-- ", "::q::[html]", "{=yes ~no}\n")


def xml_nesting() -> bytes:
    return fill("<a>", "<quiz>")


def xml_questions() -> bytes:
    question = (
        '<question type="multichoice"><name><text>q</text></name><questiontext format="html">'
        "<text>Which planet is called the Red Planet?</text></questiontext>"
        '<answer fraction="100"><text>Mars</text></answer>'
        '<answer fraction="0"><text>Venus</text></answer></question>\n'
    )
    return fill(question, "<quiz>\n", "</quiz>\n")


def xml_html() -> bytes:
    return fill(
        "&lt;b&lt;i&lt;p&gt;x&lt;sup&gt;2",
        '<quiz><question type="multichoice"><questiontext format="html"><text>',
        '</text></questiontext><answer fraction="100"><text>a</text></answer>'
        '<answer fraction="0"><text>b</text></answer></question></quiz>',
    )


def aiken_spaces() -> bytes:
    # `ANSWER: A` then spaces and no letter: the several-answers pattern split the spaces
    return fill(" ", "Which planet is red?\nA) Mars\nB) Venus\nANSWER: A", "!\n")


def aiken_questions() -> bytes:
    return fill("Which planet is red?\nA) Mars\nB) Venus\nC) Jupiter\nANSWER: A\n\n")


def aiken_choices() -> bytes:
    return fill("A) Mars\n", "Which planet is red?\n", "ANSWER: A\n")


def opentdb_results() -> bytes:
    entry = json.dumps(
        {
            "category": "Science",
            "type": "multiple",
            "difficulty": "easy",
            "question": "Which planet is called the &quot;Red Planet&quot;?",
            "correct_answer": "Mars",
            "incorrect_answers": ["Venus", "Jupiter", "Saturn"],
        }
    )
    return fill(entry + ",\n", '{"response_code": 0, "results": [\n', entry + "]}\n")


def csv_rows() -> bytes:
    return fill(
        "B,Which planet is called the Red Planet?,Venus,Mars,Iron oxide.\n",
        "answer,text:en,choice1:en,choice2:en,explanation:en\n",
    )


def csv_cell() -> bytes:
    return fill("x", 'answer,text:en,choice1:en,choice2:en\nA,"', '",yes,no\n')


def kahoot_sheet() -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(
        [
            "",
            "Question - max 120 characters",
            "Answer 1",
            "Answer 2",
            "Answer 3",
            "Answer 4",
            "Time limit (sec)",
            "Correct answer(s)",
        ]
    )
    for number in range(1, 6000):
        sheet.append([number, f"Question {number}?", "Mars", "Venus", "Jupiter", "Saturn", 20, 1])
    sheet["XFD1048576"] = "stray"  # declares a sheet of 17 billion cells
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def json_items() -> bytes:
    # Each object's line was counted from the start of the file: quadratic in the items.
    item = json.dumps(
        {"question": "Which planet is red?", "options": ["Mars", "Venus"], "answer": "Mars"}
    )
    return fill(item + ",\n", "[\n", item + "]\n")


def json_nesting() -> bytes:
    return fill("[", '[{"question": "q", "options": ["a", "b"], "answer": "a"}, ')


def json_script() -> bytes:
    # `const a:` over and over, never `=`: the JavaScript pattern's type annotation
    return fill("const a: ", "// quiz\n")


def json_digits() -> bytes:
    return fill("7", '[{"question": "q", "options": ["a", "b"], "answer": ', "}]")


def columns_rows() -> bytes:
    return fill("Which planet is called the Red Planet?;Mars|Venus|Jupiter;Mars\n")


def moodle_csv_rows() -> bytes:
    return fill(
        "Q,Which planet is called the Red Planet?,Mars,Venus,Jupiter,Saturn,A,\n",
        "questionname,questiontext,A,B,C,D,Answer 1,Answer 2\n",
    )


def opentriviaqa_blocks() -> bytes:
    return fill("#Q Which planet is red?\n^ Mars\nA Venus\nB Mars\n\n")


def opentriviaqa_choice() -> bytes:
    return fill("and more words\n", "#Q Which planet is red?\n^ Mars\nA Mars\nB Venus ")


WORST: dict[str, list[tuple[str, Callable[[], bytes]]]] = {
    "gift": [
        ("a [tag: of 10 MiB of spaces", gift_tag_spaces),
        ("150,000 questions", gift_questions),
        ("700,000 braces left open before blank lines", gift_open_braces),
        ("10 MiB of broken markup", gift_markup),
    ],
    "moodle-xml": [
        ("3.5 million nested elements", xml_nesting),
        ("40,000 questions", xml_questions),
        ("10 MiB of escaped markup", xml_html),
    ],
    "aiken": [
        ("an answer line of 10 MiB of spaces", aiken_spaces),
        ("170,000 questions", aiken_questions),
        ("1.3 million choice lines", aiken_choices),
    ],
    "opentdb": [("49,000 results", opentdb_results)],
    "csv": [("160,000 rows", csv_rows), ("one 10 MiB cell", csv_cell)],
    "kahoot": [("6,000 rows and a cell at XFD1048576", kahoot_sheet)],
    "json": [
        ("120,000 objects", json_items),
        ("10 MiB of nesting", json_nesting),
        ("`const a:` for 10 MiB", json_script),
        ("a 10 MiB number", json_digits),
    ],
    "red": [("49,000 questions sharing their words", red_list)],
    "moodle-csv": [("150,000 rows", moodle_csv_rows)],
    "csv --columns": [("170,000 rows", columns_rows)],
    "bn-mcq": [("a 10 MiB line of digits", bn_digits), ("one long choice", bn_continued_choice)],
    "opentriviaqa": [
        ("220,000 questions", opentriviaqa_blocks),
        ("one long choice", opentriviaqa_choice),
    ],
}
CASES = [(fmt, name, make) for fmt, shapes in WORST.items() for name, make in shapes]


def read(fmt: str, data: bytes) -> DraftDeck | FormatError:
    found = (
        columns_format(["text", "choices", "answer"]) if fmt == "csv --columns" else FORMATS[fmt]
    )
    try:
        return found.read(data, "en")
    except FormatError as refused:
        return refused


@pytest.mark.parametrize(("fmt", "shape", "make"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_the_largest_worst_shaped_file_is_read_in_linear_time(
    fmt: str, shape: str, make: Callable[[], bytes]
) -> None:
    data = make()
    assert len(data) <= MAX_IMPORT_BYTES
    found = read(fmt, data)
    if isinstance(found, DraftDeck):
        assert found.questions or found.notes or found.title
    else:
        assert found.message


def main() -> None:
    """Prints how long each reader took on each shape."""
    for fmt, shape, make in CASES:
        data = make()
        start = time.perf_counter()
        found = read(fmt, data)
        took = time.perf_counter() - start
        kind = "refused" if isinstance(found, FormatError) else f"{len(found.questions)} read"
        print(f"{fmt:11} {shape:45} {len(data) / 1048576:5.1f} MiB {took:6.1f} s  {kind}")


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    main()
