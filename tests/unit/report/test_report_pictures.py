"""The question-health page's pictures (issue 35): per deck a map of difficulty against
discrimination, per question a bar per choice. The page is parsed (every chart there, each
bar as long as its share, each point where its figures put it, the flagged ones apart), is in
one language, needs no network or script, and renders in a real browser where one is
installed (Debian's chromium driven by Playwright; skipped with the reason elsewhere)."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pytest

from bot.decks.loading import load_decks
from bot.decks.model import Deck
from bot.domain.health import QuestionHealth, Try, health
from bot.presentation.health_charts import BAR, FLAGGED, RIGHT, H, Point, _x, _y, deck_map
from bot.presentation.health_report import html

ROOT = Path(__file__).resolve().parents[3]
DECK = "model-pipeline-parallelism"
SVG = "{http://www.w3.org/2000/svg}"
T0 = datetime(2026, 11, 2, 9, tzinfo=UTC)


def shipped_deck() -> Deck:
    report = load_decks([ROOT / "questions" / f"{DECK}.yaml"])
    (deck,) = report.decks
    return deck


def tries(deck: Deck, players: int = 120) -> list[Try]:
    """Deterministic players of rising ability: question 2 is missed by the strong and got by
    the weak (a wrong key, say), question 5 everyone gets, question 7 nearly nobody; one wrong
    choice of question 3 nobody picks."""
    out = []
    for p in range(players):
        ability = p / players
        for n, q in enumerate(deck.questions):
            draw = ((p * 7919 + n * 104729) % 1000) / 1000
            base = (0.15, 0, 0.45, 0.3, 0, 0.05, 0, 0.4)[n]  # how easy each question is
            planted = {1: ability < 0.45, 4: True, 6: draw < 0.12}
            right = planted.get(n, draw < base + (0.9 - base) * ability)
            wrong = [i for i in range(len(q.choices)) if i != q.answer]
            if n == 2:
                wrong = wrong[:-1]
            spread = ((p * 31 + n * 17) % 97) / 97  # which wrong choice, apart from `draw`
            choice = q.answer if right else wrong[int(spread * len(wrong))]
            when = T0 + timedelta(minutes=p, seconds=n)
            out.append(Try(f"U{p:03}", deck.id, q.id, choice, right, when))
    return out


def rows_and_page(locale: str) -> tuple[Deck, list[QuestionHealth], str]:
    deck = shipped_deck()
    questions = {(deck.id, q.id): (len(q.choices), q.answer) for q in deck.questions}
    rows = health(tries(deck), questions)
    made = datetime(2026, 12, 5, 10, 30, tzinfo=UTC)
    return deck, rows, html(rows, {deck.id: deck}, locale, server="slack:T1", made=made)


def charts(page: str) -> list[ET.Element]:
    return [ET.fromstring(svg) for svg in re.findall(r"<svg .*?</svg>", page, flags=re.DOTALL)]


def test_every_chart_is_there_and_each_bar_is_as_long_as_its_share() -> None:
    deck, rows, page = rows_and_page("en")
    found = charts(page)
    maps = [svg for svg in found if svg.get("class") == "map"]
    bars = [svg for svg in found if svg.get("class") == "choices"]
    assert len(maps) == 1 and len(bars) == len(deck.questions) == len(rows)
    for svg in found:
        assert svg.get("role") == "img" and svg.find(f"{SVG}title") is not None
    for svg, row, question in zip(bars, rows, deck.questions, strict=True):
        groups = svg.findall(f"{SVG}g")
        assert [g.get("data-choice") for g in groups] == list("ABCDE"[: len(question.choices)])
        for i, group in enumerate(groups):
            bar = group.find(f"{SVG}rect[@class='bar']")
            assert bar is not None
            expected = BAR * row.picks[i] / row.answered
            assert abs(float(bar.get("width", "-1")) - expected) < 0.06
            right = i == question.answer
            assert (bar.get("fill") == RIGHT) == right
            label = "".join(group.itertext())
            assert (" ✓ right answer" in label) == right
            assert f"{row.picks[i]} ({round(100 * row.picks[i] / row.answered)}%)" in label


def test_the_deck_map_puts_each_question_where_its_figures_say() -> None:
    deck, rows, page = rows_and_page("en")
    (deck_map,) = [svg for svg in charts(page) if svg.get("class") == "map"]
    points = {g.get("data-question"): g for g in deck_map.iter(f"{SVG}g")}
    assert set(points) == {q.id for q in deck.questions}
    flagged = set()
    for row in rows:
        point = points[row.question_id]
        assert row.discrimination is not None
        circle = point.find(f"{SVG}circle")
        assert circle is not None
        assert abs(float(circle.get("cx", "0")) - _x(row.right)) < 0.06
        assert abs(float(circle.get("cy", "0")) - _y(row.discrimination)) < 0.06
        assert 0 <= float(circle.get("cy", "0")) <= H
        label = point.find(f"{SVG}text")
        assert label is not None and label.text == str(
            deck.questions.index(deck.question(row.question_id)) + 1
        )
        if "flagged" in (point.get("class") or ""):
            flagged.add(row.question_id)
            assert circle.get("fill") == FLAGGED and float(circle.get("r", "0")) > 5
    assert flagged == {row.question_id for row in rows if row.flags}
    assert {deck.questions[i].id for i in (1, 4, 6)} <= flagged  # the planted ones
    links = [a.get("href") for a in deck_map.iter(f"{SVG}a")]
    assert all(f'id="{link[1:]}"' in page for link in links if link)


def test_crowded_points_keep_their_labels_apart() -> None:
    """Thirty questions on one spot: every label is drawn, none on another; past the four
    places around a point, a label moves out with a line to its point."""
    points = [Point(n, f"q{n}", 0.6, 0.5, n % 3 == 0, f"q-{n}") for n in range(1, 31)]
    words = {"x": "x", "y": "y", "hard": "hard", "easy": "easy", "label": "map"}
    svg = ET.fromstring(deck_map(points, words, str))
    texts = [g.find(f"{SVG}text") for g in svg.iter(f"{SVG}g") if g.get("data-question")]
    assert sorted(int(t.text or 0) for t in texts if t is not None) == list(range(1, 31))
    leaders = [g for g in svg.iter(f"{SVG}g") if g.find(f"{SVG}line") is not None]
    assert 0 < len(leaders) < 30


class Nesting(HTMLParser):
    """Checks that elements close in order (void elements aside) and collects what would
    reach the network or run code."""

    VOID: ClassVar[set[str]] = {
        "meta",
        "br",
        "img",
        "input",
        "link",
        "hr",
        "rect",
        "circle",
        "line",
    }

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.outside: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.outside.append("script")
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("#"):
                self.outside.append(f"{name}={value}")
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
        self.open.pop()


@pytest.mark.parametrize("locale", ["en", "bn"])
def test_the_page_is_well_formed_self_contained_and_in_one_language(locale: str) -> None:
    _, _, page = rows_and_page(locale)
    parser = Nesting()
    parser.feed(page)
    assert parser.open == [] and parser.outside == []
    assert f'<html lang="{locale}">' in page
    words = re.sub(r"<[^>]+>", " ", page.split("<body>", 1)[1])
    english = {"answered", "right answer", "discrimination", "Question", "Server", "choice"}
    legend = page.split('<p class="legend">')[1].split("</p>")[0]
    assert legend.count('<span class="keyed">') == 2  # a swatch never wraps off its words
    assert ".keyed { white-space: nowrap; }" in page
    if locale == "bn":
        assert not [w for w in english if re.search(rf"\b{w}\b", words)]
        assert "প্রশ্নগুলোর হেলথ রিপোর্ট" in page and "প্রশ্ন ১ ·" in page
        assert "অক্ষরগুলো চয়েসগুলোকে ডেক ফাইলের ক্রমে" in page  # the letters explained
    else:
        assert not re.search("[\u0980-\u09ff]", words)  # a bilingual deck, shown in English
        assert "not the order a player saw them in" in page


def browser() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("no chromium here (Debian: apt-get install chromium); CI does not install one")
    pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    return found


BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.mark.parametrize("locale", ["en", "bn"])
def test_the_pictures_render_in_a_real_browser(tmp_path: Path, locale: str) -> None:
    executable = browser()
    from playwright.sync_api import sync_playwright

    _, rows, page_html = rows_and_page(locale)
    page_file = tmp_path / "health.html"
    page_file.write_text(page_html, encoding="utf-8")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=executable, args=BROWSER_ARGS)
        try:
            tab = chromium.new_page(viewport={"width": 1000, "height": 900})
            asked: list[str] = []
            errors: list[str] = []
            tab.on("request", lambda r: asked.append(r.url))
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.goto(page_file.as_uri())
            assert asked == [page_file.as_uri()] and errors == []  # nothing else fetched
            sizes = tab.eval_on_selector_all(
                "svg",
                "all => all.map(s => [s.getAttribute('class'), s.getBBox().width, "
                "s.getBoundingClientRect().width, s.getBoundingClientRect().height])",
            )
            assert len(sizes) == len(rows) + 1
            assert all(box > 0 and width > 0 and height > 0 for _, box, width, height in sizes)
            widths = tab.eval_on_selector_all(
                "svg.choices",
                "all => all.map(s => [...s.querySelectorAll('rect.bar')]"
                ".map(r => r.getBoundingClientRect().width))",
            )
            for drawn, row in zip(widths, rows, strict=True):
                scale = (drawn[0] or 1) / (BAR * row.picks[0] / row.answered or 1)
                for i, width in enumerate(drawn):
                    assert abs(width - scale * BAR * row.picks[i] / row.answered) < 1.5
            labels = tab.eval_on_selector_all(
                "svg.map text", "all => all.map(t => t.getComputedTextLength())"
            )
            assert all(length > 0 for length in labels)  # every label laid out (Bengali too)
            shot = tmp_path / f"report-{locale}.png"
            tab.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
        finally:
            chromium.close()
