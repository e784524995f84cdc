"""The few words an import writes itself: True/False choices and a stand-in explanation.

True/False are written in the deck's locale; a locale not listed here gets English, and the
import says so. The stand-in explanation is written only in the bot's own languages (en, bn):
in any other, a question without an explanation gets the bare right choice, which no language
gets wrong and `quizbot validate` flags as missing. Either way the import reports it so the
author replaces it. The stand-in names the right answer without repeating the "Answer:" line a
reply already shows above it.
"""

from __future__ import annotations

_TRUE_FALSE = {
    "en": ("True", "False"),
    "bn": ("সত্য", "মিথ্যা"),
    "es": ("Verdadero", "Falso"),
    "fr": ("Vrai", "Faux"),
    "de": ("Wahr", "Falsch"),
    "pt": ("Verdadeiro", "Falso"),
    "ru": ("Верно", "Неверно"),
    "nl": ("Waar", "Onwaar"),
    "it": ("Vero", "Falso"),
    "hi": ("सत्य", "असत्य"),
    "ar": ("صحيح", "خطأ"),
    "zh": ("正确", "错误"),
    "ja": ("正しい", "誤り"),
    "ko": ("참", "거짓"),
    "tr": ("Doğru", "Yanlış"),
    "id": ("Benar", "Salah"),
}
_ANSWER_IS = {
    "en": "The answer is {answer}.",
    "bn": "উত্তর হলো {answer}।",
}
"""Stand-in explanations, only in the languages the bot itself speaks (bot/presentation): a
sentence in a language nobody here reads could not be checked, and an English one in a Thai
deck is worse than none."""
STAND_IN_LOCALES = tuple(_ANSWER_IS)
_SENTENCE_ENDS = tuple(".!?。！？।…؟")
"""An answer already ending a sentence ("Mars.") takes no second full stop."""


def _base(locale: str) -> str:
    return locale.split("-")[0].lower()


def has_words(locale: str) -> bool:
    """Whether the generated words exist in `locale` (else they are English)."""
    return _base(locale) in _TRUE_FALSE


def true_false(locale: str) -> tuple[str, str]:
    """The two choices of a true/false question, true first."""
    return _TRUE_FALSE.get(_base(locale), _TRUE_FALSE["en"])


def has_stand_in(locale: str) -> bool:
    """Whether a missing explanation gets a sentence in `locale` (else only the answer)."""
    return _base(locale) in _ANSWER_IS


def answer_is(locale: str, answer: str) -> str:
    """An explanation for a source that has none: it names the right choice, and no more.

    Outside the bot's own languages it is the right choice alone.
    """
    answer = answer.strip()
    template = _ANSWER_IS.get(_base(locale))
    if template is None:
        return answer
    if template.endswith(("{answer}.", "{answer}।", "{answer}。")) and answer.endswith(
        _SENTENCE_ENDS
    ):
        template = template[:-1]
    return template.format(answer=answer)
