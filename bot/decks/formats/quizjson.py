"""Quiz JSON: the arrays of question objects most quiz apps keep (`questions.json`, `quiz.json`).

There is no standard, so keys are matched by meaning (`question`/`prompt`/`q`; `options`/
`choices`/`answers`; `answer`/`correctAnswer`/`answerIndex`...) after folding case, `_` and
`-`. The answer may be the text of a choice, a letter (A-E, or Bengali ক-ঙ) or a number. Numbers
are read as 0-based or 1-based for the whole file, decided from the data (a 0 means 0-based; an
answer equal to the number of choices means 1-based) and said in a warning. A JavaScript file
holding such an array (`const questions = [...]`) is read when the array is JSON as written.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

from bot.decks.foreign import (
    ANSWER_KEYS,
    CHOICE_KEYS,
    FLAT_CHOICE,
    WRONG_KEYS,
    fold_key,
    is_opentdb,
    question_arrays,
    question_key,
)
from bot.decks.formats import opentdb
from bot.decks.formats.draft import DraftChoice, DraftDeck, DraftQuestion, FormatError
from bot.decks.formats.slug import slugify

FORMAT_NAME = "quiz JSON"

_JS_START = re.compile(
    r"(?:export\s+default|module\.exports\s*=|(?:export\s+)?(?:const|let|var)\s+[\w$]+"
    r"(?:\s*:\s*[^=\n]+)?\s*=)\s*(?=[\[{])"
)
_TEXT_KEYS = ("text", "option", "value", "answer", "body", "label", "title", "content", "choice")
_FLAG_KEYS = ("iscorrect", "correct", "isright", "right", "rightans", "isanswer", "istrue")
_WHY_KEYS = ("explanation", "why", "feedback", "reason")
_EXPLANATION_KEYS = (
    "explanation",
    "explain",
    "answerexplanation",
    "rationale",
    "reason",
    "solution",
    "feedback",
    "why",
)
_TAG_KEYS = ("category", "topic", "subject", "chapter", "difficulty", "level")
_LETTER = re.compile(
    r"^(?i:option|choice|ans|answer)?\s*\(?([A-Ea-eকখগঘঙ])(?:\s*[).:।]\s*|\s+|$)(.*)$", re.DOTALL
)
_BENGALI_LETTERS = "কখগঘঙ"
_NAMED_NUMBER = re.compile(r"^(?i:option|choice|answer|ans)[\s_-]*(\d+)$")
""""Option 2", "choice_3": named as people count, from 1, whatever the file's numbers do."""


@dataclass
class _Pending:
    """A question read up to its answer, which waits until the file's index base is known."""

    line: int
    text: str
    choices: list[DraftChoice]
    labels: dict[str, int] = field(default_factory=dict)
    answer: int | None = None
    raw: Any = None
    explanation: str = ""
    tags: list[str] = field(default_factory=list)
    name: str = ""


def read_quiz_json(text: str, locale: str) -> DraftDeck:
    """Every object of the file's question arrays, or one line saying what the JSON is instead."""
    document, body_at = _document(text)
    if is_opentdb(document):
        return opentdb.read_opentdb(text, locale)
    arrays = question_arrays(document)
    if not arrays:
        raise FormatError(_not_questions(document))
    deck = DraftDeck(locales=[locale])
    if isinstance(document, dict):
        about = _folded(document)
        title = _first_text(about, ("title", "quiztitle", "quizname", "name"))
        description = _first_text(about, ("description",))
        deck.title = {locale: title} if title else {}
        deck.description = {locale: description} if description else {}
    pending: list[_Pending] = []
    for path, items in arrays:
        lines = _item_lines(text, body_at, path, len(items))
        tag = slugify(str(path[-1])) if len(arrays) > 1 and path else ""
        for number, (item, line) in enumerate(zip(items, lines, strict=True), start=1):
            read = _read_item(item, number, line, deck)
            if read is not None:
                read.tags = [tag, *read.tags] if tag else read.tags
                pending.append(read)
    base = _index_base(pending, deck)
    for question in pending:
        _settle(question, base, locale, deck)
    return deck


