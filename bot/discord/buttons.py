"""Buttons that keep working after a restart: their state lives in the custom_id.

Each is a `DynamicItem` whose template parses the custom_id (<= 100 characters) back into
plain values, an `Intent` that the click intake (`bot.discord.clicks.take`) decides and
commits before any response; the button renders the outcome in the interaction's first
callback. Review's buttons (`bot.discord.review`) and Report a problem
(`bot.discord.reports`) live in modules of their own; `TEMPLATES` and `DYNAMIC_ITEMS`
list them all. A custom_id that no template matches (an old format, a tampered one) is
answered by the client with `error.stale_click`; one that matches but names no open post
gets the same from the core.
"""

from __future__ import annotations

import re
from typing import Any, Self

import discord

from bot.discord import embeds as render
from bot.discord import fastpath
from bot.discord.callback import post_private_reply
from bot.discord.clicks import take
from bot.discord.components import Button, button, stopped_view
from bot.discord.context import client_of
from bot.discord.replies import reply_privately, send, update
from bot.discord.reports import REPORT, ReportButton, report_button
from bot.discord.review import REVIEW, TOPIC, ReviewButton, TopicButton
from bot.domain.answer import AnswerResult
from bot.domain.post import LETTERS, PostView
from bot.domain.records import AnswerStatus
from bot.domain.review import card_key
from bot.domain.run import RunFeedback, RunStep
from bot.presentation.game_messages import locked_text
from bot.presentation.locales import text
from bot.presentation.messages import (
    answer_message,
    feedback_message,
    step_message,
    summary_message,
)
from bot.service.clicks import (
    Answer,
    Answered,
    CancelReset,
    Forget,
    Hide,
    Keep,
    Locked,
    Outcome,
    Reset,
    RunAnswer,
    RunFed,
    Said,
    Switched,
    SwitchLanguage,
)

_ID = r"[1-9][0-9]{0,17}"  # a database id as written: fits a signed 64-bit integer

ANSWER = re.compile(rf"quiz:a:(?P<post>{_ID}):(?P<choice>[0-4])")
SWITCH = re.compile(rf"quiz:l:(?P<post>{_ID}):(?P<locale>[A-Za-z0-9-]{{2,16}})")
RUN = re.compile(
    rf"quiz:r:(?P<run>{_ID}):(?P<question>[a-z0-9][a-z0-9-]{{0,63}}):(?P<choice>[0-4])"
)
RESET = re.compile(r"quiz:reset:(?P<answer>yes|no)(?::(?P<season>[0-9]{1,9}))?")
"""The season the confirm was shown for rides along; a button from before it did reads as
season 0, which never runs, so it is refused as stale."""
FORGET = re.compile(r"quiz:forget:(?P<answer>yes|no|hide|show)")
"""The buttons of /quiz privacy: delete everything (yes), keep it (no), hide or show me."""
TEMPLATES = (ANSWER, SWITCH, RUN, RESET, FORGET, REVIEW, TOPIC, REPORT)


def known(custom_id: str) -> bool:
    """Whether one of our buttons would take this custom_id."""
    return any(t.fullmatch(custom_id) for t in TEMPLATES)


class AnswerButton(discord.ui.Button[discord.ui.View]):
    """Choice `choice` (0 = A, as shown) of post `post_id`. Not a dynamic item: a click on
    it is routed by `answer_click` from the client's `on_interaction`, without the view
    discord.py would rebuild from the clicked message for every click of a burst."""

    def __init__(
        self,
        post_id: int,
        choice: int,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            label=LETTERS[choice],
            custom_id=f"quiz:a:{post_id}:{choice}",
            style=style,
            disabled=disabled,
        )


async def answer_click(interaction: discord.Interaction, match: re.Match[str]) -> None:
    """A click on choice `choice` (0 = A, as shown) of post `post`: the answer stored, then
    the private reply in the interaction's first callback."""
    post_id = int(match["post"])
    intent = Answer(post_id, int(match["choice"]))
    await take(interaction, intent, lambda said: _answered(interaction, said), post_id)


