"""Every reader's time is linear in its input (issue 36, Deliver 4): each is fed the largest
file the import accepts (10 MiB, or the most questions a format's own limit lets in) in the
shape that was, or could be, its worst, and must simply finish. No timing assertions: a
quadratic reader takes hours on these, and pytest's own time shows the rest. The times each
took when written are in the issue 36 report; `python -m tests.formats.test_bounds` prints them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import pytest

from bot.decks.formats import FORMATS
from bot.decks.formats.draft import DraftDeck, FormatError
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


WORST: dict[str, list[tuple[str, Callable[[], bytes]]]] = {
    "bn-mcq": [("a 10 MiB line of digits", bn_digits), ("one long choice", bn_continued_choice)],
    "red": [("49,000 questions sharing their words", red_list)],
}
CASES = [(fmt, name, make) for fmt, shapes in WORST.items() for name, make in shapes]


def read(fmt: str, data: bytes) -> DraftDeck | FormatError:
    try:
        return FORMATS[fmt].read(data, "en")
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
