"""The words the deck lint knows in each language, in one table: catch-all choices ("all of the
above"), true/false pairs, and the function words that say nothing about an answer.

A locale is looked up by its language (`pt-BR` reads `pt`); the words an import writes itself
(`formats/phrasebook.py`) are always among them, so an imported true/false question is one.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from bot.decks.formats.phrasebook import true_false

ALL_OF_THE_ABOVE: dict[str, tuple[str, ...]] = {
    "en": (
        "all of the above",
        "all the above",
        "all of these",
        "all of the above are correct",
        "all of the above are true",
        "all of the answers above",
        "all of them",
    ),
    "bn": (
        "উপরের সবগুলো",
        "উপরের সবগুলোই",
        "উপরের সবকটি",
        "উপরের সবকটিই",
        "উপরের সবই",
        "উপরের সব কটি",
        "উপরের সবগুলি",
        "ওপরের সবগুলো",
        "ওপরের সবকটি",
        "ওপরের সবই",
        "সবগুলোই সঠিক",
        "সবকটিই সঠিক",
        "উপরের সবগুলো সঠিক",
        "উপরের সবকটি সঠিক",
    ),
    "es": ("todas las anteriores", "todas las respuestas anteriores", "todo lo anterior"),
    "fr": (
        "toutes les réponses ci-dessus",
        "toutes les réponses précédentes",
        "tout ce qui précède",
        "toutes ces réponses",
    ),
    "de": ("alle oben genannten", "alle genannten", "alle antworten sind richtig", "alles oben"),
    "pt": ("todas as anteriores", "todas as alternativas anteriores", "todas as acima"),
    "it": ("tutte le precedenti", "tutte le risposte precedenti"),
    "nl": ("alle bovenstaande", "al het bovenstaande", "alle antwoorden zijn juist"),
    "ru": (
        "все вышеперечисленное",
        "все вышеперечисленное верно",
        "все перечисленное",
        "все ответы верны",
    ),
    "hi": ("उपरोक्त सभी", "ऊपर के सभी", "उपर्युक्त सभी"),
}
"""A choice that is only one of these (case, spacing and end punctuation aside) is a catch-all."""

NONE_OF_THE_ABOVE: dict[str, tuple[str, ...]] = {
    "en": (
        "none of the above",
        "none of these",
        "none of them",
        "none of the answers above",
        "neither of the above",
    ),
    "bn": (
        "উপরের কোনোটিই নয়",
        "উপরের কোনটিই নয়",
        "কোনোটিই নয়",
        "কোনটিই নয়",
        "ওপরের কোনোটিই নয়",
        "উপরের কোনোটাই না",
        "উপরের কোনোটিই সঠিক নয়",
        "কোনোটিই সঠিক নয়",
    ),
    "es": ("ninguna de las anteriores", "ninguna de las respuestas anteriores"),
    "fr": ("aucune des réponses ci-dessus", "aucune des réponses précédentes"),
    "de": ("keine der oben genannten", "keine der genannten", "keine davon"),
    "pt": ("nenhuma das anteriores", "nenhuma das alternativas anteriores"),
    "it": ("nessuna delle precedenti", "nessuna delle risposte precedenti"),
    "nl": ("geen van de bovenstaande", "geen van bovenstaande", "geen van beide"),
    "ru": (
        "ничего из вышеперечисленного",
        "ни один из вариантов",
        "ни одно из перечисленного",
        "нет правильного ответа",
    ),
    "hi": ("उपरोक्त में से कोई नहीं", "इनमें से कोई नहीं"),
}

_TRUE_FALSE: dict[str, tuple[tuple[str, str], ...]] = {
    # Two choices that are these words make a true/false (or yes/no) question, not a
    # question short of choices.
    "en": (("true", "false"), ("correct", "incorrect"), ("yes", "no")),
    "bn": (("সত্য", "মিথ্যা"), ("সঠিক", "ভুল"), ("ঠিক", "ভুল"), ("হ্যাঁ", "না")),
    "es": (("verdadero", "falso"),),
    "fr": (("vrai", "faux"),),
    "de": (("wahr", "falsch"), ("richtig", "falsch")),
    "pt": (("verdadeiro", "falso"),),
    "it": (("vero", "falso"),),
    "nl": (("waar", "onwaar"), ("juist", "onjuist")),
    "ru": (("верно", "неверно"), ("правда", "ложь")),
    "hi": (("सही", "गलत"), ("सत्य", "असत्य")),
}


def _word_set(words: str) -> frozenset[str]:
    return frozenset(unicodedata.normalize("NFC", word).casefold() for word in words.split())


STOP_WORDS: dict[str, frozenset[str]] = {
    "en": _word_set(
        "a an the and or but nor of to in on at by for from with without into onto over under "
        "as is are was were be been being it its this that these those there their them they "
        "he she we you i his her our your not no yes only also just than then so such too very "
        "can could may might must shall should will would do does did done has have had having "
        "what which who whom whose when where why how all any each every both either neither "
        "some more most less least many much one other others same own per via about after "
        "before between through during while because if else up down out off again once here "
        "new uses use used using makes make made get gets gives give way ways thing things "
        "instead rather like et al"
    ),
    "bn": _word_set(
        "এবং ও আর বা অথবা কিন্তু তবে যে যা যার যাকে যেটা যেটি এই এ ওই সেই সে তা তার তাদের তাকে এর "
        "এটা এটি ওটা একটি একটা এক না নয় নেই কি কী কেন কীভাবে কোন কোনো কোথায় কখন হয় হলো হল হলে "
        "হবে হয়ে ছিল আছে থাকে থাকা করে করা করতে করলে করবে দিয়ে দিতে দেয় থেকে জন্য সাথে সঙ্গে মধ্যে "
        "ভেতরে উপর ওপর পর পরে আগে প্রতি প্রতিটি সব সবাই শুধু মাত্র কেবল তো ই কে তে র এর য় তাই ফলে "
        "যখন তখন যদি যেমন মতো মত কারণ বলে গুলো গুলি টি টা খুব আরও অনেক কিছু নিজের নিজে"
    ),
}
"""Function words left out of a text's content; a language without a list keeps every word."""

