"""Review of misses on Discord: the question due, privately, with buttons A to E; a click's
feedback replaces that message and the next question due (or "done") follows, as a run goes
(`buttons.RunButton`). Also `/quiz stats`' button that reviews the weakest topic.

The state lives in the custom_id, so the buttons work after a restart: the question's
`card_key`, the number of the review answer it was shown for (a second click on it stores
nothing), the choice as shown, and the topic the review keeps to, when it fits in Discord's
100 characters (else the review goes on over every topic).
"""

from __future__ import annotations

import re
from typing import Any, Self

import discord

from bot.discord import embeds as render
from bot.discord.clicks import take
from bot.discord.components import Button, button, stopped_view
from bot.discord.replies import send, update
from bot.discord.reports import report_button
from bot.domain.post import LETTERS
from bot.domain.review import ReviewDone, ReviewFeedback, ReviewStep
from bot.presentation.review_messages import (
    Weakest,
    review_answer,
    review_done,
    review_question,
)
from bot.service.clicks import Outcome, ReviewAnswer, Reviewed, ReviewStarted, StartReview

CUSTOM_ID = 100
LABEL = 80
"""Discord's limits for a button's custom_id and label."""
REVIEW = re.compile(
    r"quiz:v:(?P<key>[0-9a-f]{12}):(?P<number>[0-9]{1,9}):(?P<choice>[0-4])(?::(?P<tag>.+))?",
    re.DOTALL,
)
TOPIC = re.compile(r"quiz:t:(?P<tag>.+)", re.DOTALL)
"""The weakest-topic button: starts a review of that topic."""


def review_id(key: str, number: int, choice: int, tag: str | None) -> str:
    """The custom_id of a review button, with the topic if it fits."""
    custom_id = f"quiz:v:{key}:{number}:{choice}"
    with_tag = f"{custom_id}:{tag}"
    return with_tag if tag and len(with_tag) <= CUSTOM_ID else custom_id


class ReviewButton(discord.ui.DynamicItem[Button], template=REVIEW):
    """Choice `choice` (as shown) of review answer `number` to the question `key` names."""

    def __init__(
        self,
        key: str,
        number: int,
        choice: int,
        tag: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
    ) -> None:
        custom_id = review_id(key, number, choice, tag)
        super().__init__(button(custom_id, LETTERS[choice], style, disabled))
        self.key = key
        self.number = number
        self.choice = choice
        self.tag = tag

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["key"], int(match["number"]), int(match["choice"]), match["tag"])

    async def callback(self, interaction: discord.Interaction) -> None:
        intent = ReviewAnswer(self.key, self.number, self.choice, self.tag)
        await take(interaction, intent, lambda said: self._reviewed(interaction, said))

    async def _reviewed(self, interaction: discord.Interaction, said: Outcome) -> None:
        """Stored, then the clicked question keeps its text and gains the feedback; what
        comes next is a new private message, a follow-up on this click's own token."""
        if not isinstance(said, Reviewed):
            return
        feedback = said.feedback
        msg = review_answer(feedback)
        shown = interaction.message.embeds[:1] if interaction.message else []
        card = render.review_answer(msg, None if feedback.duplicate else feedback.correct)
        view = answered_view(self.number, self.tag, feedback, msg.report_label)
        await update(interaction, embeds=[*shown, card], view=view)
        await send_review(interaction, feedback.next)


class TopicButton(discord.ui.DynamicItem[Button], template=TOPIC):
    """Starts a review of topic `tag` (the weakest, on one's own `/quiz stats`)."""

    def __init__(self, tag: str, label: str = "") -> None:
        shown = render.clip(label or tag, LABEL)
        super().__init__(button(f"quiz:t:{tag}", shown, discord.ButtonStyle.primary))
        self.tag = tag

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["tag"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await take(interaction, StartReview(self.tag), lambda said: _started(interaction, said))


async def _started(interaction: discord.Interaction, said: Outcome) -> None:
    if isinstance(said, ReviewStarted):
        await send_review(interaction, said.step)


async def send_review(interaction: discord.Interaction, step: ReviewStep | ReviewDone) -> None:
    """The question due, privately, with its buttons; or that nothing is (and when)."""
    if isinstance(step, ReviewDone):
        await send(interaction, content=review_done(step))
        return
    card = render.review_question(review_question(step))
    await send(interaction, embeds=[card], view=review_view(step))


def review_view(step: ReviewStep) -> discord.ui.View:
    return stopped_view(
        *(ReviewButton(step.card.key, step.number, i, step.tag) for i in range(len(step.order)))
    )


def answered_view(
    number: int, tag: str | None, feedback: ReviewFeedback, report_label: str | None
) -> discord.ui.View:
    """The answered question's buttons, disabled: the right one green, a wrong pick red;
    below them, Report a problem."""
    right = feedback.order.index(feedback.question.answer)
    picked = None if feedback.choice is None else feedback.order.index(feedback.choice)

    def style(i: int) -> discord.ButtonStyle:
        if i == right:
            return discord.ButtonStyle.success
        return discord.ButtonStyle.danger if i == picked else discord.ButtonStyle.secondary

    key = feedback.card.key
    return stopped_view(
        *(
            ReviewButton(key, number, i, tag, style(i), disabled=True)
            for i in range(len(feedback.order))
        ),
        *report_button(key, report_label, row=1),
    )


def topic_view(weakest: Weakest | None) -> discord.ui.View | None:
    """The weakest-topic button, if there is one and its topic fits in a custom_id."""
    if weakest is None or len(f"quiz:t:{weakest.tag}") > CUSTOM_ID:
        return None
    return stopped_view(TopicButton(weakest.tag, weakest.label))
