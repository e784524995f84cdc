"""The command line's use-cases on the database: `quizbot report`, `quizbot forget` and
`quizbot export --server`.

Built by the composition root (`bot.bootstrap.operations`) with a way to open the store,
so the CLI never opens one itself. The store is opened on the first call that needs it:
an export reads what is there without migrating (a database never created stays so).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol

from bot.decks.model import Deck
from bot.domain.health import QuestionHealth, health
from bot.domain.problems import ProblemReport
from bot.service.ports import Problems, Servers, Standings


class OperationsStore(Servers, Standings, Problems, Protocol):
    """What the use-cases read and delete."""


Export = Callable[[str, Path], Awaitable[dict[Path, int]]]
"""Writes a server's CSV files into a folder; the rows written per file (none: nothing
stored). The storage's streaming export, passed in by the composition root."""


class Operations:
    def __init__(self, store: Callable[[], Awaitable[OperationsStore]], export: Export) -> None:
        self._open = store
        self._store: OperationsStore | None = None
        self._export = export

    async def _ports(self) -> OperationsStore:
        if self._store is None:
            self._store = await self._open()
        return self._store

    async def saved_locale(self, server_id: str, user_id: str) -> str | None:
        """The language a person chose (`quizbot play --locale` keeps the reader's)."""
        return await (await self._ports()).user_locale(server_id, user_id)

    async def question_health(
        self, decks: Sequence[Deck], server_id: str | None, deck_id: str | None
    ) -> tuple[list[QuestionHealth], list[ProblemReport]]:
        """The health rows of `decks`' questions from every answer (of one server and one
        deck, or all), and the problem reports about them, oldest first."""
        store = await self._ports()
        answers = list(await store.answer_log(server_id, deck_id))
        reports = list(await store.problem_reports(server_id, deck_id))
        questions = {(d.id, q.id): (len(q.choices), q.answer) for d in decks for q in d.questions}
        rows = health(answers, questions, [(r.deck_id, r.question_id) for r in reports])
        return rows, reports

    async def forget(self, server_id: str, user_id: str) -> int:
        """`quizbot forget`: everything kept about the person in the server deleted
        (`Servers.forget_user`); the number of answers deleted."""
        return await (await self._ports()).forget_user(server_id, user_id)

    async def export(self, server_id: str, out: Path) -> dict[Path, int]:
        """`quizbot export --server`: the server's CSV files in `out`; {} when it has
        nothing stored (no files written)."""
        return await self._export(server_id, out)