_END_PUNCTUATION = ".,;:!?।॥…\"'“”‘’«»()[] \u00a0"
_JOINERS = "\u200c\u200d"
_NO_JOINERS = str.maketrans("", "", _JOINERS)


def language(locale: str) -> str:
    return locale.split("-")[0].lower()


def normal(text: str) -> str:
    """Text as compared: Unicode NFC, case folded, spacing collapsed, end punctuation dropped."""
    folded = unicodedata.normalize("NFC", text).casefold()
    folded = folded.translate(_NO_JOINERS)
    return " ".join(folded.split()).strip(_END_PUNCTUATION)


def catch_all(text: str, locale: str) -> str | None:
    """ "all" or "none" if the choice is only "all/none of the above" (in its language or
    English), else None."""
    said = normal(text)
    for kind, phrases in _catch_alls(language(locale)):
        if said in phrases:
            return kind
    return None


@cache
def _catch_alls(language: str) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple(
        (kind, frozenset(normal(p) for p in (*table.get(language, ()), *table["en"])))
        for kind, table in (("all", ALL_OF_THE_ABOVE), ("none", NONE_OF_THE_ABOVE))
    )


def true_false_pair(first: str, second: str, locale: str) -> bool:
    """Whether two choices are the true and false words of the locale (either order)."""
    pairs = (*_TRUE_FALSE.get(language(locale), ()), true_false(locale), *_TRUE_FALSE["en"])
    said = {normal(first), normal(second)}
    return any(said == {normal(yes), normal(no)} for yes, no in pairs)


def stop_words(locale: str) -> frozenset[str]:
    return STOP_WORDS.get(language(locale), frozenset())
