"""What is wrong with a deck file, as its author sees it: a message at a line and column.

Its own module because reading, the tree builder and the checker all report problems, and
loading collects them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a deck file, at a 1-based line and column, as editors count."""

    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


class Refused(Exception):
    """The file is refused as a whole: a problem after which nothing else can be checked."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message

    def problem(self, path: str) -> Problem:
        return Problem(path, self.line, self.column, self.message)


@dataclass(frozen=True)
class LintWarning:
    """Something in a deck that loads but teaches less than it could, at a line and column.

    `name` is the warning's stable kebab-case name, printed last, which `lint: {ignore: [...]}`
    on a question silences.
    """

    path: str
    line: int
    column: int
    name: str
    message: str
    question: str | None = None
    """The id of the question it points into; None for the deck as a whole."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: warning: {self.message} [{self.name}]"
