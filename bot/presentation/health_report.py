"""The question-health report (`quizbot report`): a terminal table, and one HTML file with a
bar chart per question, drawn as inline SVG so it opens in any browser without a server or a
plotting library."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from bot.decks.model import Deck, pick
from bot.domain.health import QuestionHealth
from bot.domain.problems import ProblemReport

LETTERS = "ABCDE"


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{round(share * 100)}%"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


def table(rows: Sequence[QuestionHealth]) -> str:
    """The report as fixed-width text, one line per question, flags last."""
    head = f"{'question':<34} {'answered':>8} {'right':>6} {'D':>6}  {'picks A..E':<24} flags"
    lines = [head, "-" * len(head)]
    for row in rows:
        picks = " ".join(f"{LETTERS[i]}:{n}" for i, n in sorted(row.picks.items()))
        flags = ", ".join(flag.value for flag in row.flags)
        name = f"{row.deck_id}/{row.question_id}"
        lines.append(
            f"{name[:34]:<34} {row.answered:>8} {_percent(row.right if row.answered else None):>6}"
            f" {_signed(row.discrimination):>6}  {picks:<24} {flags}"
        )
    flagged = sum(1 for row in rows if row.flags)
    lines.append(f"{len(rows)} questions, {flagged} flagged")
    return "\n".join(lines)


def _report_line(r: ProblemReport) -> str:
    text = " ".join(r.text.split()) or "-"
    return (
        f"{r.reported_at:%Y-%m-%d} {r.server_id}/{r.user_id} {r.reason.value} "
        f"(deck version {r.deck_version}): {text}"
    )


def report_list(reports: Sequence[ProblemReport]) -> str:
    """Players' problem reports, oldest first, one line each."""
    lines = [f"Problem reports ({len(reports)}):"]
    lines += [f"  {r.deck_id}/{r.question_id} {_report_line(r)}" for r in reports]
    return "\n".join(lines)


def _chart(row: QuestionHealth, answer: int | None) -> str:
    """Horizontal bars, one per choice; the right one green."""
    most = max(row.picks.values(), default=0) or 1
    bars = []
    for i, (choice, count) in enumerate(sorted(row.picks.items())):
        width = 300 * count / most
        colour = "#2e7d32" if choice == answer else "#9e9e9e"
        y = i * 24
        bars.append(
            f'<text x="0" y="{y + 16}">{LETTERS[choice]}</text>'
            f'<rect x="20" y="{y + 4}" width="{width:.1f}" height="16" fill="{colour}"/>'
            f'<text x="{26 + width:.1f}" y="{y + 16}">{count}</text>'
        )
    height = 24 * len(row.picks)
    return f'<svg width="380" height="{height}" role="img">{"".join(bars)}</svg>'


def _reports_html(row: QuestionHealth, reports: Sequence[ProblemReport]) -> str:
    mine = [r for r in reports if (r.deck_id, r.question_id) == (row.deck_id, row.question_id)]
    if not mine:
        return ""
    items = "".join(f"<li>{escape(_report_line(r))}</li>" for r in mine)
    return f'<ul class="reports">{items}</ul>'


def html(
    rows: Sequence[QuestionHealth],
    decks: dict[str, Deck],
    locale: str | None,
    reports: Sequence[ProblemReport] = (),
) -> str:
    """One self-contained page: per question its text, figures, flags, choice chart and the
    problem reports players sent about it."""
    sections = []
    for row in rows:
        deck = decks.get(row.deck_id)
        question = deck.question(row.question_id) if deck else None
        loc = deck.locale_or_default(locale) if deck else "en"
        text = pick(question.text, loc) if question else row.question_id
        answer = question.answer if question else None
        choices = (
            "".join(f"<li>{escape(pick(c.text, loc))}</li>" for c in question.choices)
            if question
            else ""
        )
        flags = "".join(f'<span class="flag">{escape(f.value)}</span>' for f in row.flags)
        sections.append(
            f"<section><h2>{escape(row.deck_id)} / {escape(row.question_id)}</h2>"
            f'<p>{escape(text)}</p><ol type="A">{choices}</ol>'
            f"<p>{row.answered} answered · {_percent(row.right if row.answered else None)} right"
            f" on the first try · discrimination {_signed(row.discrimination)} {flags}</p>"
            f"{_chart(row, answer)}{_reports_html(row, reports)}</section>"
        )
    flagged = sum(1 for row in rows if row.flags)
    return f"""<!doctype html>
<html lang="{escape(locale or "en")}"><head><meta charset="utf-8">
<title>quizbot: question health</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; }}
section {{ border-top: 1px solid #ddd; padding: .5rem 0 1rem; }}
.flag {{ background: #ffe0b2; border-radius: .3rem; padding: 0 .4rem; margin-left: .3rem; }}
svg text {{ font-size: 13px; }}
</style></head><body>
<h1>Question health</h1>
<p>{len(rows)} questions, {flagged} flagged. First tries only. Discrimination: the share
right in the top 27% of players minus the bottom 27%; below zero, strong players miss it
more than weak ones (check the key and the choices).</p>
{"".join(sections)}
</body></html>
"""
