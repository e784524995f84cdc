"""A deck mapping as block YAML, byte for byte as `writer._DeckDumper` writes it, ten times faster.

PyYAML's emitter is pure Python and looks at every character of every text several times: a
10 MiB import spent most of its time there, and libyaml's emitter cannot indent lists under
their key as the shipped decks do. The mappings an import writes hold only strings, ints,
bools, mappings and lists of scalars or mappings, and most texts are plain one-liners; those
are written here. Anything else (a tab, a text starting with a space, a list in a list, ...)
raises `Unsupported`, and the writer hands the whole deck to PyYAML. The tests compare both on
the shipped decks and on generated texts, so a difference fails loudly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

_PRINTABLE = re.compile(
    "[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010fffe]*"
)
"""What PyYAML writes as is with allow_unicode: no control character, tab, line break other
than \\n, byte order mark or surrogate."""
_PLAIN_BREAKER = re.compile(r": |:$| #|^[-?:]( |$)|^[#,\[\]{}&*!|>'\"%@`]|^---|^\.\.\.|^ | $")
"""What stops a one-line text from being written plain in block context (PyYAML's rules)."""
_resolve: Callable[[type[yaml.Node], str, tuple[bool, bool]], str] = (
    yaml.resolver.Resolver().resolve
)
"""The tag PyYAML reads a plain text as: a text read as a number, bool or null is quoted."""
_STR = "tag:yaml.org,2002:str"


class Unsupported(Exception):
    """A value this writer does not render exactly as PyYAML would; use PyYAML."""


def dump(mapping: dict[str, Any]) -> str:
    """The block YAML of `mapping`, as `yaml.dump(mapping, Dumper=_DeckDumper, ...)`."""
    if not mapping:
        raise Unsupported("an empty mapping")
    lines: list[str] = []
    _mapping(mapping, 0, None, lines)
    return "\n".join(lines) + "\n"


def _mapping(mapping: dict[str, Any], indent: int, head: str | None, lines: list[str]) -> None:
    for key, value in mapping.items():
        if not isinstance(key, str) or not _plain(key):
            raise Unsupported(f"the key {key!r}")
        line = (head if head is not None else " " * indent) + key + ":"
        head = None
        if isinstance(value, dict) and value:
            lines.append(line)
            _mapping(value, indent + 2, None, lines)
        elif isinstance(value, list) and value:
            lines.append(line)
            _sequence(value, indent + 2, lines)
        else:
            _scalar(value, line + " ", indent + 2, lines)


def _sequence(items: list[Any], indent: int, lines: list[str]) -> None:
    dash = " " * indent + "- "
    for item in items:
        if isinstance(item, dict) and item:
            _mapping(item, indent + 2, dash, lines)
        elif isinstance(item, dict | list):
            raise Unsupported("a list or an empty mapping in a list")
        else:
            _scalar(item, dash, indent + 2, lines)


def _scalar(value: Any, line: str, indent: int, lines: list[str]) -> None:
    """`value` after `line`; a text's own lines (a literal block) at `indent`."""
    if value == [] or value == {}:
        lines.append(line + ("[]" if value == [] else "{}"))
    elif isinstance(value, bool):
        lines.append(line + ("true" if value else "false"))
    elif isinstance(value, int):
        lines.append(line + str(value))
    elif not isinstance(value, str) or not _PRINTABLE.fullmatch(value.replace("\n", " ")):
        raise Unsupported(f"the value {value!r}")
    elif "\n" in value:
        lines.append(line + _literal_head(value))
        margin = " " * indent
        body = value[:-1] if value.endswith("\n") else value
        lines.extend(margin + text if text else "" for text in body.split("\n"))
    elif _plain(value):
        lines.append(line + value)
    else:
        lines.append(line + "'" + value.replace("'", "''") + "'")


def _plain(text: str) -> bool:
    return (
        bool(text)
        and _PRINTABLE.fullmatch(text) is not None
        and _PLAIN_BREAKER.search(text) is None
        and _resolve(yaml.ScalarNode, text, (True, False)) == _STR
    )


def _literal_head(text: str) -> str:
    """`|` with PyYAML's chomping hint; the texts that need more are left to PyYAML."""
    if text[0] in " \n" or text.endswith("\n\n") or text == "\n" or " \n" in text:
        raise Unsupported("a text PyYAML writes with an indentation or keep hint, or quoted")
    if text[-1] == " ":
        raise Unsupported("a multi-line text ending in a space (PyYAML quotes it)")
    return "|" if text.endswith("\n") else "|-"
