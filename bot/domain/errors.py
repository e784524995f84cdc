"""Errors a user can cause and should be told about, in their language.

Each carries a catalog key and its parameters; adapters render it with `bot.presentation.locales`.
Anything else that goes wrong is a bug: adapters log it and show a generic apology.
"""

from __future__ import annotations


class QuizError(Exception):
    """A refusal with a message key (`error.<key>` in the catalogs)."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    def __repr__(self) -> str:
        return f"QuizError({self.key!r}, {self.params!r})"
