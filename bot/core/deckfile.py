"""Deck files: YAML in, a validated `Deck` out, or every problem at its line and column.

Authors fix decks from `quizbot validate` output, so each failure is a `Problem` pointing at
the offending key or value, all of a file's problems are reported at once, and bad input
never raises. Files come from anyone with write access to `questions/`, so oversized files,
alias bombs, deep nesting and non-standard tags are refused before they cost memory.
"""

from __future__ import annotations

import difflib
import re
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bot.core.deck import (
    MAX_CHOICES,
    MIN_CHOICES,
    RESERVED_DECK_IDS,
    Choice,
    Deck,
    Question,
)

MAX_FILE_BYTES = 1024 * 1024
MAX_NODES = 100_000
MAX_DEPTH = 50
MAX_ID_LENGTH = 64
MAX_TITLE_CHARS = 200
MAX_QUESTION_CHARS = 2900
"""Text plus lettered choices: what a Slack section or a Discord embed can show, with room."""
MAX_EXPLANATION_CHARS = 2000
MAX_WHY_CHARS = 1000

ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*")
LOCALE_PATTERN = re.compile(r"[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?")

DECK_KEYS = ("id", "title", "description", "locales", "shuffle", "questions")
DECK_REQUIRED = ("title", "locales", "questions")
QUESTION_KEYS = ("id", "text", "choices", "answer", "explanation", "tags", "shuffle")
QUESTION_REQUIRED = ("id", "text", "choices", "answer", "explanation")
CHOICE_KEYS = ("text", "why")

_YAML_TAG = "tag:yaml.org,2002:"
_STANDARD_TAGS = frozenset(
    _YAML_TAG + name for name in ("null", "bool", "int", "float", "str", "timestamp", "seq", "map")
)
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a deck file, at a 1-based line and column, as editors count."""

    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


@dataclass
class DeckReport:
    """What `load_decks` found: the valid decks, every problem, and how many files it read."""

    decks: list[Deck] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """One line for `quizbot validate`, e.g. "3 decks, 42 questions in 3 files: all valid"."""
        questions = sum(len(deck) for deck in self.decks)
        counts = (
            f"{_plural(len(self.decks), 'deck')}, {_plural(questions, 'question')}"
            f" in {_plural(self.files, 'file')}"
        )
        verdict = "all valid" if self.ok else _plural(len(self.problems), "problem")
        return f"{counts}: {verdict}"


def load_deck(path: Path) -> tuple[Deck | None, list[Problem]]:
    """The deck in `path`, or None and every problem found (never raises for bad input)."""
    loaded = _load(path)
    return loaded.deck, loaded.problems


def load_decks(paths: Sequence[Path]) -> DeckReport:
    """Every deck in `paths` (files, or folders of *.yaml / *.yml), with all their problems.

    Deck ids must be unique across the files, since posts and answers are stored by deck id.
    """
    report = DeckReport()
    owners: dict[str, str] = {}
    for path in _deck_files(paths, report.problems):
        report.files += 1
        loaded = _load(path)
        duplicate = _duplicate_id(loaded, str(path), owners)
        if duplicate is not None:
            report.problems.extend(_sorted([*loaded.problems, duplicate]))
            continue
        report.problems.extend(loaded.problems)
        if loaded.deck is not None:
            report.decks.append(loaded.deck)
    return report


def _duplicate_id(loaded: _Loaded, path: str, owners: dict[str, str]) -> Problem | None:
    """A problem at this file's id if an earlier file has the same deck id."""
    if loaded.deck_id is None:
        return None
    first = owners.setdefault(loaded.deck_id, path)
    if first == path:
        return None
    line, column = loaded.id_at
    return Problem(path, line, column, f"deck id '{loaded.deck_id}' is already used by {first}")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _sorted(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.line, p.column))


def _deck_files(paths: Sequence[Path], problems: list[Problem]) -> Iterator[Path]:
    """Files to load, once each; a folder gives its *.yaml and *.yml files, sorted, not nested."""
    seen: set[Path] = set()
    for path in paths:
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".yaml", ".yml"))
            if not files:
                problems.append(Problem(str(path), 1, 1, "no deck files (*.yaml, *.yml) here"))
        elif path.exists():
            files = [path]
        else:
            problems.append(Problem(str(path), 1, 1, "no such file or folder"))
            files = []
        for file in files:
            if file.resolve() not in seen:
                seen.add(file.resolve())
                yield file


