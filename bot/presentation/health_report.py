"""The question-health report (`quizbot report`): a terminal table, and one HTML page in one
language (the reader's) with pictures drawn as inline SVG (`health_charts`): a map per deck of
each question's difficulty against its discrimination, and per question the share of first
tries each choice got. It opens in any browser without a server, a script or the network."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from html import escape

from bot.decks.model import Deck, pick
from bot.decks.problem import LintWarning
from bot.domain.health import ENOUGH, QuestionHealth
from bot.domain.problems import ProblemReport
from bot.presentation.health_charts import LETTERS, RIGHT, WRONG, Point, choice_bars, deck_map
from bot.presentation.locales import digits, text


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


RIGHT_CLASS = ' class="right"'


def _flag_html(row: QuestionHealth, loc: str) -> str:
    return "".join(
        f'<span class="flag">{escape(text(loc, f"report.flag.{f.name.lower()}"))}</span>'
        for f in row.flags
    )


def _reports_html(row: QuestionHealth, reports: Sequence[ProblemReport], loc: str) -> str:
    mine = [r for r in reports if (r.deck_id, r.question_id) == (row.deck_id, row.question_id)]
    if not mine:
        return ""
    items = "".join(
        "<li>"
        + escape(
            text(
                loc,
                "health.report_line",
                date=digits(loc, f"{r.reported_at:%Y-%m-%d}"),
                user=r.user_id,
                reason=text(loc, f"report.reason.{r.reason.value}"),
                version=r.deck_version,
                text=" ".join(r.text.split()) or "-",
            )
        )
        + "</li>"
        for r in mine
    )
    return f'<h4>{text(loc, "health.reports")}</h4><ul class="reports">{items}</ul>'


def _warnings_html(warnings: Sequence[LintWarning], loc: str) -> str:
    if not warnings:
        return ""
    items = "".join(
        f"<li>{escape(text(loc, 'health.warning_line', line=w.line, message=w.message))} "
        f"<code>[{escape(w.name)}]</code></li>"
        for w in warnings
    )
    return f'<h4>{text(loc, "health.warnings")}</h4><ul class="warnings">{items}</ul>'


def anchor(deck_id: str, question_id: str) -> str:
    """The id of a question's section: what the deck map's points link to."""
    return f"q-{deck_id}-{question_id}"


class _Page:
    """The words and numbers of one page, in its language."""

    def __init__(self, loc: str) -> None:
        self.loc = loc

    def say(self, key: str, /, **params: object) -> str:
        return text(self.loc, f"health.{key}", **params)

    def number(self, written: str) -> str:
        return digits(self.loc, written)

    def share(self, share: float | None) -> str:
        return self.number(_percent(share))

    def signed(self, value: float | None) -> str:
        return self.number(_signed(value))


def _question(
    page: _Page,
    row: QuestionHealth,
    deck: Deck | None,
    reports: Sequence[ProblemReport],
    warnings: Sequence[LintWarning],
) -> str:
    loc = page.loc
    question = deck.question(row.question_id) if deck else None
    number = deck.questions.index(question) + 1 if deck and question else 0
    qloc = deck.locale_or_default(loc) if deck else loc
    answer = question.answer if question else None
    body = ""
    if question is not None:
        choices = "".join(
            f"<li{RIGHT_CLASS if i == answer else ''}>{escape(pick(c.text, qloc))}</li>"
            for i, c in enumerate(question.choices)
        )
        body = (
            f'<p class="text" lang="{qloc}">{escape(pick(question.text, qloc))}</p>'
            f'<ol type="A" lang="{qloc}">{choices}</ol>'
            f'<p class="answer">{page.say("answer")} <b lang="{qloc}">'
            f"{LETTERS[question.answer]}. {escape(pick(question.right.text, qloc))}</b></p>"
        )

    def said(count: int, share: float | None, right: bool) -> str:
        key = "bar_right" if right else "bar_text"
        return page.say(key, count=count, share=page.share(share))

    figures = page.say(
        "figures",
        answered=row.answered,
        right=page.share(row.right if row.answered else None),
        discrimination=page.signed(row.discrimination),
    )
    mine = [
        w
        for w in warnings
        if (w.path, w.question) == (deck.source if deck else "", row.question_id)
    ]
    bars = choice_bars(row, answer, page.say("bars_label", number=number), said)
    heading = page.say("question", number=number, id=row.question_id)
    return (
        f'<article class="question" id="{escape(anchor(row.deck_id, row.question_id))}">'
        f"<h3>{escape(heading)}</h3>{body}"
        f'<p class="figures">{escape(figures)} {_flag_html(row, loc)}</p>'
        f"<figure>{bars}</figure>{_warnings_html(mine, loc)}{_reports_html(row, reports, loc)}"
        "</article>"
    )


def _deck_map(page: _Page, deck: Deck, rows: Sequence[QuestionHealth]) -> str:
    numbers = {q.id: i for i, q in enumerate(deck.questions, 1)}
    points = [
        Point(
            numbers.get(row.question_id, 0),
            row.question_id,
            row.right,
            row.discrimination,
            bool(row.flags),
            anchor(row.deck_id, row.question_id),
        )
        for row in rows
        if row.answered and row.discrimination is not None
    ]
    left = [
        page.number(str(numbers.get(row.question_id, 0)))
        for row in rows
        if not row.answered or row.discrimination is None
    ]
    title = pick(deck.title, deck.locale_or_default(page.loc))
    words = {
        "x": page.say("axis_right"),
        "y": page.say("axis_discrimination"),
        "hard": page.say("too_hard"),
        "easy": page.say("too_easy"),
        "label": page.say("map_label", deck=title),
    }
    missing = (
        f'<p class="not-plotted">{escape(page.say("not_plotted", questions=", ".join(left)))}</p>'
        if left
        else ""
    )
    return (
        f'<figure class="deck-map">{deck_map(points, words, page.number)}'
        f"<figcaption>{escape(page.say('map_caption'))}</figcaption></figure>{missing}"
    )


STYLE = f"""
body {{ font-family: system-ui, "Noto Sans Bengali", sans-serif; max-width: 56rem;
  margin: 2rem auto; padding: 0 1rem; line-height: 1.45; color: #263238; }}
section.deck {{ border-top: 2px solid #b0bec5; margin-top: 2rem; }}
article.question {{ border-top: 1px solid #e0e0e0; padding: .5rem 0 1rem; }}
.flag {{ background: #ffe0b2; border-radius: .3rem; padding: 0 .4rem; margin-left: .3rem; }}
li.right {{ font-weight: bold; color: {RIGHT}; }}
.key {{ display: inline-block; width: .8rem; height: .8rem; margin: 0 .3rem 0 .8rem; }}
.keyed {{ white-space: nowrap; }}
.warnings {{ color: #8a4b00; }}
figure {{ margin: .5rem 0; }}
figcaption {{ font-size: .9rem; color: #546e7a; max-width: 40rem; }}
svg {{ max-width: 100%; height: auto; }}
svg text {{ font-size: 13px; font-family: inherit; }}
"""


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
    """One self-contained page in `locale` (its words; the questions too where the deck has
    it): a header naming the decks, the server and when it was made; how to read it; per deck
    its map and, per question, its text, right answer, figures, flags, choice bars, the deck
    lint's warnings and the problem reports players sent about it."""
    page = _Page(locale or "en")
    shown = [decks[d] for d in dict.fromkeys(row.deck_id for row in rows) if d in decks]
    titles = ", ".join(pick(d.title, d.locale_or_default(page.loc)) for d in shown)
    title = page.say("title", decks=titles or page.say("no_deck"))
    where = server or page.say("every_server")
    about = (
        page.say("about", server=where, when=page.number(f"{made:%Y-%m-%d %H:%M}"))
        if made
        else page.say("about_undated", server=where)
    )
    flagged = sum(1 for row in rows if row.flags)
    parts = []
    for deck_id in dict.fromkeys(row.deck_id for row in rows):
        deck = decks.get(deck_id)
        mine = [row for row in rows if row.deck_id == deck_id]
        name = pick(deck.title, deck.locale_or_default(page.loc)) if deck else deck_id
        whole = [w for w in warnings if w.question is None and deck and w.path == deck.source]
        parts.append(
            f'<section class="deck" id="deck-{escape(deck_id)}">'
            f"<h2>{escape(name)} <small>({escape(deck_id)})</small></h2>"
            f"{_deck_map(page, deck, mine) if deck else ''}{_warnings_html(whole, page.loc)}"
            + "".join(_question(page, row, deck, reports, warnings) for row in mine)
            + "</section>"
        )
    return f"""<!doctype html>
<html lang="{escape(page.loc)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{STYLE}</style></head><body>
<header><h1>{escape(title)}</h1>
<p class="about">{escape(about)}</p></header>
<section class="guide">
<p>{escape(page.say("summary", questions=len(rows), flagged=flagged, enough=ENOUGH))}</p>
<p class="letters">{escape(page.say("letters"))}</p>
<p>{escape(page.say("discrimination"))}</p>
<p class="legend">{escape(page.say("legend"))}
<span class="keyed"><span class="key" style="background: {RIGHT}"></span>\
{escape(page.say("right_choice"))}</span>
<span class="keyed"><span class="key" style="background: {WRONG}"></span>\
{escape(page.say("wrong_choice"))}</span></p>
</section>
{"".join(parts)}
</body></html>
"""
