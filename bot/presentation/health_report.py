"""The question-health report (`quizbot report`): a terminal table, and one HTML file with a
bar chart per question, drawn as inline SVG so it opens in any browser without a server or a
plotting library."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from html import escape

from bot.decks.model import Deck, pick
from bot.decks.problem import LintWarning
from bot.domain.health import ENOUGH, QuestionHealth
from bot.domain.problems import ProblemReport

LETTERS = "ABCDE"


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{round(share * 100)}%"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


def _name(row: QuestionHealth) -> str:
    return f"{row.deck_id}/{row.question_id}"


def _picks(row: QuestionHealth, answer: int | None) -> str:
    """Each choice's first tries, count and share, the right one starred: "*A:7 70%"."""
    cells = []
    for i, n in sorted(row.picks.items()):
        share = _percent(n / row.answered if row.answered else None)
        cells.append(f"{'*' if i == answer else ''}{LETTERS[i]}:{n} {share}")
    return " ".join(cells)


def table(rows: Sequence[QuestionHealth], decks: Mapping[str, Deck] | None = None) -> str:
    """The report as text, one line per question with its full id, flags last; the right
    choice's picks are starred (when `decks` says which it is)."""
    answers = {(deck.id, q.id): q.answer for deck in (decks or {}).values() for q in deck.questions}
    width = max([len("question"), *(len(_name(row)) for row in rows)])
    cells = [
        (_name(row), _picks(row, answers.get((row.deck_id, row.question_id))), row) for row in rows
    ]
    pick_width = max([len("picks A..E"), *(len(picks) for _, picks, _ in cells)])
    head = (
        f"{'question':<{width}} {'answered':>8} {'right':>6} {'D':>6}  "
        f"{'picks A..E':<{pick_width}} flags"
    )
    lines = [head, "-" * len(head)]
    for name, picks, row in cells:
        flags = ", ".join(flag.value for flag in row.flags)
        lines.append(
            f"{name:<{width}} {row.answered:>8} {_percent(row.right if row.answered else None):>6}"
            f" {_signed(row.discrimination):>6}  {picks:<{pick_width}} {flags}".rstrip()
        )
    flagged = sum(1 for row in rows if row.flags)
    lines.append(
        f"{len(rows)} questions, {flagged} flagged (flags wait for {ENOUGH} first tries); "
        f"* marks the right answer"
    )
    return "\n".join(lines)


def warning_list(warnings: Sequence[LintWarning]) -> str:
    """The deck lint's warnings, as `quizbot validate` prints them."""
    return "\n".join([f"Deck warnings ({len(warnings)}):", *(f"  {w}" for w in warnings)])


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


RIGHT, WRONG = "#2e7d32", "#9e9e9e"
RIGHT_CLASS = ' class="right"'
BAR = 300
"""Pixels of a bar picked by every first try: bar lengths are shares, comparable across
questions."""


def _chart(row: QuestionHealth, answer: int | None) -> str:
    """Horizontal bars, one per choice, as long as its share of first tries, each labelled
    with its count and share; the right one green and named, even when nobody picked it."""
    bars = []
    for i, (choice, count) in enumerate(sorted(row.picks.items())):
        share = count / row.answered if row.answered else 0.0
        width = BAR * share
        right = choice == answer
        label = f"{count} ({_percent(share if row.answered else None)})"
        label += " ✓ right answer" if right else ""
        y = i * 24
        bars.append(
            f'<text x="0" y="{y + 16}">{LETTERS[choice]}</text>'
            f'<rect x="20" y="{y + 4}" width="{width:.1f}" height="16" '
            f'fill="{RIGHT if right else WRONG}"/>'
            f'<text x="{26 + width:.1f}" y="{y + 16}">{label}</text>'
        )
    height = 24 * len(row.picks)
    title = f"first tries per choice of {_name(row)}"
    return (
        f'<svg width="{BAR + 200}" height="{height}" role="img" aria-label="{escape(title)}">'
        f"{''.join(bars)}</svg>"
    )


def _reports_html(row: QuestionHealth, reports: Sequence[ProblemReport]) -> str:
    mine = [r for r in reports if (r.deck_id, r.question_id) == (row.deck_id, row.question_id)]
    if not mine:
        return ""
    items = "".join(f"<li>{escape(_report_line(r))}</li>" for r in mine)
    return f'<ul class="reports">{items}</ul>'


