"""A quiz JSON file as text: the document in it (after a JavaScript `const x =`), and the line
each object of an array starts on, found in one pass over the text."""

from __future__ import annotations

import json
import re
from typing import Any

from bot.decks.formats.draft import FormatError

_JS_START = re.compile(
    r"(?:export\s+default|module\.exports\s*=|(?:export\s+)?(?:const|let|var)\s+[\w$]+"
    r"(?:\s*:\s*[^=\n]{1,200})?\s*=)\s*(?=[\[{])"
)
"""The type annotation is bounded, so a line of `const a:` repeated cannot take quadratic time."""


def parse_document(text: str) -> tuple[Any, int]:
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
        except ValueError as error:  # a number of more than 4,300 digits
            raise FormatError(f"not valid JSON: {_first_clause(error)}") from None
    return loads(text), len(text) - len(stripped)


def loads(text: str) -> Any:
    """`json.loads`, every failure a FormatError at its line."""
    try:
        return json.loads(text)
    except RecursionError:
        raise FormatError("not valid JSON: nested too deep to read") from None
    except json.JSONDecodeError as error:
        raise FormatError(
            f"not valid JSON: {error.msg} (column {error.colno})", error.lineno
        ) from None
    except ValueError as error:  # a number of more than 4,300 digits
        raise FormatError(f"not valid JSON: {_first_clause(error)}") from None


def _first_clause(error: ValueError) -> str:
    return str(error).split(":", 1)[0].lower() or "a value it cannot hold"


def item_lines(text: str, start: int, path: list[str], count: int) -> list[int]:
    """The line each object of the array at `path` starts on, found by walking the text once."""
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
        line, counted = text.count("\n", 0, index) + 1, index
        for _ in range(count):
            index = _skip(text, index, ",")
            line += text.count("\n", counted, index)
            counted = index
            lines.append(line)
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


def not_questions(document: Any) -> str:
    """One line on what a JSON document with no question arrays holds instead, and what to try."""
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
