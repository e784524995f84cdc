"""A few hundred simulated players answering a deck with planted questions: a too easy one, a
too hard one, one with a wrong choice nobody picks, one that strong players miss and weak
players get right, and ordinary ones that tell players apart. Deterministic: no randomness."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

PLAYERS = 300
DECK = "planted"
ORDINARY = ("ordinary-1", "ordinary-2", "ordinary-3", "ordinary-4")
PLANTED = {
    "too-easy": "too easy",
    "too-hard": "too hard",
    "dead-choice": "a wrong choice nobody picks",
    "backwards": "negative discrimination",
}
QUESTIONS = (*ORDINARY, *PLANTED)
T0 = datetime(2026, 11, 2, 9, tzinfo=UTC)


def _draw(player: int, question: int) -> float:
    """A fixed number in [0, 1) per (player, question), spread evenly."""
    return ((player * 7919 + question * 104729) % 1000) / 1000


def choice(player: int, question: str) -> int:
    """What `player` (ability player / PLAYERS) picks; choice 0 is the right one of 4."""
    ability = player / PLAYERS
    index = QUESTIONS.index(question)
    draw = _draw(player, index)
    right = {
        "too-easy": draw < 0.98,
        "too-hard": draw < 0.10,
        "backwards": ability < 0.5,
    }.get(question, draw < 0.25 + 0.6 * ability)
    if right:
        return 0
    if question == "dead-choice":
        return 1 + int(draw * 2)  # 1 or 2: choice 3 is never picked
    return 1 + int(draw * 3)


def answers() -> Iterator[tuple[str, str, int, datetime]]:
    """(user, question, choice, when) for every player's one try at every question."""
    for player in range(PLAYERS):
        for n, question in enumerate(QUESTIONS):
            when = T0 + timedelta(minutes=player, seconds=n)
            yield f"U{player:03}", question, choice(player, question), when


def deck_yaml() -> str:
    """The deck file: four choices per question, the first one right."""
    lines = [f"id: {DECK}", "title: Planted questions", "locales: [en]", "questions:"]
    for question in QUESTIONS:
        lines += [
            f"  - id: {question}",
            f'    text: "The question called {question}?"',
            "    choices: [right, wrong one, wrong two, wrong three]",
            "    answer: 0",
            f'    explanation: "Because {question}."',
        ]
    return "\n".join(lines) + "\n"