def _warnings_html(warnings: Sequence[LintWarning]) -> str:
    if not warnings:
        return ""
    items = "".join(
        f"<li>line {w.line}: {escape(w.message)} <code>[{escape(w.name)}]</code></li>"
        for w in warnings
    )
    return f'<ul class="warnings">{items}</ul>'


def _section(
    row: QuestionHealth,
    deck: Deck | None,
    locale: str | None,
    reports: Sequence[ProblemReport],
    warnings: Sequence[LintWarning],
) -> str:
    question = deck.question(row.question_id) if deck else None
    loc = deck.locale_or_default(locale) if deck else "en"
    text = pick(question.text, loc) if question else row.question_id
    answer = question.answer if question else None
    choices = ""
    said = ""
    if question is not None:
        choices = "".join(
            f"<li{RIGHT_CLASS if i == answer else ''}>{escape(pick(c.text, loc))}</li>"
            for i, c in enumerate(question.choices)
        )
        said = (
            f'<p class="answer">Right answer: <b>{LETTERS[question.answer]}. '
            f"{escape(pick(question.right.text, loc))}</b></p>"
        )
    flags = "".join(f'<span class="flag">{escape(f.value)}</span>' for f in row.flags)
    mine = [
        w
        for w in warnings
        if (w.path, w.question) == (deck.source if deck else "", row.question_id)
    ]
    return (
        f"<section><h2>{escape(row.deck_id)} / {escape(row.question_id)}</h2>"
        f'<p>{escape(text)}</p><ol type="A">{choices}</ol>{said}'
        f"<p>{row.answered} answered · {_percent(row.right if row.answered else None)} right"
        f" on the first try · discrimination {_signed(row.discrimination)} {flags}</p>"
        f"{_chart(row, answer)}{_warnings_html(mine)}{_reports_html(row, reports)}</section>"
    )


def html(
    rows: Sequence[QuestionHealth],
    decks: Mapping[str, Deck],
    locale: str | None,
    reports: Sequence[ProblemReport] = (),
    *,
    server: str | None = None,
    made: datetime | None = None,
    warnings: Sequence[LintWarning] = (),
) -> str:
    """One self-contained page: a header naming the decks, the server and when it was made;
    per question its text, right answer, figures, flags, choice chart, the deck lint's
    warnings and the problem reports players sent about it."""
    shown = [decks[d] for d in dict.fromkeys(row.deck_id for row in rows) if d in decks]
    titles = ", ".join(pick(d.title, d.locale_or_default(locale)) for d in shown) or "no deck"
    sections = [_section(row, decks.get(row.deck_id), locale, reports, warnings) for row in rows]
    whole = [w for w in warnings if w.question is None]
    flagged = sum(1 for row in rows if row.flags)
    when = f" · made {made:%Y-%m-%d %H:%M} UTC" if made else ""
    return f"""<!doctype html>
<html lang="{escape(locale or "en")}"><head><meta charset="utf-8">
<title>quizbot: question health of {escape(titles)}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; }}
section {{ border-top: 1px solid #ddd; padding: .5rem 0 1rem; }}
.flag {{ background: #ffe0b2; border-radius: .3rem; padding: 0 .4rem; margin-left: .3rem; }}
li.right {{ font-weight: bold; color: {RIGHT}; }}
.key {{ display: inline-block; width: .8rem; height: .8rem; margin: 0 .3rem 0 .8rem; }}
.warnings {{ color: #8a4b00; }}
svg text {{ font-size: 13px; }}
</style></head><body>
<h1>Question health: {escape(titles)}</h1>
<p class="about">Server: {escape(server or "every server")}{when}</p>
<p>{len(rows)} questions, {flagged} flagged. First tries only; a flag waits for {ENOUGH} of
them. Discrimination: the share right in the top 27% of players minus the bottom 27%; below
zero, strong players miss it more than weak ones (check the key and the choices).</p>
<p class="legend">Each bar is a choice's share of first tries, with its count and percentage:
<span class="key" style="background: {RIGHT}"></span>the right answer
<span class="key" style="background: {WRONG}"></span>a wrong choice</p>
{_warnings_html(whole)}
{"".join(sections)}
</body></html>
"""
