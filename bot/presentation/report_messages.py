"""What admins read about their decks in chat: question health (`/quiz report`,
`/quizadmin report`) and the daily summary of players' problem reports."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bot.decks.model import Deck, pick
from bot.domain.health import Flag, HealthView
from bot.domain.problems import ProblemReport, SummaryMessage
from bot.presentation.locales import digits, text
from bot.presentation.review_messages import reason_label

Mention = Callable[[str], str]
SHOWN_REPORTS = 10
"""Reports a chat reply lists (the newest, first); `quizbot report` lists them all."""
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
        newest = list(reversed(view.reports))
        lines.append(text(loc, "report.reports", count=len(newest)))
        lines += [report_line(r, {deck.id: deck}, loc, mention) for r in newest[:SHOWN_REPORTS]]
        if len(newest) > SHOWN_REPORTS:
            lines.append(text(loc, "report.more", count=len(newest) - SHOWN_REPORTS))
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


SUMMARY_MESSAGES = 3
"""Direct messages one summary may take; reports that do not fit wait for the next one."""


def digest_messages(
    reports: Sequence[ProblemReport],
    decks: Mapping[str, Deck],
    locale: str,
    mention: Mention,
    fits: Callable[[str], bool],
) -> list[SummaryMessage]:
    """The daily summary an admin is sent: the reports since the last one, newest first, in
    messages that each `fits` the platform (whole lines, never a report cut off). When they
    need more than SUMMARY_MESSAGES, the last says how many more there are; those stay
    unsent and lead the next summary's older part."""
    newest = sorted(reports, key=lambda r: (r.reported_at, r.id or 0), reverse=True)
    lines = [(r.id or 0, report_line(r, decks, locale, mention)) for r in newest]
    messages: list[SummaryMessage] = []
    heading = text(locale, "report.summary", count=len(reports))
    while lines and len(messages) < SUMMARY_MESSAGES:
        taken = [lines.pop(0)]  # one line always goes, or nothing would ever be sent
        while lines and fits(_joined(heading, taken + lines[:1])):
            taken.append(lines.pop(0))
        if lines and len(messages) == SUMMARY_MESSAGES - 1:
            while len(taken) > 1 and not fits(_with_more(heading, taken, lines, locale)):
                lines.insert(0, taken.pop())
            body = _with_more(heading, taken, lines, locale)
        else:
            body = _joined(heading, taken)
        messages.append(SummaryMessage(body, tuple(i for i, _ in taken)))
        heading = text(locale, "report.summary_next")
    return messages


def _joined(heading: str, lines: Sequence[tuple[int, str]]) -> str:
    return "\n".join([heading, *(line for _, line in lines)])


def _with_more(
    heading: str, lines: Sequence[tuple[int, str]], left: Sequence[object], locale: str
) -> str:
    return _joined(heading, lines) + "\n" + text(locale, "report.summary_more", count=len(left))
