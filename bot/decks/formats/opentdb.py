"""Open Trivia DB responses: `{"response_code": 0, "results": [...]}` as its API sends them.

Texts come HTML-escaped (`&quot;`, `&#039;`) by default, or URL-encoded or base64 when the
request asked for `encode=url3986`, `urlLegacy` or `base64`; each is detected and decoded. A
"boolean" question becomes True/False; the category and the difficulty become tags. The
database's questions are licensed CC BY-SA 4.0, which the deck records.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
import zlib
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, unquote_plus

from bot.decks.formats.draft import (
    DraftChoice,
    DraftDeck,
    DraftQuestion,
    FormatError,
    generated_true_false,
    settle_true_false,
)
from bot.decks.formats.jsondoc import loads
from bot.decks.formats.slug import slugify

FORMAT_NAME = "Open Trivia DB"
LICENSE = "CC BY-SA 4.0"

_RESPONSE_CODES = {
    1: "no results (the API had too few questions for the query)",
    2: "an invalid parameter in the query",
    3: "a session token that does not exist",
    4: "a session token that has returned every question",
    5: "too many requests (rate limit)",
}
_RESULTS = re.compile(r'"results"\s*:\s*\[')
_FIELDS = ("type", "question", "correct_answer", "incorrect_answers")


def read_opentdb(text: str, locale: str) -> DraftDeck:
    """Every question of a response (or of a bare list of results), at the line it starts on."""
    document = loads(text)
    if isinstance(document, dict):
        code = document.get("response_code", 0)
        if code != 0:
            meaning = _RESPONSE_CODES.get(code, "an error") if isinstance(code, int) else "an error"
            raise FormatError(
                f"the response has response_code {code}: {meaning}; it holds no questions"
            )
        results = document.get("results")
        start = _RESULTS.search(text)
    else:
        results, start = document, None
    if not isinstance(results, list):
        raise FormatError('not an Open Trivia DB response: no "results" list')
    decode = _decoder(results)
    deck = DraftDeck(locales=[locale], license=LICENSE)
    lines = _entry_lines(text, start.end() if start else text.index("[") + 1, len(results))
    for number, (entry, line) in enumerate(zip(results, lines, strict=True), start=1):
        _read_entry(entry, number, line, decode, locale, deck)
    return deck


def _entry_lines(text: str, index: int, count: int) -> list[int]:
    """The line each entry of the results array starts on, found by decoding it in place."""
    decoder = json.JSONDecoder()
    lines: list[int] = []
    line, counted = 1, 0
    for _ in range(count):
        while index < len(text) and text[index] in " \t\r\n,":
            index += 1
        line += text.count("\n", counted, index)
        counted = index
        lines.append(line)
        try:
            index = decoder.raw_decode(text, index)[1]
        except json.JSONDecodeError:
            break
    return lines + [line] * (count - len(lines))


def _decoder(results: list[Any]) -> Callable[[str], str]:
    """How this response's strings are encoded, judged from the question types it holds."""
    kinds = {entry.get("type") for entry in results if isinstance(entry, dict)}
    if kinds & {"bXVsdGlwbGU=", "Ym9vbGVhbg=="}:
        return _from_base64
    questions = [entry.get("question", "") for entry in results if isinstance(entry, dict)]
    texts = [question for question in questions if isinstance(question, str) and question]
    if texts and all(" " not in question for question in texts):
        legacy = any("+" in question for question in texts)
        return unquote_plus if legacy else unquote
    return html.unescape


def _from_base64(value: str) -> str:
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return value


def _read_entry(
    entry: object,
    number: int,
    line: int,
    decode: Callable[[str], str],
    locale: str,
    deck: DraftDeck,
) -> None:
    if not isinstance(entry, dict):
        deck.skip(line, f"result {number} is not an object")
        return
    missing = [name for name in _FIELDS if name not in entry]
    if missing:
        deck.skip(line, f"result {number} has no {', '.join(missing)}")
        return
    wrong = entry["incorrect_answers"]
    texts = [entry["type"], entry["question"], entry["correct_answer"]]
    if not isinstance(wrong, list) or not all(isinstance(value, str) for value in [*texts, *wrong]):
        deck.skip(line, f"result {number} has a field that is not text")
        return
    kind, question, right = (decode(value).strip() for value in texts)
    wrongs = [decode(value).strip() for value in wrong]
    tags = []
    for field_name in ("category", "difficulty"):
        value = entry.get(field_name)
        if isinstance(value, str) and slugify(decode(value)):
            tags.append(slugify(decode(value)))
    if kind == "boolean":
        answer = 0 if right.lower() == "true" else 1
        choices = generated_true_false(locale)
    elif kind == "multiple":
        # The API lists the right answer first; a fixed place per question keeps imports
        # repeatable without making every answer A when an author turns shuffling off.
        answer = zlib.crc32(question.encode()) % (len(wrongs) + 1)
        texts = [*wrongs[:answer], right, *wrongs[answer:]]
        choices = [DraftChoice({locale: text}) for text in texts]
    else:
        deck.skip(
            line, f"result {number} has type '{kind}'; only multiple and boolean are questions"
        )
        return
    draft = DraftQuestion(
        line=line, text={locale: question}, choices=choices, answer=answer, tags=tags
    )
    settle_true_false(draft, locale)
    deck.questions.append(draft)
