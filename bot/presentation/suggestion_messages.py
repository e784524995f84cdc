"""What the suggestion form, the coaching, the admins' queue and the author's news say, in
en and bn, as plain lines: each platform escapes them whole (they carry what members typed).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.decks.model import Deck, pick
from bot.domain.health import ENOUGH
from bot.domain.suggestion import (
    LIMITS,
    LINE_LIMIT,
    PER_DAY,
    WAITING_CAP,
    Checked,
    Draft,
    Field,
    Finding,
    Queue,
    Sent,
    Status,
    Suggestion,
    Written,
)
from bot.presentation.locales import LOCALES, text

KNOWN = {
    "length-tell",
    "duplicate-choice",
    "all-of-the-above",
    "none-of-the-above",
    "few-choices",
    "reading-time",
    "gives-away",
    "answered-by",
    "duplicate-question",
    "no-explanation",
    "missing-why",
}
"""Findings said in words of their own; any other is said in the lint's words."""


@dataclass(frozen=True)
class FormText:
    title: str
    labels: dict[Field, str]
    hints: dict[Field, str]
    check: str
    close: str


def form_text(locale: str) -> FormText:
    """The form's title, labels (with their limits) and placeholders."""
    limit = {f: LIMITS[f] for f in Field}
    hint_limit = {**limit, Field.WRONG: LINE_LIMIT}
    return FormText(
        title=text(locale, "suggest.title"),
        labels={f: text(locale, f"suggest.field.{f.value}", limit=limit[f]) for f in Field},
        hints={f: text(locale, f"suggest.hint.{f.value}", limit=hint_limit[f]) for f in Field},
        check=text(locale, "suggest.check"),
        close=text(locale, "suggest.close"),
    )


def finding_text(locale: str, finding: Finding) -> str:
    key = finding.name if finding.name in KNOWN else "other"
    return text(locale, f"suggest.finding.{key}", detail=finding.detail)


def draft_lines(locale: str, draft: Draft) -> list[str]:
    """The question as written: its text, the right answer, each wrong one with its why,
    the explanation."""
    said = [draft.question, text(locale, "suggest.right", text=draft.right)]
    for index, wrong in enumerate(draft.wrong):
        why = draft.why_of(index)
        key = "suggest.wrong_why" if why else "suggest.wrong"
        said.append(text(locale, key, text=wrong, why=why or ""))
    said.append(
        text(locale, "suggest.explanation", text=draft.explanation)
        if draft.explanation
        else text(locale, "suggest.no_explanation")
    )
    return said


@dataclass(frozen=True)
class Coaching:
    title: str
    findings: list[str]
    note: str
    edit: str
    send: str


def coaching(locale: str, checked: Checked) -> Coaching:
    """What the author is shown when the lint found something."""
    return Coaching(
        title=text(locale, "suggest.coach_title"),
        findings=[finding_text(locale, f) for f in checked.findings],
        note=text(locale, "suggest.coach_note"),
        edit=text(locale, "suggest.edit"),
        send=text(locale, "suggest.send_anyway"),
    )


def sent_text(locale: str, sent: Sent, clean: bool = False) -> str:
    if sent is Sent.SENT:
        said = text(locale, "suggest.sent")
        return f"{text(locale, 'suggest.clean')} {said}" if clean else said
    if sent is Sent.DAY_FULL:
        return text(locale, "suggest.day_full", limit=PER_DAY)
    if sent is Sent.QUEUE_FULL:
        return text(locale, "suggest.queue_full", limit=WAITING_CAP)
    return text(locale, "suggest.gone")


@dataclass(frozen=True)
class QueueItem:
    id: int
    heading: str
    lines: list[str]
    findings: list[str]


@dataclass(frozen=True)
class QueueMessage:
    title: str
    note: str | None
    items: list[QueueItem]
    approve: str
    edit: str
    reject: str


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC") if at else ""


def queue_message(locale: str, queue: Queue) -> QueueMessage:
    """The admins' queue: each waiting suggestion, its text, what the lint found."""
    items = []
    for s, findings in queue.waiting:
        heading = text(
            locale,
            "suggest.queue_item",
            id=s.id,
            author=f"@{s.author_name or '?'}",
            when=_when(s.submitted_at),
        )
        found = (
            [
                text(locale, "suggest.queue_findings"),
                *(f"• {finding_text(locale, f)}" for f in findings),
            ]
            if findings
            else [text(locale, "suggest.queue_clean")]
        )
        items.append(QueueItem(s.id, heading, draft_lines(locale, s.draft), found))
    note = None
    if not items:
        note = text(locale, "suggest.queue_empty")
    elif queue.total > len(items):
        note = text(locale, "suggest.queue_more", shown=len(items), total=queue.total)
    return QueueMessage(
        title=text(locale, "suggest.queue_title", total=queue.total),
        note=note,
        items=items,
        approve=text(locale, "suggest.approve"),
        edit=text(locale, "suggest.edit"),
        reject=text(locale, "suggest.reject"),
    )


def decided_text(locale: str, done: Suggestion, deck: Deck | None) -> str:
    """What the admin who decided is told."""
    if done.reason is None:
        title = pick(deck.title, locale) if deck else ""
        return text(locale, "suggest.approved", id=done.id, question=done.question_id, deck=title)
    return text(locale, "suggest.rejected", id=done.id)


def outcome_text(done: Suggestion, deck: Deck | None = None) -> str:
    """What the author is told, privately, in the language they wrote in."""
    locale = done.draft.locale if done.draft.locale in LOCALES else "en"
    if done.reason is not None:
        return text(
            locale, "suggest.told_rejected", question=done.draft.question, reason=done.reason
        )
    number = "?"
    title = text(locale, "suggest.title")
    if deck is not None:
        found = deck.question(done.question_id)
        number = str(found.position) if found else "?"
        title = pick(deck.title, locale)
    return text(
        locale, "suggest.told_approved", question=done.draft.question, number=number, deck=title
    )


def credit_text(locale: str, name: str) -> str:
    """The reveal's "Question by @name" (a name, never a mention: nobody is pinged)."""
    return text(locale, "suggest.credit", name=name)


def written_lines(locale: str, written: list[Written]) -> list[str]:
    """`stats`: the questions a person wrote and how they play (answered, share right, and
    discrimination once enough people answered); their own waiting ones counted."""
    approved = [w for w in written if w.suggestion.status is Status.APPROVED]
    waiting = len(written) - len(approved)
    if not written:
        return []
    lines = [text(locale, "suggest.stats_title", count=len(approved))]
    for n, w in enumerate(approved, start=1):
        question = w.suggestion.draft.question
        row = w.health
        if row is None or not row.answered:
            lines.append(text(locale, "suggest.stats_line_new", number=n, question=question))
            continue
        line = text(
            locale,
            "suggest.stats_line",
            number=n,
            question=question,
            answered=row.answered,
            right=round(row.right * 100),
        )
        if row.discrimination is not None and row.answered >= ENOUGH:
            line += text(locale, "suggest.stats_discrimination", value=f"{row.discrimination:+.2f}")
        lines.append(line)
    if waiting:
        lines.append(text(locale, "suggest.stats_waiting", count=waiting))
    return lines
