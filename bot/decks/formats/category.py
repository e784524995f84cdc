"""Moodle question categories: the first level names the deck, deeper levels become tags.

A Moodle export puts its questions under a path such as "$course$/top/Biology/Cells". The first
real level is the question bank the author exported (the deck's title); the levels under it sort
questions the way tags do. Exports from quizbot write "$course$/<deck title>", so the title
survives a round trip and adds no tag.
"""

from __future__ import annotations

import re

from bot.decks.format import MAX_TITLE_CHARS
from bot.decks.formats.slug import slugify

_CONTEXTS = frozenset({"$course$", "$cat$", "$system$", "$module$", "$coursecategory$", "top"})
_SEPARATOR = re.compile(r"(?<!/)/(?!/)")


def category_levels(path: str) -> list[str]:
    """The levels of a category path, without Moodle's context markers; '//' is a '/' in a name."""
    levels = [level.replace("//", "/").strip() for level in _SEPARATOR.split(path.strip())]
    return [level for level in levels if level and level.lower() not in _CONTEXTS]


def category_path(title: str) -> str:
    """The category an export files a deck's questions under."""
    return "$course$/" + title.replace("/", "//")


class Categories:
    """Follows the category a file is in, question by question."""

    def __init__(self) -> None:
        self.title = ""
        self.tags: list[str] = []

    def enter(self, path: str) -> None:
        """A category switch: later questions get its deeper levels as tags."""
        levels = category_levels(path)
        if levels and not self.title:
            self.title = levels[0][:MAX_TITLE_CHARS].strip()
        self.tags = [tag for tag in (slugify(level) for level in levels[1:]) if tag]
