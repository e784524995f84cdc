"""`QuizStore` on SQLite and PostgreSQL, with SQLAlchemy 2 Core.

Each method is one transaction. The decisions that must hold under concurrent callers
(first click stands, first meeting scores, one closer wins, one active run) are each made by
a statement only one caller can win: an INSERT ... ON CONFLICT DO NOTHING against a unique
key, or an UPDATE ... WHERE still-open; never a plain read followed by a write.

Each runs as one function of a sync connection (`bot.storage.transactions`); the engines
are set up in `bot.storage.engine`, and what a click's reply reads in `bot.storage.player`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Executable,
    FromClause,
    Subquery,
    Table,
    func,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.domain.records import (
    AnswerStatus,
    EnabledSchedule,
    NewPost,
    NewSchedule,
    Player,
    PostAnswer,
    PostAnswerOutcome,
    PostRecord,
    RunAnswerOutcome,
    RunAnswerRecord,
    RunRecord,
    ServerSettings,
    SlotRecord,
    SlotStatus,
    Standing,
    StandingsQuery,
    Totals,
)
from bot.domain.schedule import Schedule
from bot.storage.engine import migrate, store_engine, translate_errors, tune_sqlite
from bot.storage.player import (
    POST_CHOICE,
    SERVER,
    USER_LOCALE,
    AnyRow,
    read_player,
    read_streak,
    read_totals,
    server_settings,
)
from bot.storage.post_answers import PostAnswerWrite
from bot.storage.records import (
    local_date,
    post_record,
    run_answer_record,
    run_record,
    schedule_record,
    slot_record,
    standing_record,
)
from bot.storage.scores import Scored, add_points
from bot.storage.tables import (
    ALL_DECKS,
    RUN_ACTIVE_KEY,
    RUN_ACTIVE_WHERE,
    SCORING,
    answers,
    first_meetings,
    meta,
    posts,
    runs,
    schedule_slots,
    schedules,
    score_counts,
    servers,
    standings,
    user_settings,
)
from bot.storage.transactions import Transactions, sqlite_twin

Insert = sqlite.Insert | postgresql.Insert


async def open_store(url: str, *, schema: str | None = None) -> SqlStore:
    """A store on `url` with its schema migrated to head. `schema`: see `store_engine`."""
    engine = store_engine(url, schema=schema, autocommit=True)
    try:
        await migrate(engine)
    except BaseException:
        await engine.dispose()
        raise
    return SqlStore(engine)


class SqlStore:
    """The quiz's state in SQL. Build it with `open_store`; `close` when done.

    Each method builds its statements here and runs them as one function of a sync
    connection (see `bot.storage.transactions`): one transaction, one hop.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        name = engine.dialect.name
        if name not in ("sqlite", "postgresql"):
            raise ValueError(f"unsupported database {name!r}")
        twin = None
        if name == "sqlite":
            twin = sqlite_twin(engine)
            tune_sqlite(twin)
            translate_errors(twin)
        self._tx = Transactions(engine, twin)
        self._insert: Callable[[Table], Insert] = (
            sqlite.insert if name == "sqlite" else postgresql.insert
        )
        self._new_post_answer = (
            self._insert(answers)
            .on_conflict_do_nothing(index_elements=[answers.c.post_id, answers.c.user_id])
            .returning(answers.c.id)
        )

    async def close(self) -> None:
        await self._tx.close()

    async def _one(
        self, stmt: Executable, *, write: bool = False, deadline: float | None = None
    ) -> AnyRow | None:
        """The first row of one statement."""

        def run(conn: Connection) -> AnyRow | None:
            return conn.execute(stmt).first()

        return await (self._tx.write(run, deadline=deadline) if write else self._tx.read(run))

    async def _all(self, stmt: Executable) -> Sequence[AnyRow]:
        def run(conn: Connection) -> Sequence[AnyRow]:
            return conn.execute(stmt).all()

        return await self._tx.read(run)

    async def _scalar(self, stmt: Executable) -> Any:
        def run(conn: Connection) -> Any:
            return conn.scalar(stmt)

        return await self._tx.read(run)

    async def _exec(self, stmt: Executable) -> None:
        """One write statement, its result unread."""

        def run(conn: Connection) -> None:
            conn.execute(stmt)

        await self._tx.write(run)

    # Servers and users

    async def server(self, server_id: str) -> ServerSettings:
        return server_settings(server_id, await self._one(SERVER.params(server_id=server_id)))

    async def set_server_locale(self, server_id: str, locale: str | None) -> None:
        await self._upsert(servers, {"server_id": server_id}, {"locale": locale})

    async def set_server_timezone(self, server_id: str, timezone: str) -> None:
        await self._upsert(servers, {"server_id": server_id}, {"timezone": timezone})

    async def new_season(
        self, server_id: str, at: datetime, after: int, *, deadline: float | None = None
    ) -> int | None:
        # A compare-and-set: the row moves from `after` to `after + 1` at most once. A server
        # never stored is in season 1, so only after=1 may create its row.
        stmt = self._insert(servers).values(
            server_id=server_id, season=after + 1, season_started_at=at
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=[servers.c.server_id],
            set_={"season": after + 1, "season_started_at": stmt.excluded.season_started_at},
            where=servers.c.season == after,
        )
        if after != 1:
            stmt = (
                update(servers)  # type: ignore[assignment]
                .where(servers.c.server_id == server_id, servers.c.season == after)
                .values(season=after + 1, season_started_at=at)
            )
        row = await self._one(stmt.returning(servers.c.season), write=True, deadline=deadline)
        return None if row is None else int(row.season)

    async def user_locale(self, server_id: str, user_id: str) -> str | None:
        locale: str | None = await self._scalar(
            USER_LOCALE.params(server_id=server_id, user_id=user_id)
        )
        return locale

    async def set_user_locale(self, server_id: str, user_id: str, locale: str | None) -> None:
        await self._upsert(
            user_settings, {"server_id": server_id, "user_id": user_id}, {"locale": locale}
        )

    async def player(self, server_id: str, user_id: str) -> Player:
        def read(conn: Connection) -> Player:
            return read_player(conn, server_id, user_id)

        return await self._tx.read(read, snapshot=True)

    # Posts

    async def create_post(self, post: NewPost) -> PostRecord:
        stmt = (
            posts.insert()
            .values(
                server_id=post.server_id,
                channel_id=post.channel_id,
                deck_id=post.deck_id,
                question_id=post.question_id,
                choice_order=",".join(str(i) for i in post.order),
                locale=post.locale,
                poster_id=post.poster_id,
                season=post.season,
                schedule_id=post.schedule_id,
                opened_at=post.opened_at,
            )
            .returning(*posts.c)
        )
        row = await self._one(stmt, write=True)
        assert row is not None
        return post_record(row)

    async def post(self, post_id: int) -> PostRecord | None:
        row = await self._one(select(posts).where(posts.c.id == post_id))
        return None if row is None else post_record(row)

    async def open_post_in_channel(self, server_id: str, channel_id: str) -> PostRecord | None:
        stmt = (
            select(posts)
            .where(
                posts.c.server_id == server_id,
                posts.c.channel_id == channel_id,
                posts.c.closed_at.is_(None),
            )
            .order_by(posts.c.opened_at.desc(), posts.c.id.desc())
            .limit(1)
        )
        row = await self._one(stmt)
        return None if row is None else post_record(row)

    async def set_post_message(self, post_id: int, message_ref: str) -> None:
        await self._exec(update(posts).where(posts.c.id == post_id).values(message_ref=message_ref))

    async def close_post(self, post_id: int, at: datetime) -> bool:
        stmt = (
            update(posts)
            .where(posts.c.id == post_id, posts.c.closed_at.is_(None))
            .values(closed_at=at)
            .returning(posts.c.id)
        )
        return await self._one(stmt, write=True) is not None

    async def answer_post(
        self, answer: PostAnswer, *, deadline: float | None = None
    ) -> PostAnswerOutcome:
        """The first answer wins the (post, user) unique key; CLOSED carries the user's
        earlier choice, if any (see `bot.storage.post_answers`)."""
        person = (answer.post.server_id, answer.user_id)
        return await self._tx.write(PostAnswerWrite(answer), deadline=deadline, key=person)

    async def post_answer_of(self, post_id: int, user_id: str) -> int | None:
        def read(conn: Connection) -> int | None:
            return _post_choice(conn, post_id, user_id)

        return await self._tx.read(read)

    async def tally(self, post_id: int) -> dict[int, int]:
        """Only choices someone picked appear; a reveal reads the others as 0."""
        counts = await self._all(
            select(answers.c.choice, func.count())
            .where(answers.c.post_id == post_id)
            .group_by(answers.c.choice)
        )
        return {choice: count for choice, count in counts}

    async def answer_count(self, post_id: int) -> int:
        count: int = await self._scalar(
            select(func.count()).select_from(answers).where(answers.c.post_id == post_id)
        )
        return count

    # Runs

    async def active_run(self, server_id: str, user_id: str, deck_id: str) -> RunRecord | None:
        def read(conn: Connection) -> RunRecord | None:
            return _active_run(conn, server_id, user_id, deck_id)

        return await self._tx.read(read)

    async def start_run(
        self, server_id: str, user_id: str, deck_id: str, season: int, at: datetime
    ) -> RunRecord:
        """Inserts against the partial unique key on unfinished runs; the loser reads the
        winner's run. On PostgreSQL each statement sees newly committed rows, so if that run
        was finished in between, the insert is simply tried again."""
        stmt = (
            self._insert(runs)
            .values(
                server_id=server_id, user_id=user_id, deck_id=deck_id, season=season, started_at=at
            )
            .on_conflict_do_nothing(index_elements=RUN_ACTIVE_KEY, index_where=RUN_ACTIVE_WHERE)
            .returning(*runs.c)
        )

        def write(conn: Connection) -> RunRecord:
            for _ in range(3):
                row = conn.execute(stmt).first()
                if row is not None:
                    return run_record(row)
                active = _active_run(conn, server_id, user_id, deck_id)
                if active is not None:
                    return active
            raise RuntimeError(f"could not start a run for {server_id}/{user_id}/{deck_id}")

        return await self._tx.write(write)

    async def run(self, run_id: int) -> RunRecord | None:
        row = await self._one(select(runs).where(runs.c.id == run_id))
        return None if row is None else run_record(row)

    async def run_answers(self, run_id: int) -> Sequence[RunAnswerRecord]:
        rows = await self._all(
            _RUN_ANSWER.where(answers.c.run_id == run_id).order_by(
                answers.c.answered_at, answers.c.id
            )
        )
        return [run_answer_record(row) for row in rows]

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
        """Claims the user's first meeting with the question (server, season, deck), right or
        wrong, then stores the answer; it scores only if correct and the claim was won."""
        meeting = (
            self._insert(first_meetings)
            .values(
                server_id=run.server_id,
                season=run.season,
                user_id=run.user_id,
                deck_id=run.deck_id,
                question_id=question_id,
                met_at=at,
            )
            .on_conflict_do_nothing()
            .returning(first_meetings.c.met_at)
        )

        def write(conn: Connection) -> RunAnswerOutcome:
            first = conn.execute(meeting).first() is not None
            points = 1 if correct and first else 0
            stored = conn.execute(
                self._insert(answers)
                .values(
                    server_id=run.server_id,
                    season=run.season,
                    user_id=run.user_id,
                    deck_id=run.deck_id,
                    question_id=question_id,
                    run_id=run.id,
                    choice=choice,
                    correct=correct,
                    points=points,
                    answered_at=at,
                )
                .on_conflict_do_nothing(index_elements=[answers.c.run_id, answers.c.question_id])
                .returning(answers.c.id)
            ).first()
            if stored is not None:
                if points > 0:
                    zone = conn.scalar(
                        select(servers.c.timezone).where(servers.c.server_id == run.server_id)
                    )
                    scored = Scored(run.server_id, run.season, run.deck_id, run.user_id, points, at)
                    add_points(conn, scored, zone or "UTC")
                return RunAnswerOutcome(
                    AnswerStatus.NEW, RunAnswerRecord(question_id, choice, correct, points, at)
                )
            # A repeat in this run: its first answer already claimed the meeting, so the
            # claim above changed nothing.
            row = conn.execute(
                _RUN_ANSWER.where(answers.c.run_id == run.id, answers.c.question_id == question_id)
            ).one()
            return RunAnswerOutcome(AnswerStatus.DUPLICATE, run_answer_record(row))

        person = (run.server_id, run.user_id)
        return await self._tx.write(write, deadline=deadline, key=person)

    async def finish_run(self, run_id: int, at: datetime) -> None:
        await self._exec(
            update(runs)
            .where(runs.c.id == run_id, runs.c.finished_at.is_(None))
            .values(finished_at=at)
        )

    # Leaderboard and stats

    async def standings(self, query: StandingsQuery, limit: int) -> Sequence[Standing]:
        if query.period is not None:
            top = (
                select(standings.c.user_id, standings.c.points, standings.c.reached_at)
                .where(*_kept(standings, query))
                .order_by(standings.c.points.desc(), standings.c.reached_at, standings.c.user_id)
                .limit(limit)
                .subquery("top")
            )
            kept = select(
                top, func.rank().over(order_by=top.c.points.desc()).label("rank")
            ).order_by(top.c.points.desc(), top.c.reached_at, top.c.user_id)
            return [standing_record(row) for row in await self._all(kept)]
        ranked = _ranked(query)
        stmt = (
            select(ranked)
            .order_by(ranked.c.rank, ranked.c.reached_at, ranked.c.user_id)
            .limit(limit)
        )
        return [standing_record(row) for row in await self._all(stmt)]

    async def standing_of(self, query: StandingsQuery, user_id: str) -> Standing | None:
        if query.period is not None:
            mine = select(standings.c.points, standings.c.reached_at).where(
                *_kept(standings, query), standings.c.user_id == user_id
            )

            def read(conn: Connection) -> Standing | None:
                row = conn.execute(mine).first()
                if row is None:
                    return None
                # The users above: a sum over the distinct totals above theirs.
                better: int = (
                    conn.scalar(
                        select(func.sum(score_counts.c.users)).where(
                            *_kept(score_counts, query), score_counts.c.points > row.points
                        )
                    )
                    or 0
                )
                return Standing(user_id, int(row.points), row.reached_at, better + 1)

            return await self._tx.read(read, snapshot=True)
        ranked = _ranked(query)
        row = await self._one(select(ranked).where(ranked.c.user_id == user_id))
        return None if row is None else standing_record(row)

    async def totals(self, server_id: str, season: int, user_id: str) -> Totals:
        def read(conn: Connection) -> Totals:
            return read_totals(conn, server_id, season, user_id)

        return await self._tx.read(read)

    async def streak(self, server_id: str, user_id: str) -> int:
        def read(conn: Connection) -> int:
            return read_streak(conn, server_id, user_id)

        return await self._tx.read(read)

    # Schedules

    async def put_schedule(self, new: NewSchedule) -> Schedule:
        """An upsert on the (server, channel) key: one schedule per channel, its id kept."""
        settings = {
            "time": new.time,
            "zone": new.zone,
            "deck_id": new.deck_id,
            "days": new.days,
            "created_by": new.created_by,
            "enabled": True,
            "updated_at": new.at,
        }
        stmt = self._insert(schedules).values(
            server_id=new.server_id, channel_id=new.channel_id, created_at=new.at, **settings
        )
        upsert = stmt.on_conflict_do_update(
            index_elements=[schedules.c.server_id, schedules.c.channel_id], set_=settings
        ).returning(*schedules.c)
        row = await self._one(upsert, write=True)
        assert row is not None
        return schedule_record(row)

    async def schedule(self, schedule_id: int) -> Schedule | None:
        return await self._one_schedule(schedules.c.id == schedule_id)

    async def schedule_in_channel(self, server_id: str, channel_id: str) -> Schedule | None:
        return await self._one_schedule(
            schedules.c.server_id == server_id, schedules.c.channel_id == channel_id
        )

    async def _one_schedule(self, *where: Any) -> Schedule | None:
        row = await self._one(select(schedules).where(*where))
        return None if row is None else schedule_record(row)

    async def server_schedules(self, server_id: str) -> Sequence[Schedule]:
        stmt = (
            select(schedules)
            .where(schedules.c.server_id == server_id, schedules.c.enabled)
            .order_by(schedules.c.channel_id)
        )
        return [schedule_record(row) for row in await self._all(stmt)]

    async def disable_schedule(
        self, server_id: str, channel_id: str, at: datetime
    ) -> Schedule | None:
        stmt = (
            update(schedules)
            .where(
                schedules.c.server_id == server_id,
                schedules.c.channel_id == channel_id,
                schedules.c.enabled,
            )
            .values(enabled=False, updated_at=at)
            .returning(*schedules.c)
        )
        row = await self._one(stmt, write=True)
        return None if row is None else schedule_record(row)

    async def enabled_schedules(self) -> Sequence[EnabledSchedule]:
        """The newest slot date is a correlated MAX over the slots' primary key: one index
        probe per schedule, however many years of slots there are."""
        last_date = (
            select(func.max(schedule_slots.c.local_date))
            .where(schedule_slots.c.schedule_id == schedules.c.id)
            .scalar_subquery()
        )
        stmt = (
            select(schedules, last_date.label("last_date"))
            .where(schedules.c.enabled)
            .order_by(schedules.c.id)
        )
        return [
            EnabledSchedule(schedule_record(row), local_date(row.last_date))
            for row in await self._all(stmt)
        ]

    async def claim_slot(
        self,
        schedule_id: int,
        local_date: date,
        at: datetime,
        status: SlotStatus = SlotStatus.CLAIMED,
    ) -> bool:
        """INSERT ... ON CONFLICT DO NOTHING RETURNING on the (schedule, date) primary key:
        exactly one caller gets a row back, across processes and restarts."""
        stmt = (
            self._insert(schedule_slots)
            .values(
                schedule_id=schedule_id, local_date=local_date, status=status.value, claimed_at=at
            )
            .on_conflict_do_nothing(
                index_elements=[schedule_slots.c.schedule_id, schedule_slots.c.local_date]
            )
            .returning(schedule_slots.c.schedule_id)
        )
        return await self._one(stmt, write=True) is not None

    async def finish_slot(
        self,
        schedule_id: int,
        local_date: date,
        status: SlotStatus,
        *,
        post_id: int | None = None,
        error: str | None = None,
    ) -> None:
        await self._exec(
            update(schedule_slots)
            .where(
                schedule_slots.c.schedule_id == schedule_id,
                schedule_slots.c.local_date == local_date,
            )
            .values(status=status.value, post_id=post_id, error=error)
        )

    async def recent_slots(self, schedule_id: int, limit: int) -> Sequence[SlotRecord]:
        stmt = (
            select(schedule_slots)
            .where(schedule_slots.c.schedule_id == schedule_id)
            .order_by(schedule_slots.c.local_date.desc())
            .limit(limit)
        )
        return [slot_record(row) for row in await self._all(stmt)]

    async def scheduled_questions(self, schedule_id: int, deck_id: str) -> Sequence[str]:
        stmt = (
            select(posts.c.question_id)
            .where(posts.c.schedule_id == schedule_id, posts.c.deck_id == deck_id)
            .order_by(posts.c.opened_at, posts.c.id)
        )
        return [row.question_id for row in await self._all(stmt)]

    async def open_scheduled_posts(
        self, schedule_id: int | None = None, opened_before: datetime | None = None
    ) -> Sequence[PostRecord]:
        where: list[ColumnElement[bool]] = [
            posts.c.schedule_id.is_not(None),
            posts.c.closed_at.is_(None),
        ]
        if schedule_id is not None:
            where.append(posts.c.schedule_id == schedule_id)
        if opened_before is not None:
            where.append(posts.c.opened_at < opened_before)
        stmt = select(posts).where(*where).order_by(posts.c.opened_at, posts.c.id)
        return [post_record(row) for row in await self._all(stmt)]

    async def discard_post(self, post_id: int, at: datetime) -> None:
        await self._exec(
            update(posts)
            .where(posts.c.id == post_id)
            .values(closed_at=func.coalesce(posts.c.closed_at, at), schedule_id=None)
        )

    # Key/value state

    async def get_meta(self, key: str) -> str | None:
        value: str | None = await self._scalar(select(meta.c.value).where(meta.c.key == key))
        return value

    async def set_meta(self, key: str, value: str) -> None:
        await self._upsert(meta, {"key": key}, {"value": value})

    async def _upsert(self, table: Table, key: dict[str, Any], values: dict[str, Any]) -> None:
        stmt = self._insert(table).values(**key, **values)
        await self._exec(stmt.on_conflict_do_update(index_elements=list(key), set_=values))