def _document(text: str) -> tuple[Any, int]:
    """The parsed JSON, and where it starts in the text (after a JavaScript `const x =`)."""
    start = _JS_START.search(text[:65536])
    stripped = text.lstrip("\ufeff \t\r\n")
    if start is not None and not stripped.startswith(("{", "[")):
        try:
            return json.JSONDecoder().raw_decode(text, start.end())[0], start.end()
        except RecursionError:
            raise FormatError("not valid JSON: nested too deep to read") from None
        except json.JSONDecodeError as error:
            raise FormatError(
                "this is JavaScript, not JSON: its array is not JSON as written (keys without "
                f"double quotes, comments or trailing commas; {error.msg}). Print it as JSON, e.g. "
                "`node -e \"console.log(JSON.stringify(require('./FILE.js'), null, 2))\" > "
                "quiz.json` (after `module.exports = questions`), and import that",
                error.lineno,
            ) from None
    try:
        return json.loads(text), len(text) - len(stripped)
    except RecursionError:
        raise FormatError("not valid JSON: nested too deep to read") from None
    except json.JSONDecodeError as error:
        raise FormatError(
            f"not valid JSON: {error.msg} (column {error.colno})", error.lineno
        ) from None


def _not_questions(document: Any) -> str:
    """One line on what the JSON holds instead, and what to try."""
    if isinstance(document, dict):
        keys = ", ".join(str(key) for key in list(document)[:8])
        found = f"an object with keys {keys}" if keys else "an empty object"
    elif isinstance(document, list):
        objects = [item for item in document if isinstance(item, dict)]
        keys = ", ".join(dict.fromkeys(str(key) for item in objects[:20] for key in item))
        found = (
            f"an array of {len(document)} items whose objects have keys {keys[:200]}"
            if objects
            else f"an array of {len(document)} items and no objects"
        )
    else:
        found = f"a single {type(document).__name__} value"
    return (
        f"no questions found: this JSON is {found}. A quiz JSON file is an array of objects "
        "each with a question, its choices and the answer (or an object holding such an "
        'array under a key like "questions"); an Open Trivia DB response takes --format opentdb'
    )


def _item_lines(text: str, start: int, path: list[str], count: int) -> list[int]:
    """The line each object of the array at `path` starts on, found by walking the text."""
    decoder = json.JSONDecoder()
    index = start
    try:
        for key in path:
            index = _member(text, index, key, decoder)
        index = _skip(text, index)
        if text[index] != "[":
            raise ValueError
        index += 1
        lines: list[int] = []
        for _ in range(count):
            index = _skip(text, index, ",")
            lines.append(text.count("\n", 0, index) + 1)
            index = decoder.raw_decode(text, index)[1]
        return lines
    except (ValueError, IndexError):
        return [text.count("\n", 0, start) + 1] * count


def _member(text: str, index: int, key: str, decoder: json.JSONDecoder) -> int:
    """Where the value of `key` starts in the object at `index`."""
    index = _skip(text, index)
    if text[index] != "{":
        raise ValueError
    index += 1
    while True:
        index = _skip(text, index, ",")
        name, index = decoder.raw_decode(text, index)
        index = _skip(text, index, ":")
        if name == key:
            return index
        index = decoder.raw_decode(text, index)[1]


def _skip(text: str, index: int, also: str = "") -> int:
    while text[index] in " \t\r\n" + also:
        index += 1
    return index


def _folded(item: dict[str, Any]) -> dict[str, Any]:
    folded: dict[str, Any] = {}
    for key, value in item.items():
        folded.setdefault(fold_key(str(key)), value)
    return folded


def _read_item(item: Any, number: int, line: int, deck: DraftDeck) -> _Pending | None:
    if not isinstance(item, dict):
        deck.skip(line, f"item {number} is not an object")
        return None
    key = question_key(item)
    if key is None:
        keys = ", ".join(str(name) for name in item) or "none"
        deck.skip(line, f"object {number} has no question (its keys: {keys})")
        return None
    fields = _folded(item)
    pending = _Pending(line=line, text=item[key].strip(), choices=[])
    reason = _choices(fields, fold_key(key), pending)
    if reason is not None:
        deck.skip(line, reason)
        return None
    pending.explanation = _first_text(fields, _EXPLANATION_KEYS)
    pending.tags = [slugify(text) for text in _tags(fields) if slugify(text)]
    name = fields.get("id")
    if isinstance(name, str | int) and not isinstance(name, bool):
        pending.name = str(name)
    return pending


