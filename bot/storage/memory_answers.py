"""The in-memory store's answers, to posts and in runs, and what totals and leaderboards
read of them: `answers` and `standings` of the SQL store in one list per server season."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime

from bot.domain.records import RunAnswerRecord, Standing, StandingsQuery, Totals
from bot.domain.scoring import boards, ranked
from bot.domain.totals import totals_of


@dataclass(frozen=True)
class StoredAnswer:
    user_id: str
    deck_id: str
    question_id: str
    choice: int
    correct: bool
    points: int
    answered_at: datetime
    boards: frozenset[tuple[str, str | None]] = field(default_factory=frozenset)
    """The (period, deck or None) leaderboards it adds to, fixed when stored."""

    def record(self) -> RunAnswerRecord:
        return RunAnswerRecord(
            self.question_id, self.choice, self.correct, self.points, self.answered_at
        )


class Answers:
    """Every answer, by (server, season): the season it counts in is fixed when stored."""

    def __init__(self) -> None:
        self._kept: defaultdict[tuple[str, int], list[StoredAnswer]] = defaultdict(list)

    def add(self, server_id: str, season: int, answer: StoredAnswer, zone: str) -> StoredAnswer:
        """Keeps `answer`; a scoring one with the leaderboards it adds to in `zone`, the
        server's zone now (a later zone change moves no answer)."""
        if answer.points > 0:
            counted = boards(answer.answered_at, zone, answer.deck_id)
            answer = replace(answer, boards=frozenset(counted))
        self._kept[(server_id, season)].append(answer)
        return answer

    def every(self) -> Iterator[tuple[str, StoredAnswer]]:
        """(server, answer) for every answer kept."""
        for (server, _), kept in self._kept.items():
            for answer in kept:
                yield server, answer

    def forget(self, server_id: str, user_id: str) -> int:
        """Drops the user's answers in the server, every season; how many there were."""
        gone = 0
        for (server, _), kept in self._kept.items():
            if server == server_id:
                before = len(kept)
                kept[:] = [a for a in kept if a.user_id != user_id]
                gone += before - len(kept)
        return gone

    def totals(self, server_id: str, season: int, user_id: str) -> Totals:
        mine = (a for a in self._kept.get((server_id, season), ()) if a.user_id == user_id)
        return totals_of((a.correct, a.points) for a in mine)

    def ranked(self, query: StandingsQuery) -> list[Standing]:
        """The whole leaderboard of `query`, in order."""
        per_user: dict[str, tuple[int, datetime]] = {}
        for a in self._scoring(query):
            points, reached = per_user.get(a.user_id, (0, a.answered_at))
            per_user[a.user_id] = (points + a.points, max(reached, a.answered_at))
        return ranked((user, points, at) for user, (points, at) in per_user.items())

    def _scoring(self, query: StandingsQuery) -> Iterator[StoredAnswer]:
        """The scoring answers a leaderboard counts: by the period keys they were stored
        with, or, with no key, by when they were given."""
        for a in self._kept.get((query.server_id, query.season), ()):
            if a.points <= 0:
                continue
            if query.period is not None:
                if (query.period, query.deck_id) in a.boards:
                    yield a
            elif (
                (query.deck_id is None or a.deck_id == query.deck_id)
                and (query.since is None or a.answered_at >= query.since)
                and (query.until is None or a.answered_at < query.until)
            ):
                yield a
