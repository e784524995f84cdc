"""What review, mastery and "Report a problem" say, in the reader's language (see
`bot.presentation.messages`, which these extend)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from bot.decks.model import Localized, pick
from bot.domain.leaderboard import Leaderboard
from bot.domain.mastery import Mastery
from bot.domain.problems import Reason
from bot.domain.review import ReviewDone, ReviewFeedback, ReviewStep
from bot.presentation.locales import digits, text

Mention = Callable[[str], str]
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@dataclass(frozen=True)
class ReviewQuestion:
    header: str
    question: str
    choices: list[tuple[str, str]]
    """(letter, text) in the order shown."""
    footer: str


@dataclass(frozen=True)
class ReviewAnswer:
    """The reply to a review answer, before what comes next."""

    headline: str
    answer: str
    explanation: str
    why: str | None
    when: str
    """When the question comes back (or that it is learnt)."""
    report_label: str


@dataclass(frozen=True)
class Weakest:
    """The weakest-topic button of `/quiz stats`."""

    label: str
    tag: str


def day_text(locale: str, day: date) -> str:
    weekday = text(locale, f"schedule.weekday.{WEEKDAYS[day.weekday()]}")
    return f"{weekday} {digits(locale, day.isoformat())}"


def review_question(step: ReviewStep) -> ReviewQuestion:
    loc = step.locale
    header = text(loc, "review.header", deck=pick(step.deck.title, loc), due=step.due)
    if step.tag:
        header += " · " + step.tag
    return ReviewQuestion(
        header=header,
        question=pick(step.question.text, loc),
        choices=[(c.letter, pick(c.choice.text, loc)) for c in step.choices],
        footer=text(loc, "review.footer"),
    )


def verdict(
    loc: str,
    repeat_key: str,
    repeat: bool,
    correct: bool,
    letter: str | None,
    why: Localized | None,
) -> tuple[str, str | None]:
    """An answer's headline (a repeat click's own `repeat_key`, else right or wrong) and, for
    a wrong pick whose choice says why it is wrong, that line."""
    headline = text(loc, repeat_key if repeat else "reply.right" if correct else "reply.wrong")
    if why is None or correct:
        return headline, None
    return headline, text(loc, "reply.your_pick", letter=letter, why=pick(why, loc))


def review_answer(fb: ReviewFeedback, locale: str | None = None) -> ReviewAnswer:
    loc = locale or fb.locale
    q = fb.question
    picked = None if fb.choice is None else q.choices[fb.choice].why
    headline, why = verdict(loc, "review.duplicate", fb.duplicate, fb.correct, fb.letter, picked)
    days = fb.days
    if days is None:
        when = text(loc, "review.learnt")
    elif days <= 0:
        when = text(loc, "review.due_now")
    elif days == 1:
        when = text(loc, "review.tomorrow")
    else:
        assert fb.card.due is not None
        when = text(loc, "review.back_in", days=days, date=day_text(loc, fb.card.due))
    return ReviewAnswer(
        headline=headline,
        answer=text(loc, "reply.answer", letter=fb.right_letter, choice=pick(q.right.text, loc)),
        explanation=pick(q.explanation, loc),
        why=why,
        when=when,
        report_label=text(loc, "report.button"),
    )


def review_done(done: ReviewDone) -> str:
    loc = done.locale
    lines = [text(loc, "review.done_topic", tag=done.tag) if done.tag else text(loc, "review.done")]
    if done.next_due is not None:
        lines.append(text(loc, "review.next", date=day_text(loc, done.next_due)))
    else:
        lines.append(text(loc, "review.empty"))
    return "\n".join(lines)


def mastery_lines(locale: str, mastery: Mastery | None, due: int | None) -> list[str]:
    """What `/quiz stats` adds: due for review (one's own), mastered, and by topic."""
    lines: list[str] = []
    if due is not None:
        lines.append(text(locale, "review.due_line", count=due))
    if mastery is None:
        return lines
    lines.append(text(locale, "mastery.total", count=mastery.mastered))
    if mastery.topics:
        lines.append(text(locale, "mastery.title"))
        lines += [
            text(locale, "mastery.topic", tag=t.tag, mastered=t.mastered, total=t.total)
            for t in mastery.topics
        ]
    weakest = mastery.weakest
    if weakest is not None:
        lines.append(text(locale, "mastery.weakest", tag=weakest.tag))
    return lines


def weakest_button(locale: str, mastery: Mastery | None, own: bool) -> Weakest | None:
    """A button to review the weakest topic: on one's own stats, when some of it is due."""
    weakest = mastery.weakest if mastery is not None and own else None
    if weakest is None or weakest.due == 0:
        return None
    return Weakest(
        text(locale, "mastery.review_topic", tag=weakest.tag, count=weakest.due), weakest.tag
    )


def board_lines(board: Leaderboard, mention: Mention, key: str, amount: str) -> list[str]:
    """Each row of a board as `key` says it: the rank, who (a player who hides is not named)
    and their points or count as the parameter `amount`."""
    hidden = text(board.locale, "leaderboard.hidden")
    return [
        text(
            board.locale,
            key,
            rank=r.rank,
            user=hidden if r.user_id in board.hidden else mention(r.user_id),
            **{amount: r.points},
        )
        for r in board.rows
    ]


def mastery_board_message(
    board: Leaderboard, mention: Mention
) -> tuple[str, list[str], str | None]:
    loc = board.locale
    lines = board_lines(board, mention, "leaderboard.mastery_row", "count") or [
        text(loc, "leaderboard.mastery_nobody")
    ]
    you = None
    if board.me is not None and not board.me_in_top:
        me = board.me
        you = text(
            loc, "leaderboard.mastery_you", user=mention(me.user_id), rank=me.rank, count=me.points
        )
    return text(loc, "leaderboard.mastery"), lines, you


def reason_label(locale: str, reason: Reason) -> str:
    return text(locale, f"report.reason.{reason.value}")