def _choices(fields: dict[str, Any], question: str, pending: _Pending) -> str | None:
    """Fills the choices (and the answer when the choices carry it); a reason to skip if none."""
    for key in CHOICE_KEYS:
        value = fields.get(key)
        if isinstance(value, list | dict) and key != question:
            return _listed(value, fields, key, pending)
    answer = fields.get("answer")
    if isinstance(answer, list) and any(isinstance(entry, dict) for entry in answer):
        return _listed(answer, fields, "answer", pending)
    for key in WRONG_KEYS:
        wrong = fields.get(key)
        if isinstance(wrong, list):
            return _wrong_and_right(wrong, fields, pending)
    flat = sorted(
        (match.group(1), value)
        for key, value in fields.items()
        if (match := FLAT_CHOICE.match(key)) and isinstance(value, str | int | float)
    )
    if len(flat) >= 2:
        pending.labels = {label: index for index, (label, _) in enumerate(flat)}
        pending.choices = [DraftChoice({"": _plain(value)}) for _, value in flat]
        pending.raw = _answer_value(fields)
        return None
    return "it has no choices (options, choices, answers, or optionA, optionB...)"


def _listed(
    value: list[Any] | dict[str, Any], fields: dict[str, Any], key: str, pending: _Pending
) -> str | None:
    entries = list(value.values()) if isinstance(value, dict) else value
    if isinstance(value, dict):
        pending.labels = {_label(str(label)): index for index, label in enumerate(value)}
    flagged: list[int] = []
    for index, entry in enumerate(entries):
        if isinstance(entry, dict):
            inner = _folded(entry)
            text = _first_text(inner, _TEXT_KEYS) or _ending_in_text(inner)
            why = _first_text(inner, _WHY_KEYS)
            if any(inner.get(flag) is True for flag in _FLAG_KEYS):
                flagged.append(index)
            pending.choices.append(DraftChoice({"": text}, {"": why} if why else {}))
        elif isinstance(entry, str | int | float) and not isinstance(entry, bool):
            pending.choices.append(DraftChoice({"": _plain(entry)}))
        else:
            return f"choice {index + 1} is not text"
    if len(flagged) > 1:
        return f"it has {len(flagged)} right answers; a deck question has one"
    if flagged:
        pending.answer = flagged[0]
        return None
    pending.raw = _answer_value(fields, skip=key)
    if pending.raw is None:
        return "it has no answer (answer, correctAnswer, answerIndex...)"
    return None


def _label(key: str) -> str:
    """The label of a choice key: "optionB", "option_b" and "B" are all "b"."""
    match = FLAT_CHOICE.match(fold_key(key))
    return match.group(1) if match else fold_key(key)


def _wrong_and_right(wrong: list[Any], fields: dict[str, Any], pending: _Pending) -> str | None:
    right = _answer_value(fields)
    if not isinstance(right, str | int | float) or isinstance(right, bool):
        return "it lists wrong answers but no right one as text"
    texts = [_plain(entry) for entry in wrong if isinstance(entry, str | int | float)]
    place = zlib.crc32(pending.text.encode()) % (len(texts) + 1)
    texts.insert(place, _plain(right))
    pending.choices = [DraftChoice({"": text}) for text in texts]
    pending.answer = place
    return None


def _answer_value(fields: dict[str, Any], skip: str = "") -> Any:
    for key in ANSWER_KEYS:
        if key in fields and key != skip:
            return fields[key]
    return None


def _plain(value: str | int | float) -> str:
    return value.strip() if isinstance(value, str) else str(value)


