"""The language of a file imported without --locale, found from its text.

A script that only one language writes (Bengali, Thai, Sinhala, Hebrew, Hangul...) names the
language outright once it holds a fifth of the letters (technical terms in Latin letters are
common in such files). Text in a script many languages share (Latin, Cyrillic, Arabic,
Devanagari) is classified by py3langid, a naive Bayes model over byte n-grams trained on 97
languages, restricted to the languages of that script that teams write decks in. It was chosen
over lingua (a 96 MB wheel), CLD2/CLD3 (less accurate on a one-line question) and fastText
(a downloader and a CC BY-SA model): pure Python on numpy, BSD, a 4.6 MB model, and right on
every short quiz question of the comparison in the commit that brought it in.

Only a sample of the text is read, so detection takes the same few milliseconds for any file;
the model loads once per process (half a second), and only when a file needs it.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_SHARE = 0.2
_SAMPLE_CHARS = 20_000
"""Enough text for the model; the rest of a large file would say the same."""


@dataclass(frozen=True)
class Language:
    """A language found: its locale, its English name, and what gave it away."""

    locale: str
    name: str
    script: str | None
    """The script that named it outright, or None when its words did."""


@dataclass(frozen=True)
class _Script:
    name: str
    ranges: tuple[tuple[int, int], ...]
    locale: str
    """The language it names outright, or the usual one when several write it."""
    candidates: tuple[str, ...] = ()
    """For a shared script: the languages the model chooses among."""


_LATIN = _Script(
    "Latin",
    ((0x0041, 0x005A), (0x0061, 0x007A), (0x00C0, 0x024F), (0x1E00, 0x1EFF)),
    "en",
    (
        *("en", "fr", "es", "pt", "de", "it", "id", "hu", "nl", "tr", "pl", "sv", "da", "no"),
        *("fi", "cs", "sk", "ro", "hr", "sl", "et", "lv", "lt", "vi", "ca", "sw", "tl", "af"),
        *("eu", "gl"),
    ),
)
"""Malay is left out: short Malay and Indonesian texts look alike, and Indonesian is asked for."""
_SCRIPTS = (
    _LATIN,
    _Script("Bengali", ((0x0980, 0x09FF),), "bn"),
    _Script("Devanagari", ((0x0900, 0x097F),), "hi", ("hi", "mr", "ne")),
    _Script("Cyrillic", ((0x0400, 0x04FF),), "ru", ("ru", "uk", "bg", "sr", "mk", "be", "kk")),
    _Script("Arabic", ((0x0600, 0x06FF), (0x0750, 0x077F)), "ar", ("ar", "fa", "ur", "ps")),
    _Script("Thai", ((0x0E00, 0x0E7F),), "th"),
    _Script("Sinhala", ((0x0D80, 0x0DFF),), "si"),
    _Script("Hebrew", ((0x0590, 0x05FF),), "he"),
    _Script("Greek", ((0x0370, 0x03FF),), "el"),
    _Script("Georgian", ((0x10A0, 0x10FF),), "ka"),
    _Script("Armenian", ((0x0530, 0x058F),), "hy"),
    _Script("Tamil", ((0x0B80, 0x0BFF),), "ta"),
    _Script("Telugu", ((0x0C00, 0x0C7F),), "te"),
    _Script("Kannada", ((0x0C80, 0x0CFF),), "kn"),
    _Script("Malayalam", ((0x0D00, 0x0D7F),), "ml"),
    _Script("Gujarati", ((0x0A80, 0x0AFF),), "gu"),
    _Script("Gurmukhi", ((0x0A00, 0x0A7F),), "pa"),
    _Script("Khmer", ((0x1780, 0x17FF),), "km"),
    _Script("Lao", ((0x0E80, 0x0EFF),), "lo"),
    _Script("Myanmar", ((0x1000, 0x109F),), "my"),
    _Script("Hangul", ((0xAC00, 0xD7AF), (0x1100, 0x11FF), (0x3130, 0x318F)), "ko"),
    _Script("Japanese kana", ((0x3040, 0x30FF),), "ja"),
    _Script("Han (Chinese)", ((0x4E00, 0x9FFF), (0x3400, 0x4DBF)), "zh"),
)
_BY_NAME = {script.name: script for script in _SCRIPTS}
NAMES = {
    **{"en": "English", "fr": "French", "es": "Spanish", "pt": "Portuguese", "de": "German"},
    **{"it": "Italian", "id": "Indonesian", "hu": "Hungarian", "nl": "Dutch", "tr": "Turkish"},
    **{"pl": "Polish", "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish"},
    **{"cs": "Czech", "sk": "Slovak", "ro": "Romanian", "hr": "Croatian", "sl": "Slovenian"},
    **{"et": "Estonian", "lv": "Latvian", "lt": "Lithuanian", "vi": "Vietnamese"},
    **{"ca": "Catalan", "sw": "Swahili", "tl": "Tagalog", "af": "Afrikaans", "eu": "Basque"},
    **{"gl": "Galician", "bn": "Bengali", "hi": "Hindi", "mr": "Marathi", "ne": "Nepali"},
    **{"ru": "Russian", "uk": "Ukrainian", "bg": "Bulgarian", "sr": "Serbian"},
    **{"mk": "Macedonian", "be": "Belarusian", "kk": "Kazakh", "ar": "Arabic", "fa": "Persian"},
    **{"ur": "Urdu", "ps": "Pashto", "th": "Thai", "si": "Sinhala", "he": "Hebrew"},
    **{"el": "Greek", "ka": "Georgian", "hy": "Armenian", "ta": "Tamil", "te": "Telugu"},
    **{"kn": "Kannada", "ml": "Malayalam", "gu": "Gujarati", "pa": "Punjabi", "km": "Khmer"},
    **{"lo": "Lao", "my": "Burmese", "ko": "Korean", "ja": "Japanese", "zh": "Chinese"},
}
"""English names of the languages detected, for the line that says which was chosen."""


def _script_of(char: str) -> _Script | None:
    point = ord(char)
    for script in _SCRIPTS:
        if any(low <= point <= high for low, high in script.ranges):
            return script
    return None


def detect_language(texts: Iterable[str]) -> Language | None:
    """The language of `texts` (a sample of them), or None when they have no letters.

    A script other than Latin that holds a fifth of the letters decides (Japanese mixes kana
    with Han, so a kana share over a tenth of the Han one means Japanese); otherwise the Latin
    letters' words do.
    """
    counts: Counter[str] = Counter()
    letters = 0
    sample: list[str] = []
    seen = 0
    for text in texts:
        part = text[: _SAMPLE_CHARS - seen]
        sample.append(part)
        for char in part:
            if char.isalpha():
                letters += 1
                script = _script_of(char)
                if script is not None:
                    counts[script.name] += 1
        seen += len(part)
        if seen >= _SAMPLE_CHARS:
            break
    if not letters:
        return None
    kana, han = counts["Japanese kana"], counts["Han (Chinese)"]
    if kana and han and kana * 10 >= han:
        counts["Japanese kana"] += han
        del counts["Han (Chinese)"]
    others = [(name, count) for name, count in counts.most_common() if name != _LATIN.name]
    if others and others[0][1] >= _SHARE * letters:
        script = _BY_NAME[others[0][0]]
        locale = _classify("\n".join(sample), script) if script.candidates else script.locale
        return Language(locale, NAMES[locale], None if script.candidates else script.name)
    if not counts[_LATIN.name]:
        return None
    locale = _classify("\n".join(sample), _LATIN)
    return Language(locale, NAMES[locale], None)


def _classify(text: str, script: _Script) -> str:
    """The model's pick among the languages written in `script`."""
    identifier = _identifier()
    identifier.set_languages(list(script.candidates))
    found, _ = identifier.classify(text)
    return str(found) if found in script.candidates else script.locale


@functools.cache
def _identifier() -> Any:
    """py3langid's model with probabilities, loaded on first use (it takes half a second)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier  # type: ignore[import-untyped]

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
