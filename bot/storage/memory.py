"""`QuizStore` in memory: no database, for service tests and for trying the bot out.

Every method runs to its end without awaiting, so on its event loop each one is atomic, as
a transaction is: of two racing clicks, closes, run starts or slot claims, the second sees
the first's write and loses. The rules come from `bot.domain` (`scoring`, `totals`), as the
SQL store's do, and the contract suite in tests/storage holds both to the same answers.
Nothing outlives the process, and a write never waits, so a `deadline` never refuses one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from bot.domain.answer import points_for
from bot.domain.health import QuestionTally, Try, tallies
from bot.domain.records import (
    AnswerStatus,
    NewPost,
    Player,
    PostAnswer,
    PostAnswerOutcome,
    PostRecord,
    RunAnswerOutcome,
    RunAnswerRecord,
    RunRecord,
    ServerSettings,
    Standing,
    StandingsQuery,
    Totals,
)
from bot.domain.review import Source, Study, local_day
from bot.domain.scoring import kept
from bot.domain.totals import DailyPost, streak_of
from bot.service.ports import QuestionOpen, QuizStore
from bot.storage.memory_answers import Answers, StoredAnswer
from bot.storage.memory_games import MemoryGames
from bot.storage.memory_reviews import MemoryReviews
from bot.storage.memory_schedules import MemorySchedules
from bot.storage.memory_schedules import utc as _utc


class MemoryStore(MemorySchedules, MemoryReviews, MemoryGames, QuizStore):
    """Every aggregate in dicts, indexed the way the methods look them up."""

    def __init__(self) -> None:
        self._servers: dict[str, ServerSettings] = {}
        self._user_locales: dict[tuple[str, str], str | None] = {}
        self._default_decks: dict[str, str | None] = {}
        self._meta: dict[str, str] = {}
        self._seen: dict[str, datetime] = {}
        self._hidden: set[tuple[str, str]] = set()
        self._posts: dict[int, PostRecord] = {}
        self._answers = Answers()
        self._post_answers: defaultdict[int, dict[str, StoredAnswer]] = defaultdict(dict)
        """post id -> user id -> their answer: the first click stands."""
        self._held: defaultdict[int, dict[str, PostAnswer]] = defaultdict(dict)
        """post id -> user id -> their click on a game's open question, until its close."""
        self._runs: dict[int, RunRecord] = {}
        self._active_runs: dict[tuple[str, str, str], int] = {}
        self._run_answers: defaultdict[int, dict[str, StoredAnswer]] = defaultdict(dict)
        self._met: set[tuple[str, int, str, str, str]] = set()
        """(server, season, user, deck, question): the first meetings, which alone score."""
        MemorySchedules.__init__(self)
        MemoryReviews.__init__(self)
        MemoryGames.__init__(self)

    async def close(self) -> None:
        """Nothing to let go of."""

    # Servers

    async def server(self, server_id: str) -> ServerSettings:
        return self._settings(server_id)

    def _settings(self, server_id: str) -> ServerSettings:
        """A server never seen has the defaults, unstored."""
        return self._servers.get(server_id) or ServerSettings(server_id)

    async def set_server_locale(self, server_id: str, locale: str | None) -> None:
        self._servers[server_id] = replace(self._settings(server_id), locale=locale)

    async def set_server_timezone(self, server_id: str, timezone: str) -> None:
        self._servers[server_id] = replace(self._settings(server_id), timezone=timezone)

    async def server_default_deck(self, server_id: str) -> str | None:
        return self._default_decks.get(server_id)

    async def set_server_default_deck(self, server_id: str, deck_id: str | None) -> None:
        self._default_decks[server_id] = deck_id

    async def new_season(
        self, server_id: str, at: datetime, after: int, *, deadline: float | None = None
    ) -> int | None:
        _utc(at)  # refused if naive, as everywhere
        settings = self._settings(server_id)
        if settings.season != after:
            return None
        self._servers[server_id] = replace(settings, season=after + 1)
        return after + 1

    async def user_locale(self, server_id: str, user_id: str) -> str | None:
        return self._user_locales.get((server_id, user_id))

    async def set_user_locale(self, server_id: str, user_id: str, locale: str | None) -> None:
        self._user_locales[(server_id, user_id)] = locale

    async def set_hidden(self, server_id: str, user_id: str, hidden: bool) -> None:
        if hidden:
            self._hidden.add((server_id, user_id))
        else:
            self._hidden.discard((server_id, user_id))

    async def hidden_among(self, server_id: str, user_ids: Sequence[str]) -> set[str]:
        return {u for u in user_ids if (server_id, u) in self._hidden}

    async def forget_user(self, server_id: str, user_id: str) -> int:
        self._hidden.discard((server_id, user_id))
        self._user_locales.pop((server_id, user_id), None)
        self._met = {m for m in self._met if (m[0], m[2]) != (server_id, user_id)}
        for post_id, post in self._posts.items():
            if post.server_id == server_id:
                self._post_answers[post_id].pop(user_id, None)
                self._held[post_id].pop(user_id, None)
        for run_id in [
            r.id for r in self._runs.values() if (r.server_id, r.user_id) == (server_id, user_id)
        ]:
            run = self._runs.pop(run_id)
            self._run_answers.pop(run_id, None)
            self._active_runs.pop((run.server_id, run.user_id, run.deck_id), None)
        self.forget_reviews(server_id, user_id)
        self.forget_games(server_id, user_id)
        return self._answers.forget(server_id, user_id)

    async def first_seen(self, key: str, at: datetime, expires_at: datetime) -> bool:
        until = self._seen.get(key)
        if until is not None and until >= at:
            return False
        self._seen[key] = expires_at
        return True

    async def answer_log(self, server_id: str | None, deck_id: str | None) -> Sequence[Try]:
        return [
            Try(
                f"{server}/{a.user_id}",
                a.deck_id,
                a.question_id,
                a.choice,
                a.correct,
                a.answered_at,
            )
            for server, a in self._answers.every()
            if (server_id is None or server == server_id)
            and (deck_id is None or a.deck_id == deck_id)
        ]

    async def question_tallies(
        self, server_id: str | None, deck_id: str | None
    ) -> Sequence[QuestionTally]:
        return tallies(await self.answer_log(server_id, deck_id))

    async def get_meta(self, key: str) -> str | None:
        return self._meta.get(key)

    async def set_meta(self, key: str, value: str) -> None:
        self._meta[key] = value

    async def writable(self) -> None:
        return None  # memory always takes writes

    # Posts and answers

    async def create_post(self, post: NewPost) -> PostRecord:
        key = (post.deck_id, post.question_id)
        already = (await self.open_questions(post.server_id)).get(key)
        if already is not None:
            raise QuestionOpen(already)
        record = PostRecord(
            id=len(self._posts) + 1,
            server_id=post.server_id,
            channel_id=post.channel_id,
            deck_id=post.deck_id,
            question_id=post.question_id,
            order=tuple(post.order),
            locale=post.locale,
            poster_id=post.poster_id,
            season=post.season,
            opened_at=_utc(post.opened_at),
            schedule_id=post.schedule_id,
            game_id=post.game_id,
            closes_at=None if post.closes_at is None else _utc(post.closes_at),
        )
        self._posts[record.id] = record
        return record

    async def post(self, post_id: int) -> PostRecord | None:
        return self._posts.get(post_id)

    async def open_questions(self, server_id: str) -> dict[tuple[str, str], str]:
        return {
            (p.deck_id, p.question_id): p.channel_id
            for p in self._posts.values()
            if p.server_id == server_id and p.is_open
        }

    async def meet(
        self,
        server_id: str,
        season: int,
        user_id: str,
        deck_id: str,
        question_id: str,
        at: datetime,
    ) -> None:
        self._met.add((server_id, season, user_id, deck_id, question_id))

    async def open_post_in_channel(self, server_id: str, channel_id: str) -> PostRecord | None:
        found = [
            p
            for p in self._posts.values()
            if p.server_id == server_id and p.channel_id == channel_id and p.is_open
        ]
        return max(found, key=lambda p: (p.opened_at, p.id), default=None)

    async def set_post_message(self, post_id: int, message_ref: str) -> None:
        if post_id in self._posts:
            self._posts[post_id] = replace(self._posts[post_id], message_ref=message_ref)

    async def close_post(self, post_id: int, at: datetime) -> bool:
        post = self._posts.get(post_id)
        if post is None or not post.is_open:
            return False
        self._settle(post)
        self._posts[post_id] = replace(post, closed_at=_utc(at))
        return True

    async def discard_post(self, post_id: int, at: datetime) -> None:
        post = self._posts.get(post_id)
        if post is not None:
            if post.is_open:
                self._settle(post)
            closed_at = post.closed_at or _utc(at)
            self._posts[post_id] = replace(post, closed_at=closed_at, schedule_id=None)

    def _settle(self, post: PostRecord) -> None:
        """A game question's held clicks, written as the clicks they are (`_answer`), in
        the order they came: `bot.storage.held_answers` in SQL."""
        held = self._held.pop(post.id, {})
        for answer in sorted(held.values(), key=lambda a: (a.at, a.user_id)):
            self._answer(post, answer)

    async def answer_post(
        self, answer: PostAnswer, *, deadline: float | None = None
    ) -> PostAnswerOutcome:
        """The stored post decides (not the caller's copy): it may have closed since."""
        server_id, user_id = answer.post.server_id, answer.user_id
        post = self._posts.get(answer.post.id)
        if post is None:
            nobody = self._player(server_id, user_id)
            return PostAnswerOutcome(AnswerStatus.CLOSED, None, nobody, None)
        earlier = self._post_answers[post.id].get(user_id)
        held = self._held.get(post.id, {}).get(user_id)
        if not post.is_open or earlier is not None or held is not None:
            status = AnswerStatus.CLOSED if not post.is_open else AnswerStatus.DUPLICATE
            choice = earlier.choice if earlier is not None else None
            if held is not None:
                choice = held.choice
            return PostAnswerOutcome(status, choice, self._player(server_id, user_id), post)
        if post.game_id is not None:  # held until its reveal, scored at its close
            self._held[post.id][user_id] = replace(answer, at=_utc(answer.at))
            player = self._player(server_id, user_id)
            return PostAnswerOutcome(AnswerStatus.NEW, answer.choice, player, post)
        points = self._answer(post, answer)
        player = self._player(server_id, user_id)
        return PostAnswerOutcome(AnswerStatus.NEW, answer.choice, player, post, points)

    def _answer(self, post: PostRecord, answer: PostAnswer) -> int:
        """Stores a first click on an open post (`_kept`); the points."""
        stored = self._kept(
            post.server_id,
            post.season,
            answer.user_id,
            post.deck_id,
            post.question_id,
            answer.choice,
            answer.correct,
            answer.points,
            answer.at,
        )
        self._post_answers[post.id][answer.user_id] = stored
        return stored.points

    def _kept(
        self,
        server_id: str,
        season: int,
        user_id: str,
        deck_id: str,
        question_id: str,
        choice: int,
        correct: bool,
        offered: int,
        at: datetime,
    ) -> StoredAnswer:
        """Stores an answer to a post or in a run by `bot.domain.scoring.kept`: its points
        (only at the person's first meeting with the question), its answer and its card."""
        meeting = (server_id, season, user_id, deck_id, question_id)
        first = meeting not in self._met
        self._met.add(meeting)
        zone = self._settings(server_id).timezone
        study = Study(user_id, deck_id, question_id, correct, _utc(at), Source.PLAY)
        was = self.card(server_id, study)
        now = kept(study, offered, first, was, local_day(study.at, zone))
        new = StoredAnswer(user_id, deck_id, question_id, choice, correct, now.points, study.at)
        stored = self._answers.add(server_id, season, new, zone)
        self.put_card(server_id, study, was, now.card)
        return stored

    async def post_answer_of(self, post_id: int, user_id: str) -> int | None:
        answer = self._post_answers.get(post_id, {}).get(user_id)
        if answer is None:
            held = self._held.get(post_id, {}).get(user_id)
            return None if held is None else held.choice
        return answer.choice

    async def tally(self, post_id: int) -> dict[int, int]:
        return dict(Counter(a.choice for a in self._post_answers.get(post_id, {}).values()))

    async def answer_count(self, post_id: int) -> int:
        return len(self._post_answers.get(post_id, {})) + len(self._held.get(post_id, {}))

    # Runs

    async def active_run(self, server_id: str, user_id: str, deck_id: str) -> RunRecord | None:
        run_id = self._active_runs.get((server_id, user_id, deck_id))
        return None if run_id is None else self._runs[run_id]

    async def start_run(
        self, server_id: str, user_id: str, deck_id: str, season: int, at: datetime
    ) -> RunRecord:
        active = self._active_runs.get((server_id, user_id, deck_id))
        if active is not None:
            return self._runs[active]
        run = RunRecord(len(self._runs) + 1, server_id, user_id, deck_id, season, _utc(at))
        self._runs[run.id] = run
        self._active_runs[(server_id, user_id, deck_id)] = run.id
        return run

    async def run(self, run_id: int) -> RunRecord | None:
        return self._runs.get(run_id)

    async def run_answers(self, run_id: int) -> Sequence[RunAnswerRecord]:
        answers = self._run_answers.get(run_id, {}).values()
        return [a.record() for a in sorted(answers, key=lambda a: a.answered_at)]

    async def record_run_answer(
        self,
        run: RunRecord,
        question_id: str,
        choice: int,
        correct: bool,
        at: datetime,
        *,
        deadline: float | None = None,
    ) -> RunAnswerOutcome:
        earlier = self._run_answers[run.id].get(question_id)
        if earlier is not None:
            return RunAnswerOutcome(AnswerStatus.DUPLICATE, earlier.record())
        stored = self._kept(
            run.server_id,
            run.season,
            run.user_id,
            run.deck_id,
            question_id,
            choice,
            correct,
            points_for(correct),
            at,
        )
        self._run_answers[run.id][question_id] = stored
        return RunAnswerOutcome(AnswerStatus.NEW, stored.record())

    async def finish_run(self, run_id: int, at: datetime) -> None:
        run = self._runs.get(run_id)
        if run is not None and run.finished_at is None:
            self._runs[run_id] = replace(run, finished_at=_utc(at))
            self._active_runs.pop((run.server_id, run.user_id, run.deck_id), None)

    # Standings

    async def standings(self, query: StandingsQuery, limit: int) -> Sequence[Standing]:
        return self._answers.ranked(query)[:limit]

    async def standing_of(self, query: StandingsQuery, user_id: str) -> Standing | None:
        return next((s for s in self._answers.ranked(query) if s.user_id == user_id), None)

    async def totals(self, server_id: str, season: int, user_id: str) -> Totals:
        return self._answers.totals(server_id, season, user_id)

    async def streak(self, server_id: str, user_id: str) -> int:
        return self._streak(server_id, user_id)

    async def player(self, server_id: str, user_id: str) -> Player:
        return self._player(server_id, user_id)

    def _streak(self, server_id: str, user_id: str) -> int:
        scheduled = [
            p
            for p in self._posts.values()
            if p.server_id == server_id and p.schedule_id is not None
        ]
        scheduled.sort(key=lambda p: (p.opened_at, p.id), reverse=True)
        return streak_of(
            DailyPost(p.is_open, user_id in self._post_answers.get(p.id, {})) for p in scheduled
        )

    def _player(self, server_id: str, user_id: str) -> Player:
        """One coroutine's reads with no await between them: one state, as a snapshot is."""
        settings = self._settings(server_id)
        return Player(
            settings,
            self._user_locales.get((server_id, user_id)),
            self._answers.totals(server_id, settings.season, user_id),
            self._streak(server_id, user_id),
        )
