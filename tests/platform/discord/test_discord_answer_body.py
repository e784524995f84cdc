"""A click's private answer is built once per post, language and click and given each
person's footer (`fastpath.answer_body`); what Discord receives is the reply built whole, for every
kind of click, after a deck is reloaded, and for a reply too long to leave room for a
footer."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from bot.decks.model import Deck, Question
from bot.discord.buttons import _answer_parts, answer_reply
from bot.discord.fastpath import _FRAMES, answer_body, private_reply
from bot.domain.answer import AnswerResult
from bot.domain.post import PostView
from bot.domain.records import AnswerStatus, PostRecord, Totals
from tests.factories import deck

AT = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def _result(
    source: Deck,
    question: Question,
    status: AnswerStatus,
    choice: int | None,
    locale: str,
    totals: Totals,
    streak: int = 0,
    practice: bool = False,
) -> AnswerResult:
    post = PostRecord(
        id=7,
        server_id="discord:1",
        channel_id="2",
        deck_id=source.id,
        question_id=question.id,
        order=(2, 0, 1),
        locale=locale,
        poster_id="3",
        season=1,
        opened_at=AT,
    )
    view = PostView(post, source, question, answered=4)
    other = source.other_locale(locale)
    return AnswerResult(status, view, choice, locale, other, totals, streak, practice=practice)


def _sent(result: AnswerResult) -> Any:
    return json.loads(answer_body(result, _answer_parts))


def _whole(result: AnswerResult) -> Any:
    card, view = answer_reply(result)
    return json.loads(private_reply(embeds=[card], view=view))


def test_every_kind_of_click_gets_the_reply_built_whole() -> None:
    _FRAMES.clear()
    source = deck()
    question = source.questions[0]
    kinds = [(AnswerStatus.NEW, c) for c in range(3)] + [
        (AnswerStatus.DUPLICATE, c) for c in range(3)
    ]
    kinds.append((AnswerStatus.CLOSED, None))
    for (status, choice), locale, streak, practice in itertools.product(
        kinds, ("en", "bn"), (0, 4), (False, True)
    ):
        for person, totals in enumerate((Totals(1, 1, 1), Totals(30, 12, 250))):
            result = _result(source, question, status, choice, locale, totals, streak, practice)
            sent = _sent(result)
            assert sent == _whole(result), (status, choice, locale, streak, practice, person)
    sent = _sent(_result(source, question, AnswerStatus.NEW, 1, "bn", Totals(9, 3, 3), 5))
    footer = sent["data"]["embeds"][0]["footer"]["text"]
    assert "৯টার মধ্যে ৩টা ঠিক" in footer and "রিভিউ" in footer


def test_a_reloaded_deck_is_shown_as_it_is_now() -> None:
    _FRAMES.clear()
    source = deck()
    question = source.questions[0]
    before = _sent(_result(source, question, AnswerStatus.NEW, 0, "en", Totals(1, 1, 1)))
    assert "Because 1." in before["data"]["embeds"][0]["description"]
    edited = replace(question, explanation={"en": "Edited.", "bn": "বদলানো।"})
    reloaded = replace(source, questions=(edited, *source.questions[1:]))
    after = _result(reloaded, edited, AnswerStatus.NEW, 0, "en", Totals(2, 2, 2))
    assert "Edited." in _sent(after)["data"]["embeds"][0]["description"]
    assert _sent(after) == _whole(after)


def test_a_reply_too_long_for_a_footer_is_built_whole_and_fits() -> None:
    _FRAMES.clear()
    source = deck(locales=("en",))
    long = "Long *text* " * 700
    question = replace(source.questions[0], explanation={"en": long})
    source = replace(source, questions=(question,))
    result = _result(source, question, AnswerStatus.NEW, 1, "en", Totals(3, 1, 1), 3)
    sent = _sent(result)
    assert sent == _whole(result)
    embed = sent["data"]["embeds"][0]
    shown = sum(len(embed.get(k, "")) for k in ("title", "description"))
    assert shown + len(embed["footer"]["text"]) <= 6000
    assert not _FRAMES
