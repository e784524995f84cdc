"""Embeds drawn from the platform-neutral pieces in `bot.presentation.messages`, within
Discord's limits.

Deck text is escaped for Discord markdown here (the pieces carry it untouched); numbered
lines keep their own numbers (Discord would renumber "1. 1. 3." as a list). What players
typed (problem reports) is shown as the words they are (`typed`): no link, mention or
formatting made of it. Every length is clipped to Discord's limits, and `fit` keeps a
message's embeds under 6000 characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache

import discord
from discord.utils import escape_markdown

from bot.presentation.game_messages import WHEN
from bot.presentation.messages import (
    AnswerMessage,
    BoardMessage,
    QuestionMessage,
    RevealMessage,
    SummaryMessage,
)
from bot.presentation.review_messages import ReviewAnswer, ReviewQuestion
from bot.presentation.schedule_messages import ScheduleMessage

TITLE = 256
DESCRIPTION = 4096
FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
TOTAL = 6000
CONTENT = 2000

QUESTION = discord.Colour.blurple()
RIGHT = discord.Colour.green()
WRONG = discord.Colour.red()
NEUTRAL = discord.Colour.light_grey()

_NUMBERED = re.compile(r"^(\d+)\. ", re.MULTILINE)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


TEXTS_KEPT = 512
"""Escaped texts kept (`esc`): a burst's replies repeat its posts' deck texts, so a few
hundred serve it; each is up to a few KB, so 4,096 of them held about 8 MB."""


@lru_cache(maxsize=TEXTS_KEPT)
def esc(text: str) -> str:
    """Deck text (or a line holding it) shown literally: no markdown, no renumbered lists.

    Cached: the same deck texts go into every reply, and escaping is a handful of regex
    passes (a tenth of a click's time in a burst)."""
    return _NUMBERED.sub(r"\1\\. ", escape_markdown(text))


_URL = re.compile(r"(\w+://\S+)")
_HELD = re.compile("\x1f([0-9]{1,20})\x1f")


def held_mention(user_id: str) -> str:
    """A user mention that `typed` draws as one after escaping the line it is in (a report
    line names its reporter, and carries what they typed)."""
    return f"\x1f{user_id}\x1f"


def typed(line: str) -> str:
    """A line carrying what a player typed, shown as written: markdown escaped (a masked
    link shows its brackets), every address in a code span (Discord makes no link there),
    `<` escaped (no mention, channel or emoji of `<@...>`, `<#...>`); numbered lines keep
    their numbers. The bot's own mentions (`held_mention`) are drawn. (What players type
    holds no control characters, `bot.service.authoring`, so none forges a held mention.)"""
    parts = _URL.split(escape_markdown(line))  # addresses are left whole by the escaping
    shown = "".join(
        "`" + part.replace("`", "'") + "`" if i % 2 else part.replace("<", "\\<")
        for i, part in enumerate(parts)
    )
    return _HELD.sub(r"<@\1>", _NUMBERED.sub(r"\1\\. ", shown))


def _embed(
    title: str | None, description: str, colour: discord.Colour, footer: str = ""
) -> discord.Embed:
    embed = discord.Embed(
        title=clip(title, TITLE) if title else None,
        description=clip(description, DESCRIPTION),
        colour=colour,
    )
    if footer:
        embed.set_footer(text=clip(footer, FOOTER))
    return embed


def _paragraphs(*parts: str | None) -> str:
    return "\n\n".join(p for p in parts if p)


def question(msg: QuestionMessage, closes_at: datetime | None = None) -> discord.Embed:
    """A question with its lettered choices; the footer says how many answered. A game's
    says when it closes instead, as a countdown each reader's client keeps by itself."""
    choices = "\n".join(f"**{c.letter}.** {esc(c.text)}" for c in msg.choices)
    closes = None
    if msg.closes and closes_at is not None:
        closes = esc(msg.closes).replace(WHEN, f"<t:{int(closes_at.timestamp())}:R>")
    body = _paragraphs(esc(msg.question), choices, closes)
    return _embed(esc(msg.header), body, QUESTION, msg.footer)


def game_news(title: str, lines: list[str]) -> discord.Embed:
    """A game's announcement, standings or results; players as mentions, drawn in the body."""
    return _embed(esc(title), "\n".join(_NUMBERED.sub(r"\1\\. ", line) for line in lines), QUESTION)


def _colour(correct: bool | None) -> discord.Colour:
    return NEUTRAL if correct is None else RIGHT if correct else WRONG


def answer(msg: AnswerMessage, correct: bool | None) -> discord.Embed:
    """The private reply to a click: right or wrong, the answer, why; in the footer the
    caller's totals and, after a miss, that the question went into their review."""
    body = _paragraphs(f"**{esc(msg.answer)}**\n{esc(msg.explanation)}", msg.why and esc(msg.why))
    footer = answer_footer(msg.totals, msg.streak, msg.review)
    return _embed(msg.headline, body, _colour(correct), footer)


def answer_footer(totals: str | None, streak: str | None, review: str | None) -> str:
    """An answer's footer: the person's totals and streak, then the note that the question
    went into their review."""
    notes = " · ".join(p for p in (totals, streak) if p)
    return clip("\n".join(p for p in (notes, review) if p), FOOTER)


def review_question(msg: ReviewQuestion) -> discord.Embed:
    """A question due for review, with its lettered choices; the footer says it never scores."""
    choices = "\n".join(f"**{letter}.** {esc(choice)}" for letter, choice in msg.choices)
    return _embed(esc(msg.header), _paragraphs(esc(msg.question), choices), QUESTION, msg.footer)


def review_answer(msg: ReviewAnswer, correct: bool | None) -> discord.Embed:
    """The reply to a review answer: right or wrong, the answer, why, and when it comes back."""
    body = _paragraphs(f"**{esc(msg.answer)}**\n{esc(msg.explanation)}", msg.why and esc(msg.why))
    return _embed(msg.headline, body, _colour(correct), msg.when)


def reveal(msg: RevealMessage) -> discord.Embed:
    """A closed post: how the channel answered, as bars, then the answer and explanation."""
    rows = "\n".join(
        f"**{r.line} · {esc(r.text)}**" if r.right else f"{r.line} · {esc(r.text)}"
        for r in msg.rows
    )
    body = _paragraphs(esc(msg.question), rows, f"**{esc(msg.answer)}**\n{esc(msg.explanation)}")
    return _embed(esc(msg.header), body, RIGHT, msg.summary)


def summary(msg: SummaryMessage) -> discord.Embed:
    """The end of a run: the score, the points, what to review."""
    review = "\n".join(esc(line) for line in msg.review)
    return _embed(
        esc(msg.header), _paragraphs(f"**{msg.score}**\n{msg.points}", review, msg.closing), RIGHT
    )


def board(
    msg: BoardMessage, *, title_in_body: bool = False, literal: bool = False, players: bool = False
) -> discord.Embed:
    """A leaderboard, stats or deck list. Titles holding a mention go in the body, where
    Discord draws mentions (it shows them raw in titles); `literal` lines hold deck text,
    `players` lines what players typed (`typed`)."""
    lines = "\n".join(
        typed(line) if players else esc(line) if literal else _NUMBERED.sub(r"\1\\. ", line)
        for line in msg.lines
    )
    if title_in_body:
        return _embed(None, _paragraphs(f"**{msg.title}**", lines, msg.you), QUESTION)
    return _embed(esc(msg.title), _paragraphs(lines, msg.you), QUESTION)  # may name a deck


def schedule(msg: ScheduleMessage, *, title_in_body: bool = False) -> discord.Embed:
    """A /quizadmin schedule reply. Its lines name deck titles (escaped) and channels as
    mentions, which Discord draws in the body only: a title naming one goes in the body."""
    lines = "\n".join(esc(line) for line in msg.lines)
    if title_in_body:
        return _embed(None, _paragraphs(f"**{esc(msg.title)}**", lines), QUESTION)
    return _embed(esc(msg.title), lines, QUESTION)


def help_card(title: str, body: str) -> discord.Embed:
    return _embed(title, escape_markdown(body.strip()), QUESTION)


def total_length(embeds: Iterable[discord.Embed]) -> int:
    return sum(len(e) for e in embeds)


def fit(embeds: Sequence[discord.Embed]) -> list[discord.Embed]:
    """The embeds with the longest descriptions shortened until the message is within 6000."""
    shown = list(embeds)
    excess = total_length(shown) - TOTAL
    while excess > 0:
        longest = max(shown, key=lambda e: len(e.description or ""))
        text = longest.description or ""
        if len(text) <= 1:
            break
        longest.description = clip(text, max(1, len(text) - excess))
        excess = total_length(shown) - TOTAL
    return shown
