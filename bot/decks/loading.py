"""Loading deck files: YAML in, validated `Deck`s out, or every problem at its line and column.

All of a file's problems are reported at once and bad input never raises, since authors fix
decks from `quizbot validate` output; ids must be unique across files, as answers use them.
A question file of another tool (a Red trivia list dropped into `questions/`) is named in one
line with the `quizbot import` command that converts it, instead of a problem per key.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.decks.checker import DeckChecker
from bot.decks.foreign import SNIFF_CHARS, identify
from bot.decks.model import Deck
from bot.decks.places import DeckPlaces
from bot.decks.problem import Problem, Refused
from bot.decks.reading import compose_text, read_text
from bot.decks.tree import TreeBuilder


@dataclass
class DeckReport:
    """What `load_decks` found: the valid decks, every problem, and how many files it read."""

    decks: list[Deck] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    places: dict[str, DeckPlaces] = field(default_factory=dict)
    """Where each deck's parts sit in its file, by deck id: what the lint points at."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def left_out(self) -> str:
        """What a start says of decks with problems: each problem, and that the rest load."""
        files = len({p.path for p in self.problems})
        lines = [str(p) for p in self.problems]
        lines.append(
            f"{_plural(files, 'deck file')} with problems left out; "
            f"{_plural(len(self.decks), 'deck')} loaded (quizbot validate checks them)"
        )
        return "\n".join(lines)

    def summary(self, warnings: int = 0) -> str:
        """One line for `quizbot validate`, e.g. "3 decks, 42 questions in 3 files: all valid"
        (", 2 warnings" after it when the lint found some)."""
        questions = sum(len(deck) for deck in self.decks)
        counts = (
            f"{_plural(len(self.decks), 'deck')}, {_plural(questions, 'question')}"
            f" in {_plural(self.files, 'file')}"
        )
        verdict = "all valid" if self.ok else _plural(len(self.problems), "problem")
        noted = f", {_plural(warnings, 'warning')}" if warnings else ""
        return f"{counts}: {verdict}{noted}"


def load_decks(paths: Sequence[Path], shipped: Path | None = None) -> DeckReport:
    """Every deck in `paths` (files, or folders of *.yaml / *.yml), with all their problems;
    then the `shipped` folder's decks (those that come with quizbot).

    A deck with a problem is left out and the others load. Deck ids must be unique across
    the files, since posts and answers are stored by deck id; but a shipped deck whose id a
    deck of `paths` already has is left out silently: the team's own copy replaces it (the
    repository's `questions/` mounted or copied next to an installed package).
    """
    report = DeckReport()
    owners: dict[str, str] = {}
    seen: set[Path] = set()
    for path in _deck_files(paths, report.problems, seen):
        report.files += 1
        _add(report, _load(path), str(path), owners)
    if shipped is not None:
        for path in _deck_files([shipped], [], seen):
            loaded = _load(path)
            if loaded.deck_id is not None and loaded.deck_id in owners:
                continue
            report.files += 1
            _add(report, loaded, str(path), owners)
    return report


def _add(report: DeckReport, loaded: _Loaded, path: str, owners: dict[str, str]) -> None:
    duplicate = _duplicate_id(loaded, path, owners)
    if duplicate is not None:
        report.problems.extend(_sorted([*loaded.problems, duplicate]))
        return
    report.problems.extend(loaded.problems)
    if loaded.deck is not None:
        report.decks.append(loaded.deck)
        if loaded.places is not None:
            report.places[loaded.deck.id] = loaded.places


@dataclass
class _Loaded:
    deck: Deck | None
    problems: list[Problem]
    deck_id: str | None = None
    id_at: tuple[int, int] = (1, 1)
    places: DeckPlaces | None = None


_KEPT_FILES = 512
"""How many files' readings `_load` keeps: each is the newest reading of one path, so this
holds at most one copy of a deck beside the library's (imports' temporary files age out)."""


class _Readings:
    """The last reading of each deck file, by path and a digest of its text.

    Parsing and checking a deck costs about 50 ms; a reload, a `quizbot validate` of a folder
    and every test that builds the bot read the same unchanged files again. A file's reading
    depends only on its path and text, so an unchanged text reuses it (its `Deck` and places
    are frozen); a changed one is read again, whatever its timestamps say.
    """

    def __init__(self, most: int) -> None:
        self._most = most
        self._kept: OrderedDict[str, tuple[bytes, _Loaded]] = OrderedDict()
        self._lock = threading.Lock()  # reloads run in worker threads

    def get(self, path: Path, digest: bytes) -> _Loaded | None:
        with self._lock:
            kept = self._kept.get(str(path))
            if kept is None or kept[0] != digest:
                return None
            self._kept.move_to_end(str(path))
            return kept[1]

    def keep(self, path: Path, digest: bytes, loaded: _Loaded) -> None:
        with self._lock:
            self._kept[str(path)] = (digest, loaded)
            self._kept.move_to_end(str(path))
            while len(self._kept) > self._most:
                self._kept.popitem(last=False)


_READINGS = _Readings(_KEPT_FILES)


def _load(path: Path) -> _Loaded:
    try:
        text = read_text(path)
    except Refused as refused:
        return _Loaded(None, [_foreign(path) or refused.problem(str(path))])
    digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
    loaded = _READINGS.get(path, digest)
    if loaded is None:
        loaded = _read(path, text)
        _READINGS.keep(path, digest, loaded)
    return loaded


def _read(path: Path, text: str) -> _Loaded:
    checker = DeckChecker(str(path), path.stem)
    try:
        node = compose_text(text)
        root = TreeBuilder(checker.add).build(node) if node is not None else None
    except Refused as refused:
        return _Loaded(None, [_foreign(path) or refused.problem(str(path))])
    if root is None:
        checker.empty()
        return _Loaded(None, checker.problems)
    deck = checker.deck(root)
    if checker.problems:
        foreign = _foreign(path)
        if foreign is not None:
            return _Loaded(None, [foreign])
    return _Loaded(deck, _sorted(checker.problems), checker.deck_id, checker.id_at, checker.places)


def _foreign(path: Path) -> Problem | None:
    """One problem naming the format of a file that is another tool's questions, if it is."""
    try:
        with path.open("rb") as file:
            head = file.read(SNIFF_CHARS * 4)
    except OSError:
        return None
    found = identify(head.decode("utf-8", errors="ignore"), path.suffix)
    if found is None:
        return None
    if path.suffix.lower() in (".yaml", ".yml"):
        todo = (
            f"move it out of {path.parent} and convert it: "
            f"quizbot import {path.name} --format {found.name}"
        )
    else:
        todo = f"convert it: quizbot import {path} --format {found.name}"
    return Problem(str(path), 1, 1, f"this is {found.title}, not a deck; {todo}")


def _duplicate_id(loaded: _Loaded, path: str, owners: dict[str, str]) -> Problem | None:
    """A problem at this file's id if an earlier file has the same deck id."""
    if loaded.deck_id is None:
        return None
    first = owners.setdefault(loaded.deck_id, path)
    if first == path:
        return None
    line, column = loaded.id_at
    return Problem(path, line, column, f"deck id '{loaded.deck_id}' is already used by {first}")


def _deck_files(paths: Sequence[Path], problems: list[Problem], seen: set[Path]) -> Iterator[Path]:
    """Files to load, once each; a folder gives its *.yaml and *.yml files, sorted, not nested."""
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


def _sorted(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.line, p.column))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
