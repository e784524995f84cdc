"""What each reply says, in the reader's language, before any platform markup.

Adapters and the terminal turn these plain-text pieces into Block Kit, embeds or lines;
deck text is passed through untouched, so each renderer escapes it for its own markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.decks.model import Deck, pick
from bot.domain.answer import AnswerResult
from bot.domain.errors import QuizError
from bot.domain.leaderboard import Leaderboard
from bot.domain.post import PostView, Reveal, ShownChoice
from bot.domain.records import AnswerStatus
from bot.domain.run import RunFeedback, RunStep, RunSummary
from bot.domain.stats import Stats
from bot.presentation.game_messages import WHEN
from bot.presentation.locales import digits, text
from bot.presentation.review_messages import (
    board_lines,
    mastery_board_message,
    mastery_lines,
    verdict,
)

Mention = Callable[[str], str]
BAR_WIDTH = 10


@dataclass(frozen=True)
class ChoiceLine:
    letter: str
    text: str


@dataclass(frozen=True)
class QuestionMessage:
    """A question as shown in a channel post or a run step."""

    header: str
    question: str
    choices: list[ChoiceLine]
    footer: str
    fallback: str
    closes: str | None = None
    """A game's question: "Closes {WHEN}", the deadline drawn by the platform."""


@dataclass(frozen=True)
class AnswerMessage:
    """The private reply to a click."""

    headline: str
    answer: str
    explanation: str
    why: str | None
    totals: str | None
    streak: str | None
    switch_label: str | None
    """Label of the "show in the other language" button, if the deck has one."""
    switch_locale: str | None
    review: str | None = None
    """"Added to your review", on a wrong answer that counted."""
    report_label: str | None = None
    """The "Report a problem" button's label."""


@dataclass(frozen=True)
class RevealRow:
    letter: str
    text: str
    count: int
    percent: int
    right: bool
    bar: str
    line: str
    """"A ████░░░░░░ 4 · 40%", ready to show."""


@dataclass(frozen=True)
class RevealMessage:
    header: str
    question: str
    answer: str
    rows: list[RevealRow]
    summary: str
    explanation: str
    fallback: str


@dataclass(frozen=True)
class SummaryMessage:
    header: str
    score: str
    points: str
    review: list[str]
    closing: str


@dataclass(frozen=True)
class BoardMessage:
    title: str
    lines: list[str]
    you: str | None


def _choices(choices: Iterable[ShownChoice], locale: str) -> list[ChoiceLine]:
    return [ChoiceLine(c.letter, pick(c.choice.text, locale)) for c in choices]


def _header(view: PostView) -> str:
    """ "Deck · Question n of N": n is the question's place in its deck, or in its game."""
    loc = view.locale
    deck = pick(view.deck.title, loc)
    if view.game is not None:
        return text(loc, "game.header", deck=deck, n=view.game.number, total=view.game.of)
    return text(loc, "post.header", deck=deck, n=view.question.position, total=len(view.deck))


def post_message(view: PostView) -> QuestionMessage:
    """A posted question; a game's says when it closes (`closes`), not how many answered."""
    loc = view.locale
    question = pick(view.question.text, loc)
    game = view.game is not None
    return QuestionMessage(
        header=_header(view),
        question=question,
        choices=_choices(view.choices, loc),
        footer="" if game else text(loc, "post.answered", count=view.answered),
        fallback=text(loc, "post.fallback", question=question),
        closes=(
            text(loc, "game.closes", when=WHEN, seconds=view.game.seconds)
            if view.game is not None
            else None
        ),
    )


def step_message(step: RunStep) -> QuestionMessage:
    loc = step.locale
    q = step.question
    question = pick(q.text, loc)
    header = text(
        loc, "run.header", deck=pick(step.deck.title, loc), n=q.position, total=len(step.deck)
    )
    footer = text(loc, "run.resumed") if step.resumed else ""
    return QuestionMessage(header, question, _choices(step.choices, loc), footer, question)


def answer_message(result: AnswerResult, locale: str | None = None) -> AnswerMessage:
    loc = locale or result.locale
    q = result.view.question
    if result.status is AnswerStatus.CLOSED:
        headline = text(loc, "reply.closed")
    elif result.status is AnswerStatus.DUPLICATE and not result.replay:
        headline = text(loc, "reply.duplicate", letter=result.letter)
    else:
        headline = text(loc, "reply.right" if result.correct else "reply.wrong")
    if result.practice:
        headline += " " + text(loc, "reply.practice")
    picked = result.picked
    why = None
    if picked is not None and picked.why is not None and not result.correct:
        why = text(loc, "reply.your_pick", letter=result.letter, why=pick(picked.why, loc))
    other = result.view.deck.other_locale(loc)
    totals, streak = answer_notes(result, loc)
    return AnswerMessage(
        headline=headline,
        answer=text(
            loc, "reply.answer", letter=result.view.right_letter, choice=pick(q.right.text, loc)
        ),
        explanation=pick(q.explanation, loc),
        why=why,
        totals=totals,
        streak=streak,
        switch_label=text(other, "reply.show_in") if other else None,
        switch_locale=other,
        review=added_to_review(loc, result.status is AnswerStatus.NEW and not result.correct),
        report_label=text(loc, "report.button"),
    )