# Reading and composing ------------------------------------------------------------------------


class _Refused(Exception):
    """The file is refused as a whole: a problem after which nothing else can be checked."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message


@dataclass
class _Loaded:
    deck: Deck | None
    problems: list[Problem]
    deck_id: str | None = None
    id_at: tuple[int, int] = (1, 1)


def _load(path: Path) -> _Loaded:
    checker = _DeckChecker(str(path), path.stem)
    try:
        node = _compose(_read_text(path))
        root = _TreeBuilder(checker).build(node) if node is not None else None
    except _Refused as refused:
        return _Loaded(None, [Problem(str(path), refused.line, refused.column, refused.message)])
    if root is None:
        checker.add_at(1, 1, "the file is empty; a deck needs title, locales and questions")
        return _Loaded(None, checker.problems)
    deck = checker.deck(root)
    return _Loaded(deck, _sorted(checker.problems), checker.deck_id, checker.id_at)


def _read_text(path: Path) -> str:
    """The file as text, refusing it before reading if too big, and if not UTF-8."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise _too_big(path.stat().st_size)
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise _Refused(1, 1, "no such file or folder") from None
    except OSError as error:
        raise _Refused(1, 1, f"cannot read the file: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise _too_big(len(data))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _not_utf8(data, error.start) from None


def _too_big(size: int) -> _Refused:
    return _Refused(1, 1, f"the file is {size:,} bytes; a deck file may be at most 1 MiB")


def _not_utf8(data: bytes, start: int) -> _Refused:
    line_start = data.rfind(b"\n", 0, start) + 1
    line = data.count(b"\n", 0, start) + 1
    column = len(data[line_start:start].decode("utf-8", errors="replace")) + 1
    return _Refused(line, column, f"not UTF-8 (byte 0x{data[start]:02x}); save the file as UTF-8")


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
                raise _guard_refusal(self._depth > MAX_DEPTH, mark.line + 1, mark.column + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _guard_refusal(too_deep: bool, line: int, column: int) -> _Refused:
    if too_deep:
        return _Refused(line, column, f"nested deeper than {MAX_DEPTH} levels; refusing the file")
    return _Refused(
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
        raise _Refused(1, 1, f"YAML error: {error}") from None


def _syntax_refusal(error: yaml.MarkedYAMLError) -> _Refused:
    mark = error.problem_mark or error.context_mark
    parts = [part for part in (error.context, error.problem) if part]
    message = "YAML syntax error: " + ", ".join(parts).replace("\n", " ")
    return _Refused(mark.line + 1 if mark else 1, mark.column + 1 if mark else 1, message)


def _reader_refusal(text: str, error: yaml.reader.ReaderError) -> _Refused:
    position = int(error.position)
    line_start = text.rfind("\n", 0, position) + 1
    line = text.count("\n", 0, position) + 1
    code = ord(error.character) if isinstance(error.character, str) else int(error.character)
    message = f"character U+{code:04X} is not allowed in YAML"
    return _Refused(line, position - line_start + 1, message)


# The located tree: plain values that remember where they were written -----------------------


@dataclass(frozen=True)
class _At:
    line: int
    column: int


@dataclass(frozen=True)
class _Scalar(_At):
    text: str
    """The scalar's content as written (so `no`, `1.10` and `007` stay text where text is meant)."""
    value: str | int | float | bool | None


@dataclass(frozen=True)
class _Seq(_At):
    items: tuple[_Node, ...]


@dataclass(frozen=True)
class _Map(_At):
    entries: dict[str, tuple[_Scalar, _Node]]

    def get(self, key: str) -> _Node | None:
        entry = self.entries.get(key)
        return entry[1] if entry else None


_Node = _Scalar | _Seq | _Map


class _TreeBuilder:
    """Turns the composed graph into `_Node`s, counting nodes as aliases expand them."""

    def __init__(self, checker: _DeckChecker) -> None:
        self._checker = checker
        self._count = 0

    def build(self, node: yaml.Node, depth: int = 1) -> _Node:
        line, column = node.start_mark.line + 1, node.start_mark.column + 1
        self._count += 1
        if self._count > MAX_NODES or depth > MAX_DEPTH:
            raise _guard_refusal(depth > MAX_DEPTH, line, column)
        if node.tag not in _STANDARD_TAGS:
            shown = node.tag.replace(_YAML_TAG, "!!")
            raise _Refused(line, column, f"YAML tag '{shown}' is not allowed in a deck file")
        if isinstance(node, yaml.SequenceNode):
            return _Seq(line, column, tuple(self.build(item, depth + 1) for item in node.value))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, line, column, depth)
        assert isinstance(node, yaml.ScalarNode)
        return _Scalar(line, column, str(node.value), _scalar_value(node, line, column))

    def _mapping(self, node: yaml.MappingNode, line: int, column: int, depth: int) -> _Map:
        entries: dict[str, tuple[_Scalar, _Node]] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _YAML_TAG + "merge":
                at = key_node.start_mark
                raise _Refused(at.line + 1, at.column + 1, "merge keys (<<) are not supported")
            key = self.build(key_node, depth + 1)
            value = self.build(value_node, depth + 1)
            if not isinstance(key, _Scalar):
                self._checker.add(key, "a key must be a plain word, not a list or mapping")
            elif key.text in entries:
                first = entries[key.text][0].line
                self._checker.add(key, f"duplicate key '{key.text}' (first on line {first})")
            else:
                entries[key.text] = (key, value)
        return _Map(line, column, entries)


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
        raise _Refused(line, column, f"'{shown}' is not a valid !!{kind}") from None
    return str(node.value)


def _is_blank(node: _Node) -> bool:
    return isinstance(node, _Scalar) and (node.value is None or not node.text.strip())


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


# Validation -----------------------------------------------------------------------------------


@dataclass
class _DraftChoice:
    """A choice while checking: its node for positions, its texts, and where its `why` key is."""

    at: _Node
    text: dict[str, str] | None
    why: dict[str, str] | None = None
    why_key: _Scalar | None = None


class _DeckChecker:
    """Checks one file's tree against the deck format, collecting every problem it finds."""

    def __init__(self, path: str, stem: str) -> None:
        self.path = path
        self.stem = stem
        self.problems: list[Problem] = []
        self.locales: tuple[str, ...] | None = None
        self.deck_id: str | None = None
        self.id_at = (1, 1)

    def add(self, at: _At, message: str) -> None:
        self.add_at(at.line, at.column, message)

    def add_at(self, line: int, column: int, message: str) -> None:
        self.problems.append(Problem(self.path, line, column, message))

    # The deck

    def deck(self, root: _Node) -> Deck | None:
        if not isinstance(root, _Map):
            kind = "a list" if isinstance(root, _Seq) else "a single value"
            self.add(
                root, f"a deck file must be a mapping with title, locales and questions, not {kind}"
            )
            return None
        self.check_keys(root, DECK_KEYS, DECK_REQUIRED, "a deck")
        self.check_locales(root.get("locales"))
        deck_id = self.check_deck_id(root.get("id"))
        title = self.optional_text(root.get("title"), "title", MAX_TITLE_CHARS)
        description = self.optional_text(root.get("description"), "description")
        shuffle = self.flag(root.get("shuffle"), "shuffle", default=True)
        questions = self.questions(root.get("questions"), shuffle)
        if self.problems or None in (deck_id, title, questions, self.locales):
            return None
        assert deck_id is not None and title is not None and questions is not None
        assert self.locales is not None
        return Deck(deck_id, title, self.locales, questions, description, source=self.path)

    def check_keys(
        self, node: _Map, allowed: tuple[str, ...], required: tuple[str, ...], where: str
    ) -> None:
        """Unknown keys, with a guess at the intended one; then missing keys not so guessed."""
        guessed: set[str] = set()
        for key, (key_node, _) in node.entries.items():
            if key in allowed:
                continue
            match = difflib.get_close_matches(key, allowed, n=1)
            if match:
                guessed.add(match[0])
                self.add(key_node, f"unknown key '{key}' (did you mean '{match[0]}'?)")
            else:
                self.add(key_node, f"unknown key '{key}'; {where} has {', '.join(allowed)}")
        for key in required:
            if key not in node.entries and key not in guessed:
                self.add(node, f"missing required key '{key}'")

    def check_locales(self, node: _Node | None) -> None:
        """Sets `self.locales` only if they are all valid: texts are checked against them."""
        if node is None:
            return
        items = self.items(node, "locales must be a list, such as [en] or [bn, en]")
        if items is None:
            return
        if not items:
            self.add(node, "locales is empty; list at least one, such as [en]")
            return
        before = len(self.problems)
        found: list[str] = []
        for item in items:
            code = item.text.strip() if isinstance(item, _Scalar) and not _is_blank(item) else ""
            if not code:
                self.add(item, "a locale must be a language code such as en, bn or pt-BR")
            elif not LOCALE_PATTERN.fullmatch(code):
                self.add(item, f"locale '{code}' is not a language code like en, bn or pt-BR")
            elif code in found:
                self.add(item, f"locale '{code}' is listed twice")
            else:
                found.append(code)
        if len(self.problems) == before:
            self.locales = tuple(found)

    def check_deck_id(self, node: _Node | None) -> str | None:
        """The deck id, written or else the file name; remembered for cross-file duplicates."""
        if node is None:
            at: _At = _At(1, 1)
            deck_id = self.identifier(self.stem, at, "deck id", " (from the file name)")
        elif isinstance(node, _Scalar) and not _is_blank(node):
            at = node
            deck_id = self.identifier(node.text, node, "deck id")
        else:
            self.add(node, "deck id must be a word such as model-parallelism")
            return None
        if deck_id in RESERVED_DECK_IDS:
            self.add(at, f"deck id '{deck_id}' is reserved (a word of the schedule command)")
            return None
        if deck_id is not None:
            self.deck_id, self.id_at = deck_id, (at.line, at.column)
        return deck_id

    def identifier(self, value: str, at: _At, label: str, origin: str = "") -> str | None:
        if not ID_PATTERN.fullmatch(value):
            self.add(
                at,
                f"{label} '{value}'{origin} must use only a-z, 0-9 and '-', and not start with '-'",
            )
        elif len(value) > MAX_ID_LENGTH:
            self.add(at, f"{label}{origin} is {len(value)} characters; at most {MAX_ID_LENGTH}")
        else:
            return value
        return None

    def items(self, node: _Node, message: str) -> tuple[_Node, ...] | None:
        """A list's items; an empty value counts as an empty list."""
        if isinstance(node, _Seq):
            return node.items
        if isinstance(node, _Scalar) and node.value is None:
            return ()
        self.add(node, message)
        return None

    def flag(self, node: _Node | None, key: str, default: bool) -> bool:
        if node is None:
            return default
        if isinstance(node, _Scalar) and isinstance(node.value, bool):
            return node.value
        self.add(node, f"{key} must be true or false")
        return default

    # Texts

    def optional_text(
        self, node: _Node | None, label: str, limit: int | None = None
    ) -> dict[str, str] | None:
        return None if node is None else self.text(node, label, limit)

    def text(self, node: _Node, label: str, limit: int | None = None) -> dict[str, str] | None:
        """A text in every deck locale; a plain string only in a one-locale deck."""
        before = len(self.problems)
        if isinstance(node, _Map):
            found = self.localized(node, label)
        elif isinstance(node, _Scalar):
            found = self.plain(node, label)
        else:
            self.add(node, f"{label} must be a string or a mapping of locale to string")
            return None
        if found is None:
            return None
        texts, places = found
        self.check_lengths(texts, places, label, limit)
        if len(self.problems) > before or self.locales is None:
            return None
        return {locale: texts[locale] for locale in self.locales}

    def plain(self, node: _Scalar, label: str) -> tuple[dict[str, str], dict[str, _At]] | None:
        if _is_blank(node):
            self.add(node, f"{label} is empty")
            return None
        if self.locales is None:
            return None
        if len(self.locales) > 1:
            shape = ", ".join(f"{locale}: ..." for locale in self.locales)
            self.add(
                node,
                f"{label} is a plain string, but the deck has locales "
                f"{', '.join(self.locales)}: write {{{shape}}}",
            )
            return None
        return {self.locales[0]: node.text.strip()}, {self.locales[0]: node}

    def localized(self, node: _Map, label: str) -> tuple[dict[str, str], dict[str, _At]] | None:
        if not node.entries:
            self.add(node, f"{label} is empty")
            return None
        missing = [loc for loc in self.locales or () if loc not in node.entries]
        guessed: set[str] = set()
        texts: dict[str, str] = {}
        places: dict[str, _At] = {}
        for locale, (key, value) in node.entries.items():
            if self.locales is not None and locale not in self.locales:
                guessed.update(self.unknown_locale(key, label, missing))
            elif not isinstance(value, _Scalar):
                self.add(value, f"{label} in '{locale}' must be a string")
            elif _is_blank(value):
                self.add(value, f"{label} in '{locale}' is empty")
            else:
                texts[locale], places[locale] = value.text.strip(), value
        for locale in missing:
            if locale not in guessed:
                self.add(node, f"{label} is missing locale '{locale}'")
        return texts, places

    def unknown_locale(self, key: _Scalar, label: str, missing: list[str]) -> list[str]:
        """Reports a locale the deck lacks, guessing among the missing ones; returns the guess."""
        assert self.locales is not None
        message = (
            f"{label} has locale '{key.text}', which is not one of the deck's locales "
            f"({', '.join(self.locales)})"
        )
        match = difflib.get_close_matches(key.text, missing, n=1)
        self.add(key, f"{message}; did you mean '{match[0]}'?" if match else message)
        return match

    def check_lengths(
        self, texts: dict[str, str], places: dict[str, _At], label: str, limit: int | None
    ) -> None:
        for locale, text in texts.items():
            if limit is not None and len(text) > limit:
                self.add(
                    places[locale],
                    f"{label} in '{locale}' is {len(text)} characters; at most {limit}",
                )

    # Questions

    def questions(self, node: _Node | None, shuffle: bool) -> tuple[Question, ...] | None:
        if node is None:
            return None
        items = self.items(node, "questions must be a list of questions")
        if items is None:
            return None
        if not items:
            self.add(node, "questions is empty; a deck needs at least one question")
            return None
        seen: dict[str, int] = {}
        built = [self.question(item, index, shuffle, seen) for index, item in enumerate(items)]
        questions = tuple(question for question in built if question is not None)
        return questions if len(questions) == len(built) else None

    def question(
        self, node: _Node, index: int, shuffle: bool, seen: dict[str, int]
    ) -> Question | None:
        if not isinstance(node, _Map):
            self.add(
                node, "a question must be a mapping with id, text, choices, answer and explanation"
            )
            return None
        before = len(self.problems)
        self.check_keys(node, QUESTION_KEYS, QUESTION_REQUIRED, "a question")
        question_id = self.question_id(node.get("id"), seen)
        text = self.optional_text(node.get("text"), "text")
        choices = self.choices(node.get("choices"))
        answer = self.answer(node.get("answer"), choices)
        explanation = self.optional_text(
            node.get("explanation"), "explanation", MAX_EXPLANATION_CHARS
        )
        tags = self.tags(node.get("tags"))
        own_shuffle = self.flag(node.get("shuffle"), "shuffle", default=shuffle)
        self.check_question_length(node.get("text"), text, choices)
        texts = [c.text for c in choices or ()]
        parts = (question_id, text, choices, answer, explanation, tags, *texts)
        if len(self.problems) > before or None in parts:
            return None  # reported here, or (e.g. bad locales) at the deck
        assert question_id is not None and text is not None and choices is not None
        assert answer is not None and explanation is not None and tags is not None
        return Question(
            id=question_id,
            text=text,
            choices=tuple(Choice(c.text or {}, c.why) for c in choices),
            answer=answer,
            explanation=explanation,
            tags=tags,
            shuffle=own_shuffle,
            position=index + 1,
        )

    def question_id(self, node: _Node | None, seen: dict[str, int]) -> str | None:
        """Ids are stable forever (answers are stored by them), so they must be unique and plain."""
        if node is None:
            return None
        if not isinstance(node, _Scalar) or _is_blank(node):
            self.add(node, "question id must be a word such as why-pipelines")
            return None
        question_id = self.identifier(node.text, node, "question id")
        if question_id is None:
            return None
        if question_id in seen:
            self.add(
                node, f"duplicate question id '{question_id}' (first on line {seen[question_id]})"
            )
            return None
        seen[question_id] = node.line
        if question_id.isdigit():
            self.add(
                node,
                f"question id '{question_id}' is only digits, which `post` would "
                f"read as a position; use a word such as why-pipelines",
            )
            return None
        return question_id

    def choices(self, node: _Node | None) -> list[_DraftChoice] | None:
        if node is None:
            return None
        items = self.items(
            node, f"choices must be a list of {MIN_CHOICES} to {MAX_CHOICES} choices"
        )
        if items is None:
            return None
        if not MIN_CHOICES <= len(items) <= MAX_CHOICES:
            self.add(
                node,
                f"a question needs {MIN_CHOICES} to {MAX_CHOICES} choices; "
                f"this one has {len(items)}",
            )
        drafts = [self.choice(item) for item in items]
        self.check_duplicate_choices(drafts)
        return drafts

    def choice(self, node: _Node) -> _DraftChoice:
        """A choice is a text, or {text, why}; a mapping with either key is the latter."""
        if not (isinstance(node, _Map) and node.entries.keys() & set(CHOICE_KEYS)):
            return _DraftChoice(node, self.text(node, "choice"))
        self.check_keys(node, CHOICE_KEYS, ("text",), "a choice")
        text = self.optional_text(node.get("text"), "choice")
        why_entry = node.entries.get("why")
        if why_entry is None:
            return _DraftChoice(node, text)
        why = self.text(why_entry[1], "why", MAX_WHY_CHARS)
        return _DraftChoice(node, text, why, why_entry[0])

    def check_duplicate_choices(self, drafts: list[_DraftChoice]) -> None:
        """Choices that read the same in any locale leave a clicker unable to tell them apart."""
        for index, draft in enumerate(drafts):
            for earlier in drafts[:index]:
                locale = _shared_locale(earlier.text, draft.text)
                if locale is not None:
                    self.add(
                        draft.at,
                        f"duplicate choice: the same as the choice on line "
                        f"{earlier.at.line} in '{locale}'",
                    )
                    break

    def answer(self, node: _Node | None, choices: list[_DraftChoice] | None) -> int | None:
        """The index of the right choice as written; its choice may not carry a `why`."""
        if node is None:
            return None
        if not (isinstance(node, _Scalar) and type(node.value) is int):
            self.add(
                node,
                "answer must be a whole number: the index of the right choice, counting from 0",
            )
            return None
        answer = node.value
        if choices and not 0 <= answer < len(choices):
            self.add(
                node,
                f"answer {answer} is out of range: the {len(choices)} choices are "
                f"numbered 0 to {len(choices) - 1}",
            )
            return None
        right = choices[answer] if choices else None
        if right is not None and right.why_key is not None:
            self.add(
                right.why_key, "the right choice has a why; a why says why a wrong choice is wrong"
            )
        return answer

    def tags(self, node: _Node | None) -> tuple[str, ...] | None:
        if node is None:
            return ()
        items = self.items(node, "tags must be a list, such as [pipeline, memory]")
        if items is None:
            return None
        tags: list[str] = []
        for item in items:
            if isinstance(item, _Scalar) and not _is_blank(item):
                tags.append(item.text.strip())
            else:
                self.add(item, "a tag must be a word, such as pipeline")
        return tuple(tags)

    def check_question_length(
        self, at: _Node | None, text: dict[str, str] | None, choices: list[_DraftChoice] | None
    ) -> None:
        """Text plus "A. choice" lines must fit one Slack section or Discord embed."""
        if at is None or text is None or not choices:
            return
        for locale, body in text.items():
            lines = [body]
            for letter, choice in zip(string.ascii_uppercase, choices, strict=False):
                lines.append(f"{letter}. {(choice.text or {}).get(locale, '')}")
            size = len("\n".join(lines))
            if size > MAX_QUESTION_CHARS:
                self.add(
                    at,
                    f"text and choices in '{locale}' are {size} characters, longer "
                    f"than a Slack section or a Discord embed can show "
                    f"(at most {MAX_QUESTION_CHARS})",
                )


def _shared_locale(a: dict[str, str] | None, b: dict[str, str] | None) -> str | None:
    """The first locale in which two choices read the same, ignoring case and spacing."""
    if a is None or b is None:
        return None
    return next((locale for locale in a if locale in b and _same_text(a[locale], b[locale])), None)