async def _answered(interaction: discord.Interaction, said: Outcome) -> None:
    """The reply to an answer: a game's "locked in", else right or wrong with the clicker's
    totals, posted as the callback (`fastpath.answer_body`) unless already answered."""
    session = client_of(interaction).reply_session
    if isinstance(said, Locked):
        result = said.result
        await reply_privately(
            interaction, session, content=locked_text(result), locale=result.locale
        )
    elif isinstance(said, Answered):
        result = said.result
        if interaction.response.is_done():
            card, view = answer_reply(result)
            await reply_privately(
                interaction, session, embeds=[card], view=view, locale=result.locale
            )
        else:
            body = fastpath.answer_body(result, _answer_parts)
            await post_private_reply(interaction, session, body, result.locale)


class SwitchButton(discord.ui.DynamicItem[Button], template=SWITCH):
    """Shows the clicker's answer to post `post_id` again, in `locale`."""

    def __init__(self, post_id: int, locale: str, label: str) -> None:
        super().__init__(button(f"quiz:l:{post_id}:{locale}", label, discord.ButtonStyle.secondary))
        self.post_id = post_id
        self.locale = locale

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        label = (
            item.label if isinstance(item, discord.ui.Button) and item.label else match["locale"]
        )
        return cls(int(match["post"]), match["locale"], label)

    async def callback(self, interaction: discord.Interaction) -> None:
        intent = SwitchLanguage(self.post_id, self.locale)
        await take(interaction, intent, lambda said: _switched(interaction, said), self.post_id)


async def _switched(interaction: discord.Interaction, said: Outcome) -> None:
    if isinstance(said, Switched):
        card, view = answer_reply(said.result)
        await update(interaction, embeds=[card], view=view)


class RunButton(discord.ui.DynamicItem[Button], template=RUN):
    """Choice `choice` (as shown) for question `question_id` of run `run_id`."""

    def __init__(
        self,
        run_id: int,
        question_id: str,
        choice: int,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
    ) -> None:
        custom_id = f"quiz:r:{run_id}:{question_id}:{choice}"
        super().__init__(button(custom_id, LETTERS[choice], style, disabled))
        self.run_id = run_id
        self.question_id = question_id
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(int(match["run"]), match["question"], int(match["choice"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        intent = RunAnswer(self.run_id, self.question_id, self.choice)
        await take(interaction, intent, lambda said: self._fed(interaction, said))

    async def _fed(self, interaction: discord.Interaction, said: Outcome) -> None:
        """The clicked question keeps its text and gains the feedback; the next question
        (or the summary) is a new private message, a follow-up on this click's own token."""
        if not isinstance(said, RunFed):
            return
        feedback = said.feedback
        shown = interaction.message.embeds[:1] if interaction.message else []
        msg = feedback_message(feedback)
        card = render.answer(msg, None if feedback.duplicate else feedback.correct)
        view = run_answered_view(self.run_id, feedback, msg.report_label)
        await update(interaction, embeds=[*shown, card], view=view)
        if feedback.next is not None:
            await send(
                interaction,
                embeds=[render.question(step_message(feedback.next))],
                view=run_view(feedback.next),
            )
        elif feedback.summary is not None:
            await send(interaction, embeds=[render.summary(summary_message(feedback.summary))])


class ResetButton(discord.ui.DynamicItem[Button], template=RESET):
    """The confirm (or cancel) of /quizadmin reset for season `season`; the core checks
    Manage Server again, and that `season` is still the running one (so pressing the confirm
    twice, or a leftover confirm, starts no second season)."""

    def __init__(self, answer: str, season: int, label: str = "") -> None:
        style = discord.ButtonStyle.danger if answer == "yes" else discord.ButtonStyle.secondary
        super().__init__(button(f"quiz:reset:{answer}:{season}", label or answer, style))
        self.answer = answer
        self.season = season

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["answer"], int(match["season"] or 0))

    async def callback(self, interaction: discord.Interaction) -> None:
        intent = Reset(self.season) if self.answer == "yes" else CancelReset()
        await take(interaction, intent, lambda said: confirmed(interaction, said))


class ForgetButton(discord.ui.DynamicItem[Button], template=FORGET):
    """The confirm (or "keep it") of /quiz privacy: the clicker's data in this server."""

    def __init__(self, answer: str, label: str = "") -> None:
        style = discord.ButtonStyle.danger if answer == "yes" else discord.ButtonStyle.secondary
        super().__init__(button(f"quiz:forget:{answer}", label or answer, style))
        self.answer = answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["answer"])

    async def callback(self, interaction: discord.Interaction) -> None:
        if self.answer == "yes":
            intent: Forget | Hide | Keep = Forget()
        elif self.answer in ("hide", "show"):
            intent = Hide(self.answer == "hide")
        else:
            intent = Keep()
        await take(interaction, intent, lambda said: confirmed(interaction, said))


async def confirmed(interaction: discord.Interaction, said: Outcome) -> None:
    """A confirm's outcome replaces the message clicked."""
    if isinstance(said, Said):
        await update(interaction, content=text(said.locale, said.key, **said.params))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    SwitchButton,
    RunButton,
    ResetButton,
    ForgetButton,
    ReviewButton,
    TopicButton,
    ReportButton,
)