def answer_notes(result: AnswerResult, loc: str) -> tuple[str | None, str | None]:
    """What a click's reply says of the person (their totals, their streak): the only part
    of it that differs between people who made the same click on the same post."""
    totals = result.totals
    return (
        None
        if result.status is AnswerStatus.CLOSED
        else text(
            loc,
            "reply.totals",
            points=totals.points,
            correct=totals.correct,
            answered=totals.answered,
        ),
        text(loc, "reply.streak", days=result.streak) if result.streak >= 2 else None,
    )


def feedback_message(fb: RunFeedback, locale: str | None = None) -> AnswerMessage:
    loc = locale or fb.locale
    q = fb.question
    picked = q.choices[fb.answer.choice].why
    headline, why = verdict(loc, "run.duplicate", fb.duplicate, fb.correct, fb.letter, picked)
    other = fb.deck.other_locale(loc)
    return AnswerMessage(
        headline=headline,
        answer=text(loc, "reply.answer", letter=fb.right_letter, choice=pick(q.right.text, loc)),
        explanation=pick(q.explanation, loc),
        why=why,
        totals=None,
        streak=None,
        switch_label=text(other, "reply.show_in") if other else None,
        switch_locale=other,
        review=added_to_review(loc, not fb.duplicate and not fb.correct),
        report_label=text(loc, "report.button"),
    )


def added_to_review(locale: str, missed: bool) -> str | None:
    return text(locale, "review.added") if missed else None


def summary_message(summary: RunSummary) -> SummaryMessage:
    loc = summary.locale
    review = [
        text(
            loc,
            "run.miss",
            n=m.question.position,
            question=pick(m.question.text, loc),
            letter=m.letter,
            right=f"{m.right_letter}. {pick(m.question.right.text, loc)}",
        )
        for m in summary.misses
    ]
    return SummaryMessage(
        header=pick(summary.deck.title, loc),
        score=text(loc, "run.score", score=summary.score, total=summary.total),
        points=text(loc, "run.points", points=summary.points),
        review=[text(loc, "run.review"), *review] if review else [text(loc, "run.perfect")],
        closing=text(loc, "run.again"),
    )


def _bar(share: float) -> str:
    full = round(share * BAR_WIDTH)
    return "█" * full + "░" * (BAR_WIDTH - full)


def reveal_message(reveal: Reveal) -> RevealMessage:
    view = reveal.view
    loc = view.locale
    q = view.question
    rows = []
    for r in reveal.rows:
        percent = round(r.share * 100)
        bar = _bar(r.share)
        mark = " ✅" if r.right else ""
        line = f"{r.shown.letter} {bar} {digits(loc, r.count)} · {digits(loc, percent)}%{mark}"
        rows.append(
            RevealRow(
                r.shown.letter, pick(r.shown.choice.text, loc), r.count, percent, r.right, bar, line
            )
        )
    right = pick(q.right.text, loc)
    summary = (
        text(loc, "reveal.summary", total=reveal.total, percent=round(reveal.right_share * 100))
        if reveal.total
        else text(loc, "reveal.nobody")
    )
    question = pick(q.text, loc)
    return RevealMessage(
        header=_header(view),
        question=question,
        answer=text(loc, "reveal.title", letter=view.right_letter, choice=right),
        rows=rows,
        summary=summary,
        explanation=_credited(pick(q.explanation, loc), q.credit, loc),
        fallback=text(loc, "reveal.fallback", question=question, letter=view.right_letter),
    )


def _credited(explanation: str, credit: str | None, loc: str) -> str:
    """A question a member wrote names them under its explanation, as text (no ping)."""
    return f"{explanation}\n{text(loc, 'suggest.credit', name=credit)}" if credit else explanation


def leaderboard_message(
    board: Leaderboard, mention: Mention, decks: dict[str, Deck]
) -> BoardMessage:
    loc = board.locale
    if board.mastery:
        return BoardMessage(*mastery_board_message(board, mention))
    title = text(loc, f"leaderboard.{board.period.value}")
    if board.deck_id and board.deck_id in decks:
        deck_title = pick(decks[board.deck_id].title, loc)
        title = f"{title} · {text(loc, 'leaderboard.deck', deck=deck_title)}"
    lines = board_lines(board, mention, "leaderboard.row", "points")
    if not lines:
        lines = [text(loc, "leaderboard.nobody")]
    you = None
    if board.me is None:
        you = text(loc, "leaderboard.you_none") if board.rows else None
    elif not board.me_in_top:
        me = board.me
        you = text(loc, "leaderboard.you", user=mention(me.user_id), rank=me.rank, points=me.points)
    return BoardMessage(title, lines, you)


def stats_message(stats: Stats, mention: Mention) -> BoardMessage:
    loc = stats.locale
    t = stats.totals
    lines = [
        text(loc, "stats.answered", count=t.answered),
        text(loc, "stats.correct", count=t.correct, percent=round(stats.accuracy * 100)),
        text(loc, "stats.points", count=t.points),
        text(loc, "stats.streak", days=stats.streak),
    ]
    if stats.rank is not None:
        lines.append(text(loc, "stats.rank", rank=stats.rank))
    played, won = stats.games
    if played:
        lines.append(text(loc, "stats.games", played=played, won=won))
    lines += mastery_lines(loc, stats.mastery, stats.due)
    return BoardMessage(text(loc, "stats.title", user=mention(stats.user_id)), lines, None)


def error_text(error: QuizError, locale: str) -> str:
    return text(locale, f"error.{error.key}", **error.params)


def help_text(locale: str) -> str:
    return f"{text(locale, 'help.title')}\n{text(locale, 'help.body').strip()}"
