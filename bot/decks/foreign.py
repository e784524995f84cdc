"""Question files of other tools, told apart by their content: what `quizbot import` guesses and
what `quizbot validate` names when such a file sits where a deck should be.

Outside `bot.decks.formats` so that deck loading can name a foreign file without importing the
readers (which themselves validate through loading). Every test here looks at text only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

SNIFF_CHARS = 65536
"""Pattern tests look at this much of the start of a file; JSON is parsed whole."""

QUESTION_KEYS = ("question", "questiontext", "q", "prompt", "title", "ques", "stem", "text")
"""A quiz JSON object's question, by its key folded with `fold_key` (first found wins)."""

CHOICE_KEYS = (
    "options",
    "choices",
    "answers",
    "alternatives",
    "opts",
    "answeroptions",
    "optionlist",
    "answeroption",
)
"""Keys of a quiz JSON object's list (or mapping) of choices, by their folded key."""

WRONG_KEYS = ("incorrectanswers", "incorrect", "wronganswers", "wrong", "distractors")
"""Keys of a list of wrong answers, when the right one is given apart (as Open Trivia DB does)."""

ANSWER_KEYS = (
    "answer",
    "correctanswer",
    "correct",
    "answerindex",
    "correctindex",
    "correctanswerindex",
    "correctoption",
    "correctoptionindex",
    "rightanswer",
    "right",
    "ans",
    "answerkey",
    "key",
)
"""Keys of the right answer (an index, a letter or the text), by preference."""

FLAT_CHOICE = re.compile(r"^(?:option|choice|opt|ans|answer)?([a-e1-5])$")
"""Choices kept as separate keys: optionA, option_b, choice1, a, b, c, d (folded)."""

ARRAY_KEYS = ("questions", "quiz", "quizzes", "data", "items", "mcqs", "mcq", "results")
"""Keys a quiz JSON object commonly keeps its array of questions under, by preference."""

ANSWER_WORDS = (
    *("ANSWER", "ANS", "RESPUESTA", "RESPOSTA", "RÉPONSE", "REPONSE", "ANTWORT", "RISPOSTA"),
    *("JAWABAN", "JAWAPAN", "VÁLASZ", "VALASZ", "ODPOWIEDŹ", "CEVAP", "ANTWOORD", "ОТВЕТ"),
    *("SVAR", "VASTAUS", "ODPOVĚĎ", "RĂSPUNS", "উত্তর"),
)
"""The word of an Aiken answer line, in English (Moodle's) and the localised dialects."""
_ANSWER_WORD = "|".join([*ANSWER_WORDS, *(word.title() for word in ANSWER_WORDS)])
_AIKEN_ANSWER = re.compile(rf"^(?:{_ANSWER_WORD})\s*:\s*[A-Za-z1-9]\s*$", re.MULTILINE)
_AIKEN_CHOICE = re.compile(r"^[A-Za-z1-9][).]", re.MULTILINE)
_GIFT_TITLE = re.compile(r"^\s*(::|\$CATEGORY:)|\{\s*(T|F|TRUE|FALSE)\s*\}", re.MULTILINE)
_GIFT_ANSWERS = re.compile(r"\{\s*[=~]")
_LATEX_BEFORE = re.compile(r"(?:\\[A-Za-z]+\*?|[_^}])\s*$")
"""What comes before a '{' of LaTeX (`\\frac{`, `x_{`, `}{`), never before a GIFT answer block."""
_NUMBERED = re.compile(r"^[ \t]*(?:Q\.?\s*)?\d{1,4}\s*[.)]\s+\S", re.MULTILINE)
_LETTERED = re.compile(r"^[ \t]*\(?[A-Da-d][.)]\s*\S", re.MULTILINE)
_OPENTRIVIAQA = re.compile(r"^#Q \S[^\n]*\n(?:[^\n]*\n){0,40}?\^ ", re.MULTILINE)
_JS_ARRAY = re.compile(
    r"^\s*(?:export\s+default|module\.exports\s*=|(?:export\s+)?(?:const|let|var)\s+[\w$]+"
    r"(?:\s*:\s*[^=\n]+)?\s*=)\s*[\[{]",
    re.MULTILINE,
)
_RED_HEADER = re.compile(r"^(AUTHOR|CONFIG|DESCRIPTION)\s*:", re.MULTILINE)
_RED_QUESTION = re.compile(r"^[^\s#-][^\n]*\?['\"]?:[ \t]*\n[ \t]*- ", re.MULTILINE)
_DECK_KEYS = re.compile(r"^(questions|locales)\s*:", re.MULTILINE)
_BN_CHOICE = re.compile(r"^\s*\(?[কখগঘ]\s*[).।]", re.MULTILINE)
_BN_ANSWER = re.compile(r"^\s*(?:সঠিক\s*)?উত্তর(?:মালা)?\s*[:ঃ=-]", re.MULTILINE)
_MOODLE_CSV = re.compile(r"^\s*questionname\s*[,;]\s*questiontext\s*[,;]", re.IGNORECASE)
_QUIZBOT_CSV = re.compile(r"^[^\n]*\btext\b[^\n]*\bchoice1\b", re.IGNORECASE)

