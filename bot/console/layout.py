"""Text laid out for a terminal: wrapped to its width at spaces, never inside a word.

Width is counted as a terminal draws it, not in code points: Bengali vowel signs and other
combining marks take no column of their own, emoji and East Asian wide characters take two.
`textwrap` counts code points, so Bengali lines came out short, and it breaks long words.
"""

from __future__ import annotations

import unicodedata
from functools import cache


@cache
def _char_width(char: str) -> int:
    if unicodedata.category(char) in ("Mn", "Me", "Cf") or unicodedata.combining(char):
        return 0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 2
    return 1


def width(text: str) -> int:
    """Columns `text` takes on a terminal that shapes it."""
    return sum(_char_width(c) for c in text)


def wrap(text: str, columns: int, indent: str = "", hang: str | None = None) -> list[str]:
    """`text`'s lines, each paragraph filled to `columns`; `indent` starts the first line of
    a paragraph, `hang` (default: `indent`) the lines after it. A word longer than a line
    stays whole on a line of its own."""
    rest = indent if hang is None else hang
    out: list[str] = []
    for para in text.splitlines() or [""]:
        line, used = indent, width(indent)
        has_word = False
        for word in para.split():
            size = width(word)
            if has_word and used + 1 + size > columns:
                out.append(line)
                line, used, has_word = rest, width(rest), False
            if has_word:
                line, used = f"{line} {word}", used + 1 + size
            else:
                line, used, has_word = line + word, used + size, True
        out.append(line if has_word else indent)
    return out
