"""A server's own deck: its approved suggestions, as a deck every command plays.

Each server has at most one, with the id `team_deck_id(server)` (`team-t0123` for Slack's
T0123, `team-4711` for a Discord guild): ids are global, so the server's is made of its own
id; commands take the word `team` for it (`deck_choice`). Its questions keep the ids
`q<suggestion id>`, so an answer stored about one stays about it; their order is the order
they were approved in. Each question is written in one language: the deck's locales are those
of its questions (the most used first) and a question is shown as written in the others.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from bot.decks.model import Deck, Question
from bot.domain.coaching import question_of
from bot.domain.suggestion import Status, Suggestion

TEAM = "team"
"""The word for "this server's own deck" wherever a command takes a deck."""
TITLES = {"en": "Our questions", "bn": "আমাদের প্রশ্ন"}


def team_deck_id(server_id: str) -> str:
    """The id of `server_id`'s own deck: `team-` and the server's id after its platform."""
    _, _, own = server_id.partition(":")
    return f"{TEAM}-{re.sub(r'[^a-z0-9]+', '-', (own or server_id).lower()).strip('-')}"


def team_deck(
    server_id: str, approved: Iterable[Suggestion], only: str | None = None
) -> Deck | None:
    """The deck of the approved suggestions of `server_id`, in the order they were
    approved; None when it has none. `only`: in that one locale (an export in one language,
    every question as written)."""
    chosen = sorted(
        (s for s in approved if s.server_id == server_id and s.status is Status.APPROVED),
        key=lambda s: (s.decided_at or s.created_at, s.id),
    )
    if not chosen:
        return None
    counts = Counter(s.draft.locale for s in chosen)
    locales = (only,) if only else tuple(sorted(counts, key=lambda x: (-counts[x], x)))
    questions = tuple(
        _credited(question_of(s.draft, s.question_id, n, locales), s.author_name)
        for n, s in enumerate(chosen, start=1)
    )
    return Deck(
        id=team_deck_id(server_id),
        title={x: TITLES.get(x, TITLES["en"]) for x in locales},
        locales=locales,
        questions=questions,
        origin="suggested in chat",
    )


def _credited(question: Question, author_name: str | None) -> Question:
    return replace(question, credit=author_name)