def _first_text(fields: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = fields.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _ending_in_text(fields: dict[str, Any]) -> str:
    """A choice's text under an unusual key ("ansterText", "optionText")."""
    for key, value in fields.items():
        if key.endswith("text") and isinstance(value, str):
            return value.strip()
    return ""


def _tags(fields: dict[str, Any]) -> list[str]:
    found = [fields[key] for key in _TAG_KEYS if isinstance(fields.get(key), str)]
    listed = fields.get("tags")
    if isinstance(listed, list):
        found.extend(tag for tag in listed if isinstance(tag, str))
    return found


def _number(raw: Any) -> int | None:
    """An answer given as a number (5, 5.0, "5", "৫"), else None."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str) and raw.strip().isdecimal():
        return int(raw.strip())
    return None


def _matches_text(raw: Any, question: _Pending) -> int | None:
    if not isinstance(raw, str | int | float) or isinstance(raw, bool):
        return None
    wanted = " ".join(_plain(raw).split()).casefold()
    for index, choice in enumerate(question.choices):
        if " ".join(choice.text[""].split()).casefold() == wanted:
            return index
    return None


def _index_base(pending: list[_Pending], deck: DraftDeck) -> int:
    """0 or 1: how this file counts numeric answers, decided once from all of them and said."""
    numbers = [
        (number, len(question.choices))
        for question in pending
        if question.answer is None
        and (not isinstance(question.raw, str) or _matches_text(question.raw, question) is None)
        and (number := _number(question.raw)) is not None
    ]
    if not numbers:
        return 0
    if any(number == 0 for number, _ in numbers):
        base, why = 0, "an answer is 0"
    elif any(number == count for number, count in numbers):
        base, why = 1, "an answer equals its question's number of choices"
    elif len(numbers) >= 8:
        base, why = 1, f"none of {len(numbers)} answers is 0"
    else:
        base, why = 0, "nothing in the file says otherwise; check a few answers"
    first = "0" if base == 0 else "1"
    deck.warn(
        None,
        f"{len(numbers)} answers are numbers, read as {base}-based ({first} is the first "
        f"choice) because {why}",
    )
    return base


def _settle(question: _Pending, base: int, locale: str, deck: DraftDeck) -> None:
    answer = question.answer
    if answer is None:
        answer, reason = _resolve(question, base)
        if answer is None:
            deck.skip(question.line, reason)
            return
    deck.questions.append(
        DraftQuestion(
            line=question.line,
            text={locale: question.text},
            choices=[
                DraftChoice({locale: choice.text[""]}, _relabel(choice.why, locale))
                for choice in question.choices
            ],
            answer=answer,
            explanation={locale: question.explanation} if question.explanation else {},
            name=question.name,
            tags=question.tags,
        )
    )


def _relabel(texts: dict[str, str], locale: str) -> dict[str, str]:
    why = next(iter(texts.values()), "")
    return {locale: why} if why else {}


def _resolve(question: _Pending, base: int) -> tuple[int | None, str]:
    raw = question.raw
    if isinstance(raw, list):
        if len(raw) != 1:
            return None, f"it has {len(raw)} right answers; a deck question has one"
        raw = raw[0]
    by_text = _matches_text(raw, question)
    if by_text is not None and isinstance(raw, str):
        return by_text, ""  # "8" among "6", "8", "10" is the text; 8 (a number) is an index
    count = len(question.choices)
    number = _number(raw)
    if number is not None:
        if base <= number < count + base:
            return number - base, ""
        if by_text is not None:
            return by_text, ""
        return None, f"its answer {number} names no choice ({count} choices, counted from {base})"
    if isinstance(raw, str):
        named = _NAMED_NUMBER.match(raw.strip())
        if named is not None and 1 <= int(named.group(1)) <= count:
            return int(named.group(1)) - 1, ""
        match = _LETTER.match(raw.strip())
        if match is not None:
            letter = match.group(1)
            index = _letter_index(letter, question)
            if index is not None and index < count:
                rest = match.group(2).strip()
                if not rest or _matches_text(rest, question) in (None, index):
                    return index, ""
        shown = raw.strip() if len(raw.strip()) <= 40 else raw.strip()[:37] + "..."
        return None, f"its answer {shown!r} is not one of its choices, a letter or a number"
    return None, f"its answer is {type(raw).__name__}, not a choice's text, letter or number"


def _letter_index(letter: str, question: _Pending) -> int | None:
    folded = letter.casefold()
    if question.labels:
        for label, index in question.labels.items():
            if fold_key(label) == folded:
                return index
    if letter in _BENGALI_LETTERS:
        return _BENGALI_LETTERS.index(letter)
    return "abcde".index(folded)