def answer_reply(result: AnswerResult) -> tuple[discord.Embed, discord.ui.View | None]:
    """The private reply to a click, and its "show in the other language" and "Report a
    problem" buttons."""
    card, view, _review = _answer_parts(result)
    return card, view


def _answer_parts(
    result: AnswerResult,
) -> tuple[discord.Embed, discord.ui.View | None, str | None]:
    msg = answer_message(result)
    card = render.answer(msg, result.correct if result.status is AnswerStatus.NEW else None)
    switch = None
    if msg.switch_locale is not None and msg.switch_label is not None:
        switch = (msg.switch_locale, msg.switch_label)
    view = result.view
    key = card_key(view.deck.id, view.question.id)
    return card, _reply_view(view.post.id, switch, key, msg.report_label), msg.review


def _reply_view(
    post_id: int, switch: tuple[str, str] | None, key: str, report_label: str | None
) -> discord.ui.View | None:
    """The buttons under a reply. Built per reply: sharing one (stopped) view between a post's
    replies was measured to buy less than `make bench`'s noise (issue 33)."""
    items: list[discord.ui.Item[Any]] = []
    if switch is not None:
        items.append(SwitchButton(post_id, *switch))
    items += report_button(key, report_label)
    return stopped_view(*items) if items else None


def post_view(post: PostView) -> discord.ui.View:
    """One button per choice, labelled A to E as shown."""
    return stopped_view(*(AnswerButton(post.post.id, i) for i in range(len(post.post.order))))


def reveal_view(post: PostView) -> discord.ui.View:
    """The same buttons, disabled; the right one green."""
    right = post.post.order.index(post.question.answer)
    return stopped_view(
        *(
            AnswerButton(
                post.post.id,
                i,
                discord.ButtonStyle.success if i == right else discord.ButtonStyle.secondary,
                disabled=True,
            )
            for i in range(len(post.post.order))
        )
    )


def run_view(step: RunStep) -> discord.ui.View:
    return stopped_view(
        *(RunButton(step.run.id, step.question.id, i) for i in range(len(step.order)))
    )


def run_answered_view(
    run_id: int, feedback: RunFeedback, report_label: str | None = None
) -> discord.ui.View:
    """The answered question's buttons, disabled: the right one green, a wrong pick red;
    below them, Report a problem."""
    right = feedback.order.index(feedback.question.answer)
    picked = feedback.order.index(feedback.answer.choice)

    def style(i: int) -> discord.ButtonStyle:
        if i == right:
            return discord.ButtonStyle.success
        return discord.ButtonStyle.danger if i == picked else discord.ButtonStyle.secondary

    return stopped_view(
        *(
            RunButton(run_id, feedback.question.id, i, style(i), disabled=True)
            for i in range(len(feedback.order))
        ),
        *report_button(card_key(feedback.deck.id, feedback.question.id), report_label, row=1),
    )


def reset_view(locale: str, season: int) -> discord.ui.View:
    """Confirm and cancel for starting the season after `season`, the one running now."""
    return stopped_view(
        ResetButton("yes", season, text(locale, "reset.yes")),
        ResetButton("no", season, text(locale, "reset.no")),
    )


def privacy_view(locale: str, hidden: bool) -> discord.ui.View:
    toggle = "show" if hidden else "hide"
    return stopped_view(
        ForgetButton("yes", text(locale, "privacy.yes")),
        ForgetButton(toggle, text(locale, f"privacy.{toggle}")),
        ForgetButton("no", text(locale, "privacy.no")),
    )
