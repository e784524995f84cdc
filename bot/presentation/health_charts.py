"""The question-health report's pictures, as inline SVG: a few rectangles, circles, lines and
texts per chart, so the page needs no network, no script and no plotting library.

Written by hand rather than with matplotlib: a chart here is a dozen elements (matplotlib's
SVG of the same is tens of kilobytes of glyph paths), the browser lays out the labels, so
Bengali is shaped as in the rest of the page (matplotlib does not shape Bengali), and the
elements carry the figures they draw (`data-*`), which the tests read back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from bot.domain.health import TOO_EASY, TOO_HARD, QuestionHealth

LETTERS = "ABCDE"
RIGHT, WRONG, TRACK = "#2e7d32", "#90a4ae", "#eceff1"
FLAGGED, PLAIN = "#e65100", "#37474f"
BAR = 300
"""Pixels of a bar picked by every first try: bar lengths are shares, comparable across
questions."""
ROW = 26
SVG = 'xmlns="http://www.w3.org/2000/svg" role="img"'


def _n(value: float) -> str:
    """A coordinate, short: 12.5, 300, 0."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def choice_bars(
    row: QuestionHealth,
    answer: int | None,
    label: str,
    said: Callable[[int, float | None, bool], str],
) -> str:
    """One horizontal bar per choice, in deck order, as long as its share of first tries on
    a grey track of the full length; the right one green, its label saying so even when
    nobody picked it. `said(count, share, right)` writes a bar's label."""
    rows = []
    for i, (choice, count) in enumerate(sorted(row.picks.items())):
        share = count / row.answered if row.answered else None
        width = BAR * (share or 0.0)
        right = choice == answer
        y = i * ROW
        rows.append(
            f'<g class="choice{" right" if right else ""}" data-choice="{LETTERS[choice]}" '
            f'data-count="{count}" data-share="{share if share is not None else ""}">'
            f'<text x="4" y="{y + 17}" font-weight="bold">{LETTERS[choice]}</text>'
            f'<rect x="24" y="{y + 5}" width="{BAR}" height="16" fill="{TRACK}"/>'
            f'<rect class="bar" x="24" y="{y + 5}" width="{_n(width)}" height="16" '
            f'fill="{RIGHT if right else WRONG}"/>'
            f'<text x="{BAR + 32}" y="{y + 17}"{" fill=" + repr(RIGHT) if right else ""}>'
            f"{escape(said(count, share, right))}</text></g>"
        )
    height = ROW * len(row.picks) + 4
    return (
        f'<svg {SVG} class="choices" width="{BAR + 220}" height="{height}" '
        f'viewBox="0 0 {BAR + 220} {height}" aria-label="{escape(label)}">'
        f"<title>{escape(label)}</title>{''.join(rows)}</svg>"
    )


@dataclass(frozen=True)
class Point:
    """A question on the deck's map."""

    number: int
    """Its position in the deck, 1-based: the label on the map."""
    question_id: str
    right: float
    discrimination: float
    flagged: bool
    link: str
    """The page anchor of the question's section."""


W, H = 560, 380
LEFT, RIGHT_EDGE, TOP, BOTTOM = 60, 20, 30, 56


def _x(share: float) -> float:
    return LEFT + share * (W - LEFT - RIGHT_EDGE)


def _y(discrimination: float) -> float:
    """-1 at the bottom, +1 at the top."""
    return TOP + (1 - (discrimination + 1) / 2) * (H - TOP - BOTTOM)


def _place(
    x: float, y: float, r: float, width: float, taken: list[tuple[float, float, float, float]]
) -> tuple[float, float, str, bool]:
    """Where a point's label goes: right of it, left, above or below, whichever covers no
    other label or point; else further out to the right, joined to its point by a line.
    Returns the text's x, baseline y, anchor and whether a leader line is needed."""

    def box(lx: float, ly: float, anchor: str) -> tuple[float, float, float, float]:
        left = {"start": lx, "end": lx - width, "middle": lx - width / 2}[anchor]
        return (left, ly - 11, width, 13)

    def free(b: tuple[float, float, float, float]) -> bool:
        return not any(
            b[0] < o[0] + o[2] and o[0] < b[0] + b[2] and b[1] < o[1] + o[3] and o[1] < b[1] + b[3]
            for o in taken
            if not (o[0] + 7 == x and o[1] + 7 == y)  # its own point
        )

    tries = [
        (x + r + 3, y + 4, "start", False),
        (x - r - 3, y + 4, "end", False),
        (x, y - r - 4, "middle", False),
        (x, y + r + 13, "middle", False),
    ]
    tries += [(x + r + 14, y + 4 + step, "start", True) for step in (-14, 14, -28, 28, -42, 42)]
    for lx, ly, anchor, leader in tries:
        b = box(lx, ly, anchor)
        if free(b):
            taken.append(b)
            return lx, ly, anchor, leader
    lx, ly, anchor, leader = tries[0]
    taken.append(box(lx, ly, anchor))
    return lx, ly, anchor, leader