_OPENTDB_TYPES = ("multiple", "boolean", "bXVsdGlwbGU=", "Ym9vbGVhbg==")

TITLES = {
    "gift": "a Moodle GIFT file",
    "moodle-xml": "a Moodle XML file",
    "aiken": "an Aiken file",
    "opentdb": "an Open Trivia DB response",
    "csv": "a quizbot CSV file",
    "kahoot": "a Kahoot spreadsheet",
    "json": "a quiz JSON file",
    "red": "a Red-DiscordBot trivia list",
    "moodle-csv": "a Moodle CSV question file",
    "bn-mcq": "Bengali exam text",
    "opentriviaqa": "an OpenTriviaQA text file",
}
"""How a message names a file of each format ("this is a Red-DiscordBot trivia list")."""


@dataclass(frozen=True)
class Identity:
    """The format a file is in (its `--format` name) and how to name it in a sentence."""

    name: str
    title: str


@lru_cache(maxsize=1024)
def fold_key(key: str) -> str:
    """`correct_answer`, `correctAnswer` and `Correct Answer` all become `correctanswer`.

    Kept per key: a file of 100,000 objects names the same few keys in each."""
    return _KEY_GAPS.sub("", key).casefold()


_KEY_GAPS = re.compile(r"[\s_\-]")


def identify(text: str, suffix: str = "") -> Identity | None:
    """The format of a question file from its text (and name suffix as a tie-break), or None."""
    name = _name(text.lstrip("\ufeff \t\r\n"), suffix.lower())
    return Identity(name, TITLES[name]) if name is not None else None


def _name(text: str, suffix: str) -> str | None:
    head = text[:SNIFF_CHARS]
    if head.startswith("<"):
        return "moodle-xml" if "<quiz" in head else None
    if head.startswith(("{", "[")):
        return json_kind(text)
    if _JS_ARRAY.search(head):
        return "json"
    if _MOODLE_CSV.match(head):
        return "moodle-csv"
    if is_red_list(head):
        return "red"
    if _OPENTRIVIAQA.search(head):
        return "opentriviaqa"
    if len(_BN_CHOICE.findall(head)) >= 2 and _BN_ANSWER.search(head):
        return "bn-mcq"
    if _AIKEN_ANSWER.search(head) and _AIKEN_CHOICE.search(head):
        return "aiken"
    if _looks_like_gift(head) and not _DECK_KEYS.search(head):
        return "gift"
    first = head.split("\n", 1)[0]
    if "," in first and _QUIZBOT_CSV.match(first):
        return "csv"
    return None


def _looks_like_gift(head: str) -> bool:
    """GIFT by its titles, categories or {T}, or by an answer block `{=...}`/`{~...}` that is
    not LaTeX (`\\sum_{i=1}` is no answer), in a file not shaped as numbered questions."""
    if _GIFT_TITLE.search(head):
        return True
    blocks = [
        match
        for match in _GIFT_ANSWERS.finditer(head)
        if not _LATEX_BEFORE.search(head[max(0, match.start() - 30) : match.start()])
    ]
    return bool(blocks) and not looks_numbered(head)


def looks_numbered(text: str) -> bool:
    """Numbered questions (`1.`, `2)`) with lettered choices (`a)`, `(B)`, `C.`), as typed in
    exam banks, at least two of each."""
    return len(_NUMBERED.findall(text)) >= 2 and len(_LETTERED.findall(text)) >= 2


def is_red_list(text: str) -> bool:
    """A Red-DiscordBot trivia list: `AUTHOR:`/`CONFIG:` keys, or `Question?:` then `- answer`."""
    if _DECK_KEYS.search(text):
        return False
    return bool(_RED_HEADER.search(text)) or len(_RED_QUESTION.findall(text)) >= 3


def json_kind(text: str) -> str | None:
    """Whether a JSON document is "opentdb", "json" (question objects), or None (other JSON).

    A whole document is parsed; a cut one (the head of a file) is judged by its key names.
    """
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested thousands deep
        if '"locales"' in text[:SNIFF_CHARS]:
            return None  # a deck written as JSON (JSON is YAML)
        if '"incorrect_answers"' in text and '"type"' in text:
            return "opentdb"
        folded = fold_key(text[:SNIFF_CHARS])
        return "json" if any(f'"{key}"' in folded for key in ("question", "questions")) else None
    if isinstance(document, dict) and "locales" in document:
        return None  # a deck written as JSON (JSON is YAML)
    if is_opentdb(document):
        return "opentdb"
    return "json" if question_arrays(document) else None


