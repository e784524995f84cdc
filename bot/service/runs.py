"""Private runs: a person's pass through a deck, one question at a time, with feedback.

Runs have their own rules: a run resumes where it stopped, scores only first meetings, and
passes over questions open in a post of the server (fair play).
"""

from __future__ import annotations

from bot.decks.model import Deck
from bot.domain.actor import Actor
from bot.domain.clock import Clock
from bot.domain.errors import QuizError
from bot.domain.records import AnswerStatus, RunRecord
from bot.domain.run import RunFeedback, RunStep, RunSummary, next_question, run_order, summarize
from bot.service import ports
from bot.service.catalog import Catalog


class Runs:
    def __init__(
        self,
        catalog: Catalog,
        clock: Clock,
        servers: ports.Servers,
        posts: ports.PostsAndAnswers,
        runs: ports.Runs,
    ) -> None:
        self._catalog = catalog
        self.clock = clock
        self._servers = servers
        self._posts = posts
        self._runs = runs

    async def start_run(self, actor: Actor, deck_id: str | None = None) -> RunStep | RunSummary:
        """Starts a run (no deck: the server's default), or resumes the unfinished one at
        its next question."""
        deck = await self._catalog.deck_for(actor.server_id, deck_id)
        server = await self._servers.server(actor.server_id)
        existing = await self._runs.active_run(actor.server_id, actor.user_id, deck.id)
        run = existing or await self._runs.start_run(
            actor.server_id, actor.user_id, deck.id, server.season, self.clock.now()
        )
        step = await self._step(actor, run, deck, resumed=existing is not None)
        if step is None:  # every question answered but never finished: finish it now
            return await self._finish(actor, run, deck)
        return step

    async def _step(
        self, actor: Actor, run: RunRecord, deck: Deck, *, resumed: bool = False
    ) -> RunStep | None:
        answers = list(await self._runs.run_answers(run.id))
        question = next_question(deck, answers, await self._open_in(actor, deck))
        if question is None:
            return None
        locale = await self._catalog.reply_locale(actor, deck)
        return RunStep(run, deck, question, len(answers), locale, resumed)

    async def _open_in(self, actor: Actor, deck: Deck) -> dict[str, str]:
        """The deck's questions open in a post of the server, to their channel: a run passes
        over them, since its step would show the answer that a channel is still guessing."""
        open_in = await self._posts.open_questions(actor.server_id)
        return {q: channel for (d, q), channel in open_in.items() if d == deck.id}

    async def _finish(self, actor: Actor, run: RunRecord, deck: Deck) -> RunSummary:
        await self._runs.finish_run(run.id, self.clock.now())
        answers = list(await self._runs.run_answers(run.id))
        return summarize(run, deck, answers, await self._catalog.reply_locale(actor, deck))

    async def run_answer(
        self,
        actor: Actor,
        run_id: int,
        question_id: str,
        shown_index: int,
        *,
        deadline: float | None = None,
    ) -> RunFeedback:
        """Answers one question of a run, committed when this returns (`deadline`: as for
        `answer`); the feedback carries the next step or the summary."""
        run = await self._runs.run(run_id)
        if run is None or run.server_id != actor.server_id or run.user_id != actor.user_id:
            raise QuizError("stale_click")
        deck = self._catalog.decks.get(run.deck_id)
        question = deck.question(question_id) if deck else None
        if deck is None or question is None:
            raise QuizError("question_gone")
        order = run_order(run.id, question)
        if not 0 <= shown_index < len(order):
            raise QuizError("stale_click")
        if run.finished_at is not None:
            raise QuizError("run_finished")
        choice = order[shown_index]
        open_in = await self._open_in(actor, deck)
        channel = open_in.get(question.id)
        if channel is not None:  # posted since this step was shown: its answer waits there
            raise QuizError("run_question_open", channel=channel)
        outcome = await self._runs.record_run_answer(
            run, question.id, choice, choice == question.answer, self.clock.now(), deadline=deadline
        )
        locale = await self._catalog.reply_locale(actor, deck)
        answers = list(await self._runs.run_answers(run.id))
        nxt = next_question(deck, answers, open_in)
        summary = None
        step = None
        if nxt is None:
            await self._runs.finish_run(run.id, self.clock.now())
            summary = summarize(run, deck, answers, locale)
        else:
            step = RunStep(run, deck, nxt, len(answers), locale)
        return RunFeedback(
            deck=deck,
            question=question,
            order=order,
            answer=outcome.answer,
            duplicate=outcome.status is AnswerStatus.DUPLICATE,
            locale=locale,
            other_locale=deck.other_locale(locale),
            next=step,
            summary=summary,
        )
