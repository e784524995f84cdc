"""What admins read about their decks in chat: question health (`/quiz report`,
`/quizadmin report`) and the daily summary of players' problem reports."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bot.decks.model import Deck, pick
from bot.domain.health import Flag, HealthView
from bot.domain.problems import ProblemReport
from bot.presentation.locales import digits, text
from bot.presentation.review_messages import reason_label

Mention = Callable[[str], str]
SHOWN_REPORTS = 10
"""Reports a chat reply lists (newest); `quizbot report` lists them all."""
QUESTION_SHOWN = 80
"""Characters of a question's text a report line shows."""
SNIPPET = 200
"""Characters of a report's text a chat message shows."""
FLAG_KEYS = {
    Flag.TOO_EASY: "too_easy",
    Flag.TOO_HARD: "too_hard",
    Flag.DEAD_CHOICE: "dead_choice",
    Flag.NEGATIVE: "negative",
    Flag.REPORTED: "reported",
}


def _snippet(words: str) -> str:
    flat = " ".join(words.split())
    return flat if len(flat) <= SNIPPET else flat[: SNIPPET - 1] + "…"


def _question_name(deck: Deck | None, question_id: str, locale: str) -> str:
    question = deck.question(question_id) if deck else None
    if deck is None or question is None:
        return question_id
    text_ = " ".join(pick(question.text, locale).split())
    shown = text_ if len(text_) <= QUESTION_SHOWN else text_[: QUESTION_SHOWN - 1] + "…"
    return f"{digits(locale, question.position)}. {shown}"


def health_lines(view: HealthView, mention: Mention) -> tuple[str, list[str]]:
    """The title and lines of a deck's health in chat: one line per question, then the
    newest problem reports."""
    loc = view.locale
    deck = view.deck
    title = text(loc, "report.command_title", deck=pick(deck.title, loc))
    if not any(r.answered for r in view.rows) and not view.reports:
        return title, [text(loc, "report.none", deck=pick(deck.title, loc))]
    lines = []
    for row in view.rows:
        question = deck.question(row.question_id)
        position = question.position if question else 0
        flags = ", ".join(text(loc, f"report.flag.{FLAG_KEYS[f]}") for f in row.flags)
        line = text(
            loc,
            "report.row",
            n=position,
            answered=row.answered,
            right=round(row.right * 100),
            d="-" if row.discrimination is None else f"{row.discrimination:+.2f}",
        )
        lines.append(f"{line} · ⚠️ {flags}" if flags else line)
    if view.reports:
        lines.append(text(loc, "report.reports", count=len(view.reports)))
        lines += [
            report_line(r, {deck.id: deck}, loc, mention)
            for r in list(view.reports)[-SHOWN_REPORTS:]
        ]
    return title, lines


def report_line(
    report: ProblemReport, decks: Mapping[str, Deck], locale: str, mention: Mention
) -> str:
    deck = decks.get(report.deck_id)
    return text(
        locale,
        "report.line",
        deck=pick(deck.title, locale) if deck else report.deck_id,
        question=_question_name(deck, report.question_id, locale),
        reason=reason_label(locale, report.reason),
        user=mention(report.user_id),
        text=_snippet(report.text) or "—",
    )


def digest_text(
    reports: Sequence[ProblemReport], decks: Mapping[str, Deck], locale: str, mention: Mention
) -> str:
    """The daily summary an admin is sent: the reports since the last one."""
    lines = [text(locale, "report.summary", count=len(reports))]
    lines += [report_line(r, decks, locale, mention) for r in reports[-SHOWN_REPORTS * 2 :]]
    return "\n".join(lines)
