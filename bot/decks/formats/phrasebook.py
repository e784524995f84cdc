"""The few words an import writes itself: True/False choices and a stand-in explanation.

They are written in the deck's locale. A locale not listed here gets English, and the import
says so; the stand-in explanation is always reported so the author replaces it. The stand-in
names the right answer without repeating the "Answer:" line a reply already shows above it.
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
    "es": "La respuesta es {answer}.",
    "fr": "La réponse est {answer}.",
    "de": "Die Antwort ist {answer}.",
    "pt": "A resposta é {answer}.",
    "ru": "Ответ: {answer}.",
    "nl": "Het antwoord is {answer}.",
    "it": "La risposta è {answer}.",
    "hi": "उत्तर है {answer}।",
    "ar": "الإجابة هي {answer}.",
    "zh": "答案是{answer}。",
    "ja": "答えは{answer}です。",
    "ko": "정답은 {answer}입니다.",
    "tr": "Doğru cevap {answer}.",
    "id": "Jawabannya adalah {answer}.",
}
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


def answer_is(locale: str, answer: str) -> str:
    """An explanation for a source that has none: it names the right choice, and no more."""
    template = _ANSWER_IS.get(_base(locale), _ANSWER_IS["en"])
    answer = answer.strip()
    if template.endswith(("{answer}.", "{answer}।", "{answer}。")) and answer.endswith(
        _SENTENCE_ENDS
    ):
        template = template[:-1]
    return template.format(answer=answer)
