"""The few words an import writes itself: True/False choices and a stand-in explanation.

They are written in the deck's locale; a locale not listed here gets English, and the
stand-in explanation is reported so the author replaces it.
"""

from __future__ import annotations

_TRUE_FALSE = {"en": ("True", "False"), "bn": ("সত্য", "মিথ্যা")}
_ANSWER_IS = {"en": "The answer is: {answer}.", "bn": "সঠিক উত্তর: {answer}।"}


def _base(locale: str) -> str:
    return locale.split("-")[0]


def true_false(locale: str) -> tuple[str, str]:
    """The two choices of a true/false question, true first."""
    return _TRUE_FALSE.get(_base(locale), _TRUE_FALSE["en"])


def answer_is(locale: str, answer: str) -> str:
    """An explanation for a source that has none: it names the right choice, and no more."""
    return _ANSWER_IS.get(_base(locale), _ANSWER_IS["en"]).format(answer=answer)
