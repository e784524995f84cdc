"""The positioned tree: a deck file's values as written, each remembering its line and column.

The checker reads this instead of PyYAML's nodes, so every problem can point at its value and
texts stay as written (`no`, `1.10` and `007` are not turned into a bool or numbers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import yaml

from bot.decks.format import MAX_DEPTH, MAX_NODES
from bot.decks.problem import Refused
from bot.decks.reading import guard_refusal

_YAML_TAG = "tag:yaml.org,2002:"
_STANDARD_TAGS = frozenset(
    _YAML_TAG + name for name in ("null", "bool", "int", "float", "str", "timestamp", "seq", "map")
)
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


@dataclass(frozen=True)
class At:
    line: int
    column: int


@dataclass(frozen=True)
class Scalar(At):
    text: str
    """The scalar's content as written (so `no`, `1.10` and `007` stay text where text is meant)."""
    value: str | int | float | bool | None


@dataclass(frozen=True)
class Seq(At):
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Map(At):
    entries: dict[str, tuple[Scalar, Node]]

    def get(self, key: str) -> Node | None:
        entry = self.entries.get(key)
        return entry[1] if entry else None


Node = Scalar | Seq | Map


def is_blank(node: Node) -> bool:
    return isinstance(node, Scalar) and (node.value is None or not node.text.strip())


class TreeBuilder:
    """Turns the composed graph into `Node`s, counting nodes as aliases expand them.

    Keys that are not plain or appear twice go to `report`; anything the checker could not
    make sense of (odd tags, merge keys, invalid explicit values) raises `Refused`.
    """

    def __init__(self, report: Callable[[At, str], None]) -> None:
        self._report = report
        self._count = 0

    def build(self, node: yaml.Node, depth: int = 1) -> Node:
        line, column = node.start_mark.line + 1, node.start_mark.column + 1
        self._count += 1
        if self._count > MAX_NODES or depth > MAX_DEPTH:
            raise guard_refusal(depth > MAX_DEPTH, line, column)
        if node.tag not in _STANDARD_TAGS:
            shown = node.tag.replace(_YAML_TAG, "!!")
            raise Refused(line, column, f"YAML tag '{shown}' is not allowed in a deck file")
        if isinstance(node, yaml.SequenceNode):
            return Seq(line, column, tuple(self.build(item, depth + 1) for item in node.value))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, line, column, depth)
        assert isinstance(node, yaml.ScalarNode)
        return Scalar(line, column, str(node.value), _scalar_value(node, line, column))

    def _mapping(self, node: yaml.MappingNode, line: int, column: int, depth: int) -> Map:
        entries: dict[str, tuple[Scalar, Node]] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _YAML_TAG + "merge":
                at = key_node.start_mark
                raise Refused(at.line + 1, at.column + 1, "merge keys (<<) are not supported")
            key = self.build(key_node, depth + 1)
            value = self.build(value_node, depth + 1)
            if not isinstance(key, Scalar):
                self._report(key, "a key must be a plain word, not a list or mapping")
            elif key.text in entries:
                first = entries[key.text][0].line
                self._report(key, f"duplicate key '{key.text}' (first on line {first})")
            else:
                entries[key.text] = (key, value)
        return Map(line, column, entries)


def _scalar_value(node: yaml.ScalarNode, line: int, column: int) -> str | int | float | bool | None:
    kind = node.tag.removeprefix(_YAML_TAG)
    try:
        if kind == "null":
            return None
        if kind == "bool":
            return _CONSTRUCTOR.construct_yaml_bool(node)
        if kind == "int":
            return _CONSTRUCTOR.construct_yaml_int(node)
        if kind == "float":
            return _CONSTRUCTOR.construct_yaml_float(node)
    except (ValueError, KeyError, yaml.YAMLError):
        shown = node.value if len(node.value) <= 40 else node.value[:40] + "..."
        raise Refused(line, column, f"'{shown}' is not a valid !!{kind}") from None
    return str(node.value)