def deck_map(points: Sequence[Point], words: dict[str, str], number: Callable[[str], str]) -> str:
    """Difficulty (share right on the first try, left to right) against discrimination (bottom
    to top), one labelled point per question; flagged ones big and orange. The band between
    too hard and too easy, above zero, is where a question teaches and tells players apart.
    `words`: the axis titles and band names (`x`, `y`, `hard`, `easy`, `label`); `number`
    writes a figure in the page's digits."""
    grid = []
    for share in (0, 0.25, 0.5, 0.75, 1):
        gx = _n(_x(share))
        grid.append(
            f'<line x1="{gx}" y1="{TOP}" x2="{gx}" y2="{H - BOTTOM}" stroke="#eceff1"/>'
            f'<text x="{gx}" y="{H - BOTTOM + 16}" text-anchor="middle">'
            f"{number(f'{round(share * 100)}%')}</text>"
        )
    for d in (-1, -0.5, 0, 0.5, 1):
        gy = _n(_y(d))
        grid.append(
            f'<line x1="{LEFT}" y1="{gy}" x2="{W - RIGHT_EDGE}" y2="{gy}" '
            f'stroke="{"#90a4ae" if d == 0 else "#eceff1"}"/>'
            f'<text x="{LEFT - 6}" y="{_n(_y(d) + 4)}" text-anchor="end">'
            f"{number(f'{d:+.1f}' if d else '0')}</text>"
        )
    band = (
        f'<rect class="band" x="{_n(_x(TOO_HARD))}" y="{TOP}" '
        f'width="{_n(_x(TOO_EASY) - _x(TOO_HARD))}" height="{_n(_y(0) - TOP)}" '
        f'fill="#e8f5e9"/>'
        f'<line x1="{_n(_x(TOO_HARD))}" y1="{TOP}" x2="{_n(_x(TOO_HARD))}" y2="{H - BOTTOM}" '
        f'stroke="#8d6e63" stroke-dasharray="4 3"/>'
        f'<line x1="{_n(_x(TOO_EASY))}" y1="{TOP}" x2="{_n(_x(TOO_EASY))}" y2="{H - BOTTOM}" '
        f'stroke="#8d6e63" stroke-dasharray="4 3"/>'
        f'<text x="{LEFT}" y="{TOP - 10}" fill="#8d6e63">◂ {escape(words["hard"])}</text>'
        f'<text x="{W - RIGHT_EDGE}" y="{TOP - 10}" text-anchor="end" fill="#8d6e63">'
        f"{escape(words['easy'])} ▸</text>"
    )
    dots = []
    taken: list[tuple[float, float, float, float]] = [
        (_x(p.right) - 7, _y(p.discrimination) - 7, 14, 14) for p in points
    ]  # the points themselves: no label covers one
    for p in sorted(points, key=lambda p: p.flagged):  # flagged ones drawn last, on top
        x, y = _x(p.right), _y(p.discrimination)
        r = 7 if p.flagged else 4.5
        colour = FLAGGED if p.flagged else PLAIN
        text = number(str(p.number))
        lx, ly, anchor, leader = _place(x, y, r, 8 * len(text), taken)
        dots.append(
            f'<a href="#{escape(p.link)}"><g class="point{" flagged" if p.flagged else ""}" '
            f'data-question="{escape(p.question_id)}" data-right="{p.right}" '
            f'data-discrimination="{p.discrimination}">'
            f"<title>{escape(p.question_id)}</title>"
            + (
                f'<line x1="{_n(x)}" y1="{_n(y)}" x2="{_n(lx - 2)}" y2="{_n(ly - 4)}" '
                f'stroke="{colour}" stroke-width="0.8"/>'
                if leader
                else ""
            )
            + f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{r}" fill="{colour}" '
            f'stroke="{"#bf360c" if p.flagged else "white"}" stroke-width="1.5"/>'
            f'<text x="{_n(lx)}" y="{_n(ly)}" text-anchor="{anchor}" fill="{colour}"'
            f"{' font-weight=' + repr('bold') if p.flagged else ''}>{text}</text></g></a>"
        )
    axes = (
        f'<text x="{_n((LEFT + W - RIGHT_EDGE) / 2)}" y="{H - 12}" text-anchor="middle">'
        f"{escape(words['x'])}</text>"
        f'<text transform="translate(16 {_n((TOP + H - BOTTOM) / 2)}) rotate(-90)" '
        f'text-anchor="middle">{escape(words["y"])}</text>'
    )
    return (
        f'<svg {SVG} class="map" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        f'aria-label="{escape(words["label"])}"><title>{escape(words["label"])}</title>'
        f"{band}{''.join(grid)}{axes}{''.join(dots)}</svg>"
    )