def is_opentdb(document: Any) -> bool:
    """An Open Trivia DB API response (or its bare results): entries typed multiple/boolean."""
    if isinstance(document, dict) and "response_code" in document and "results" in document:
        return True
    results = document.get("results") if isinstance(document, dict) else document
    if not isinstance(results, list) or not results:
        return False
    entries = [entry for entry in results if isinstance(entry, dict)]
    return bool(entries) and all(
        entry.get("type") in _OPENTDB_TYPES
        and not any(fold_key(str(key)) in CHOICE_KEYS for key in entry)  # a quiz's own "type"
        for entry in entries
    )


def question_arrays(document: Any) -> list[tuple[list[str], list[Any]]]:
    """The arrays of question objects in a JSON document, each with its path of keys.

    The document itself, or an array under a key like "questions" (looked for two objects
    deep), or several arrays under category names ({"history": [...], "science": [...]}).
    """
    if _holds_questions(document):
        return [([], document)]
    found: list[tuple[list[str], list[Any]]] = []
    if isinstance(document, dict):
        keys = sorted(document, key=lambda key: _preference(str(key)))
        for key in keys:
            value = document[key]
            if _holds_questions(value):
                found.append(([key], value))
            elif isinstance(value, dict):
                found.extend(([key, *path], inner) for path, inner in _arrays_in(value))
        preferred = [item for item in found if fold_key(str(item[0][-1])) in ARRAY_KEYS]
        if preferred:
            return preferred[:1]
    return found


def _arrays_in(document: dict[str, Any]) -> list[tuple[list[str], list[Any]]]:
    """One level further down: {"quiz": {"questions": [...]}}."""
    return [([key], value) for key, value in document.items() if _holds_questions(value)]


def _preference(key: str) -> int:
    folded = fold_key(key)
    return ARRAY_KEYS.index(folded) if folded in ARRAY_KEYS else len(ARRAY_KEYS)


def _holds_questions(value: Any) -> bool:
    """A list whose objects mostly have a question key (a few broken ones are reported later)."""
    if not isinstance(value, list) or not value:
        return False
    objects = [item for item in value if isinstance(item, dict)]
    with_question = [item for item in objects if question_key(item) and _has_choices(item)]
    return len(with_question) * 2 >= len(value) and bool(with_question)


def _has_choices(item: dict[str, Any]) -> bool:
    """Choices in a list or mapping under a choices key (or answers with flags), or flat keys."""
    flat = 0
    for key, value in item.items():
        folded = fold_key(str(key))
        if folded in WRONG_KEYS and isinstance(value, list) and value:
            return True
        # One choice is enough to be a quiz file: a flashcard bank is then told, question by
        # question, that a deck question needs two, rather than "no questions found".
        if isinstance(value, list | dict) and value and folded in CHOICE_KEYS:
            return True
        if isinstance(value, list | dict) and len(value) >= 2 and folded in ANSWER_KEYS:
            return True
        flat += bool(FLAT_CHOICE.match(folded))
    return flat >= 2


def question_key(item: dict[str, Any]) -> str | None:
    """The key holding an object's question text, if it has one (see `localized`)."""
    folded = {fold_key(str(key)): key for key in item}
    for wanted in QUESTION_KEYS:
        key = folded.get(wanted)
        if key is not None and localized(item[key]) is not None:
            return str(key)
    return None


_LOCALE_KEY = re.compile(r"^([a-z]{2,3})(?:[-_]([A-Za-z]{4}))?(?:[-_]([A-Za-z]{2}|[0-9]{3}))?$")
TEXT_KEYS = ("text", "value", "content", "body", "label", "title", "question")
"""Keys of the text of a question or choice given as an object ({"text": "..."})."""


def localized(value: Any) -> dict[str, str] | None:
    """A text as a quiz JSON file may give it: a string ({"": text}), an object holding it
    under a key like "text" (The Trivia API's `{"text": ...}`), or one text per language
    (`{"en": ..., "de": ...}`, keyed by locale as decks write them: `pt_br` is `pt-BR`).
    None when `value` is none of these, or empty."""
    if isinstance(value, str):
        return {"": value.strip()} if value.strip() else None
    if not isinstance(value, dict) or not value:
        return None
    locales = {_locale(str(key)): text for key, text in value.items()}
    if all(key is not None and isinstance(text, str) for key, text in locales.items()):
        found = {str(key): str(text).strip() for key, text in locales.items()}
        found = {key: text for key, text in found.items() if text}
        return found or None
    folded = {fold_key(str(key)): text for key, text in value.items()}
    for key in TEXT_KEYS:
        text = folded.get(key)
        if isinstance(text, str) and text.strip():
            return {"": text.strip()}
    return None


def _locale(key: str) -> str | None:
    """`key` written as a deck locale ("pt_br" is "pt-BR"), or None if it names no language."""
    match = _LOCALE_KEY.match(key)
    if match is None:
        return None
    language, script, region = match.groups()
    return "-".join(
        part
        for part in (
            language.lower(),
            script.title() if script else "",
            region.upper() if region else "",
        )
        if part
    )
