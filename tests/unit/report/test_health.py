"""The question-health rules on simulated players: the planted questions, and only they, carry
their flags; first tries only count."""

from __future__ import annotations

from datetime import timedelta

from bot.domain.health import Flag, Try, health
from tests.unit.report.simulation import DECK, ORDINARY, PLANTED, QUESTIONS, answers


def _tries() -> list[Try]:
    return [Try(u, DECK, q, c, c == 0, when) for u, q, c, when in answers()]


def _report() -> dict[str, tuple[str, ...]]:
    rows = health(_tries(), {(DECK, q): (4, 0) for q in QUESTIONS})
    return {row.question_id: tuple(flag.value for flag in row.flags) for row in rows}


def test_each_planted_question_has_its_flag_and_the_ordinary_ones_none() -> None:
    flags = _report()
    for question, flag in PLANTED.items():
        assert flags[question] == (flag,), (question, flags[question])
    for question in ORDINARY:
        assert flags[question] == (), (question, flags[question])


def test_figures_of_a_question() -> None:
    rows = {r.question_id: r for r in health(_tries(), {(DECK, q): (4, 0) for q in QUESTIONS})}
    easy, backwards, ordinary = rows["too-easy"], rows["backwards"], rows["ordinary-1"]
    assert easy.answered == 300 and easy.right >= 0.95
    assert sum(easy.picks.values()) == 300
    assert backwards.discrimination is not None and backwards.discrimination < -0.5
    assert ordinary.discrimination is not None and ordinary.discrimination > 0.3
    assert rows["dead-choice"].picks[3] == 0


def test_only_the_first_try_counts() -> None:
    tries = _tries()
    later = [
        Try(t.user_id, t.deck_id, t.question_id, 0, True, t.at + timedelta(days=1))
        for t in tries
        if t.question_id == "too-hard"
    ]
    rows = health(tries + later, {(DECK, "too-hard"): (4, 0)})
    assert rows[0].answered == 300 and rows[0].flags == (Flag.TOO_HARD,)


def test_a_question_nobody_answered_is_listed_without_flags() -> None:
    (row,) = health([], {(DECK, "q"): (3, 0)})
    assert (row.answered, row.picks, row.discrimination, row.flags) == (
        0,
        {0: 0, 1: 0, 2: 0},
        None,
        (),
    )
