"""Reading a deck file into YAML nodes, refusing hostile input before it costs memory or stack.

Files come from anyone with write access to `questions/`, so oversized files, non-UTF-8 bytes,
alias bombs and deep nesting are refused with a `Refused` at the position PyYAML reports.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.decks.format import MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES
from bot.decks.problem import Refused


def compose_file(path: Path) -> yaml.Node | None:
    """The file's YAML node graph (None if it holds no document); raises `Refused`."""
    return _compose(read_text(path))


def compose_text(text: str) -> yaml.Node | None:
    """The YAML node graph of text read elsewhere (an import), with the same guards."""
    return _compose(text)


def read_text(path: Path) -> str:
    """The file as text, refusing it before reading if too big, and if not UTF-8."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise _too_big(path.stat().st_size)
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise Refused(1, 1, "no such file or folder") from None
    except OSError as error:
        raise Refused(1, 1, f"cannot read the file: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise _too_big(len(data))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _not_utf8(data, error.start) from None


def _too_big(size: int) -> Refused:
    return Refused(1, 1, f"the file is {size:,} bytes; a deck file may be at most 1 MiB")


def _not_utf8(data: bytes, start: int) -> Refused:
    line_start = data.rfind(b"\n", 0, start) + 1
    line = data.count(b"\n", 0, start) + 1
    column = len(data[line_start:start].decode("utf-8", errors="replace")) + 1
    return Refused(line, column, f"not UTF-8 (byte 0x{data[start]:02x}); save the file as UTF-8")


class _GuardedLoader(yaml.SafeLoader):
    """A SafeLoader whose composer stops past MAX_DEPTH or MAX_NODES, before stack or memory go."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        self._nodes += 1
        try:
            if self._depth > MAX_DEPTH or self._nodes > MAX_NODES:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise guard_refusal(self._depth > MAX_DEPTH, mark.line + 1, mark.column + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def guard_refusal(too_deep: bool, line: int, column: int) -> Refused:
    """The refusal of a file nested past MAX_DEPTH, or else with more than MAX_NODES values."""
    if too_deep:
        return Refused(line, column, f"nested deeper than {MAX_DEPTH} levels; refusing the file")
    return Refused(
        line,
        column,
        f"more than {MAX_NODES:,} YAML values, counting each use of an alias; refusing the file",
    )


_USE_LIBYAML = yaml.__with_libyaml__
"""Compose with libyaml when PyYAML has it; a test turns it off to compare with the slow path."""
# Well inside `_GuardedLoader`'s limits, so libyaml never accepts a file that it refuses.
_LIBYAML_MAX_NODES = MAX_NODES * 9 // 10
_LIBYAML_MAX_DEPTH = MAX_DEPTH - 5
# Text that libyaml and PyYAML read differently (see `_libyaml_may_compose`).
_LIBYAML_DIFFERS = re.compile("[\t\x85\u2028\u2029\ufeff]|[|>][-+0-9]*#")


def _compose(text: str) -> yaml.Node | None:
    """The YAML node graph, or a refusal at the position PyYAML reports.

    libyaml composes about 4x faster than `_GuardedLoader`, so it composes whatever it can
    prove safe; anything else (odd characters, near the limits, any libyaml error) goes to
    `_GuardedLoader`, whose refusals and syntax messages are the ones authors see.
    """
    if _USE_LIBYAML and _libyaml_may_compose(text):
        try:
            return yaml.compose(text, Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            pass  # composer errors (undefined alias, two documents): PyYAML words them below
    return _compose_guarded(text)


def _libyaml_may_compose(text: str) -> bool:
    """True if libyaml reads `text` as PyYAML does, within MAX_NODES and MAX_DEPTH.

    The two parsers differ on characters PyYAML refuses, tabs, Unicode line breaks, inner
    BOMs, `|#` block headers, tags, `?` in flow plain scalars and where empty values sit
    (differential fuzzing in the tests found these): those take the slow path. One pass over
    libyaml's events, which need no recursion, counts nodes (each alias use too, as
    `_GuardedLoader` does) and depth; this also bounds the recursion of libyaml's composer,
    which neither limits depth nor expands aliases.
    """
    if yaml.reader.Reader.NON_PRINTABLE.search(text) or _LIBYAML_DIFFERS.search(text):
        return False
    nodes = depth = flow = 0
    try:
        for event in yaml.parse(text, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.ScalarEvent):
                plain = not event.style  # an empty one may be placed a column apart
                if event.tag is not None or (plain and not event.value):
                    return False
                if plain and flow and "?" in event.value:
                    return False
                nodes += 1
            elif isinstance(event, yaml.AliasEvent):
                nodes += 1
            elif isinstance(event, yaml.CollectionStartEvent):
                if event.tag is not None:
                    return False
                nodes += 1
                depth += 1
                flow += 1 if flow or event.flow_style else 0
                if depth >= _LIBYAML_MAX_DEPTH:
                    return False
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                flow -= 1 if flow else 0
            if nodes >= _LIBYAML_MAX_NODES:
                return False
    except yaml.YAMLError:
        return False
    return True


def _compose_guarded(text: str) -> yaml.Node | None:
    """The node graph from PyYAML's pure-Python composer, with its limits and its messages."""
    try:
        return yaml.compose(text, Loader=_GuardedLoader)
    except yaml.MarkedYAMLError as error:
        raise _syntax_refusal(error) from None
    except yaml.reader.ReaderError as error:
        raise _reader_refusal(text, error) from None
    except yaml.YAMLError as error:
        raise Refused(1, 1, f"YAML error: {error}") from None


def _syntax_refusal(error: yaml.MarkedYAMLError) -> Refused:
    mark = error.problem_mark or error.context_mark
    parts = [part for part in (error.context, error.problem) if part]
    message = "YAML syntax error: " + ", ".join(parts).replace("\n", " ")
    return Refused(mark.line + 1 if mark else 1, mark.column + 1 if mark else 1, message)


def _reader_refusal(text: str, error: yaml.reader.ReaderError) -> Refused:
    position = int(error.position)
    line_start = text.rfind("\n", 0, position) + 1
    line = text.count("\n", 0, position) + 1
    code = ord(error.character) if isinstance(error.character, str) else int(error.character)
    message = f"character U+{code:04X} is not allowed in YAML"
    return Refused(line, position - line_start + 1, message)
