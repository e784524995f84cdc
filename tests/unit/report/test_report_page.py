"""What a deck author reads in the question-health report: the right answer in words even
when nobody picked it, counts and percentages, the header, full ids, one minimum sample for
every flag, and the deck lint's warnings beside the figures."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.decks.lint import lint
from bot.decks.loading import load_decks
from bot.domain.health import ENOUGH, Flag, Try, health
from bot.presentation.health_report import html, table, warning_list

LONG_ID = "a-question-id-much-longer-than-thirty-four-characters"
DECK = """\
id: health-page
title: {en: "Health page deck", bn: "হেলথ পেজ ডেক"}
locales: [en, bn]
questions:
  - id: LONG_ID
    text: {en: "Which link joins the GPUs of a node?", bn: "নোডের GPU-গুলো কোন লিঙ্কে যুক্ত?"}
    choices:
      - {en: "NVLink", bn: "NVLink"}
      - {en: "Ethernet", bn: "Ethernet"}
      - {en: "InfiniBand", bn: "InfiniBand"}
    answer: 0
    explanation:
      en: "NVLink joins the GPUs inside a node."
      bn: "নোডের ভেতরে GPU-গুলো NVLink-এ যুক্ত।"
  - id: told-by-length
    text:
      en: "What does each GPU hold in data parallelism?"
      bn: "ডেটা প্যারালেলিজমে প্রতিটি GPU-তে কী থাকে?"
    choices:
      - {en: "One layer", bn: "একটি লেয়ার"}
      - {en: "A full copy of the model, weights and all", bn: "মডেলের পুরো একটি কপি, সব ওয়েট সহ"}
      - {en: "Half a layer", bn: "অর্ধেক লেয়ার"}
    answer: 1
    explanation: {en: "Every GPU keeps the whole model.", bn: "প্রতিটি GPU পুরো মডেল রাখে।"}
""".replace("LONG_ID", LONG_ID)
T0 = datetime(2026, 12, 1, 9, tzinfo=UTC)


def _deck(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "health-page.yaml"
    path.write_text(DECK, encoding="utf-8")
    report = load_decks([path])
    assert [str(p) for p in report.problems] == []
    (deck,) = report.decks
    return deck, lint(deck, report.places[deck.id])


def _tries(question: str, choices: list[int], right: int) -> list[Try]:
    return [
        Try(f"U{n}", "health-page", question, c, c == right, T0 + timedelta(minutes=n))
        for n, c in enumerate(choices)
    ]


def test_the_right_answer_is_named_even_when_nobody_picked_it(tmp_path: Path) -> None:
    deck, warnings = _deck(tmp_path)
    tries = _tries(LONG_ID, [1, 1, 2, 1], right=0)
    rows = health(tries, {("health-page", q.id): (len(q.choices), q.answer) for q in deck})
    made = datetime(2026, 12, 4, 12, 30, tzinfo=UTC)
    page = html(rows, {deck.id: deck}, "en", server="slack:T1", made=made, warnings=warnings)
    section = page.split(f'id="q-health-page-{LONG_ID}"')[1].split("</article>")[0]
    assert f"<h3>Question 1 · {LONG_ID}</h3>" in section
    assert 'Right answer: <b lang="en">A. NVLink</b>' in section
    assert '<li class="right">NVLink</li>' in section
    # Counts and percentages on every bar; the right one's label says so though it is empty.
    labels = re.findall(r"<text x=\"[\d.]+\" y=\"\d+\"[^>]*>([^<]*\(\d+%\)[^<]*)</text>", section)
    assert labels == ["0 (0%) ✓ right answer", "3 (75%)", "1 (25%)"]
    assert "<h1>Question health: Health page deck</h1>" in page
    assert "Server: slack:T1 · made 2026-12-04 12:30 UTC" in page
    assert "the right answer" in page.split('class="legend"')[1].split("</p>")[0]


def test_the_terminal_table_shows_full_ids_counts_and_shares(tmp_path: Path) -> None:
    deck, _ = _deck(tmp_path)
    tries = _tries(LONG_ID, [1, 1, 2, 1], right=0)
    rows = health(tries, {("health-page", q.id): (len(q.choices), q.answer) for q in deck})
    lines = table(rows, {deck.id: deck}).splitlines()
    (row,) = [line for line in lines if line.startswith(f"health-page/{LONG_ID} ")]
    assert "*A:0 0% B:3 75% C:1 25%" in row
    assert lines[-1].endswith("* marks the right answer")


def test_the_report_shows_the_deck_lint_warnings(tmp_path: Path) -> None:
    deck, warnings = _deck(tmp_path)
    assert [w.name for w in warnings] == ["length-tell", "length-tell"]
    text = warning_list(warnings)
    assert text.splitlines()[0] == "Deck warnings (2):"
    assert "the right answer is the longest choice by far in 'en'" in text
    rows = health([], {("health-page", q.id): (len(q.choices), q.answer) for q in deck})
    page = html(rows, {deck.id: deck}, "en", warnings=warnings)
    section = page.split('id="q-health-page-told-by-length"')[1].split("</article>")[0]
    assert section.count("[length-tell]</code></li>") == 2


def test_every_flag_waits_for_the_same_minimum_sample() -> None:
    key = ("d", "q")
    few = _tries("q", [0] * (ENOUGH - 1), right=0)
    assert (
        health([Try(t.user_id, "d", "q", 0, True, t.at) for t in few], {key: (4, 0)})[0].flags == ()
    )
    enough = [Try(f"U{n}", "d", "q", 0, True, T0 + timedelta(minutes=n)) for n in range(ENOUGH)]
    assert health(enough, {key: (4, 0)})[0].flags == (Flag.TOO_EASY,)
    wrong = [Try(f"U{n}", "d", "q", 1, False, T0 + timedelta(minutes=n)) for n in range(ENOUGH)]
    assert Flag.TOO_HARD not in health(wrong[:-1], {key: (4, 0)})[0].flags
    assert Flag.TOO_HARD in health(wrong, {key: (4, 0)})[0].flags