_RUN_ANSWER = select(
    answers.c.question_id,
    answers.c.choice,
    answers.c.correct,
    answers.c.points,
    answers.c.answered_at,
)


def _kept(table: FromClause, query: StandingsQuery) -> list[ColumnElement[bool]]:
    """The standings rows of one leaderboard: server, season, period, deck (or all)."""
    return [
        table.c.server_id == query.server_id,
        table.c.season == query.season,
        table.c.period == query.period,
        table.c.deck_key == (query.deck_id or ALL_DECKS),
    ]


def _ranked(query: StandingsQuery) -> Subquery:
    """Per-user points in the period with their RANK(): one pass over the scoring index."""
    where = [answers.c.server_id == query.server_id, answers.c.season == query.season, SCORING]
    if query.since is not None:
        where.append(answers.c.answered_at >= query.since)
    if query.until is not None:
        where.append(answers.c.answered_at < query.until)
    if query.deck_id is not None:
        where.append(answers.c.deck_id == query.deck_id)
    per_user = (
        select(
            answers.c.user_id,
            func.sum(answers.c.points).label("points"),
            func.max(answers.c.answered_at).label("reached_at"),
        )
        .where(*where)
        .group_by(answers.c.user_id)
        .subquery("per_user")
    )
    return select(
        per_user,
        func.rank().over(order_by=per_user.c.points.desc()).label("rank"),
    ).subquery("ranked")


def _active_run(conn: Connection, server_id: str, user_id: str, deck_id: str) -> RunRecord | None:
    stmt = select(runs).where(
        runs.c.server_id == server_id,
        runs.c.user_id == user_id,
        runs.c.deck_id == deck_id,
        RUN_ACTIVE_WHERE,
    )
    row = conn.execute(stmt).first()
    return None if row is None else run_record(row)


def _post_choice(conn: Connection, post_id: int, user_id: str) -> int | None:
    choice: int | None = conn.scalar(POST_CHOICE, {"post_id": post_id, "user_id": user_id})
    return choice
