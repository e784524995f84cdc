"""The language of a file imported without --locale, where its script says so plainly.

Bengali, Devanagari (Hindi), Cyrillic (Russian), Arabic, Hangul (Korean), kana (Japanese) and
Han (Chinese) letters name a language well enough for the words an import writes itself; a
file in Latin letters could be any of dozens, so it is taken to be English and the import says
how to say otherwise. Technical terms in Latin letters are common in such files, so a script
counts when it holds a fifth of the letters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

_SHARE = 0.2
_SAMPLE_CHARS = 200_000


@dataclass(frozen=True)
class Script:
    name: str
    locale: str
    ranges: tuple[tuple[int, int], ...]


_SCRIPTS = (
    Script("Bengali", "bn", ((0x0980, 0x09FF),)),
    Script("Devanagari", "hi", ((0x0900, 0x097F),)),
    Script("Cyrillic", "ru", ((0x0400, 0x04FF),)),
    Script("Arabic", "ar", ((0x0600, 0x06FF), (0x0750, 0x077F))),
    Script("Hangul", "ko", ((0xAC00, 0xD7AF), (0x1100, 0x11FF))),
    Script("Japanese kana", "ja", ((0x3040, 0x30FF),)),
    Script("Han (Chinese)", "zh", ((0x4E00, 0x9FFF), (0x3400, 0x4DBF))),
)


def _script_of(char: str) -> Script | None:
    point = ord(char)
    for script in _SCRIPTS:
        if any(low <= point <= high for low, high in script.ranges):
            return script
    return None


def detect_script(texts: Iterable[str]) -> Script | None:
    """The script whose letters make a fifth of `texts`' letters, or None (Latin or mixed).

    Japanese mixes kana with Han, so any kana share over a tenth of the Han one means Japanese.
    """
    counts: Counter[str] = Counter()
    letters = 0
    seen = 0
    by_name = {script.name: script for script in _SCRIPTS}
    for text in texts:
        for char in text[: _SAMPLE_CHARS - seen]:
            if char.isalpha():
                letters += 1
                script = _script_of(char)
                if script is not None:
                    counts[script.name] += 1
        seen += len(text)
        if seen >= _SAMPLE_CHARS:
            break
    if not letters:
        return None
    kana, han = counts["Japanese kana"], counts["Han (Chinese)"]
    if kana and han and kana * 10 >= han:
        counts["Japanese kana"] += han
        del counts["Han (Chinese)"]
    if not counts:
        return None
    name, count = counts.most_common(1)[0]
    return by_name[name] if count >= _SHARE * letters else None
