"""Report a problem, on Discord: a button on every private reply to an answer opens a form
(a modal) about that question, and the form's submission is stored before it is answered.

The button is a `DynamicItem`, so it works after a restart. The form is different:
discord.py hands a submission to a `Modal` only if this process sent it and still keeps it,
so a form opened before a restart would be dropped in silence. Every form is therefore sent
already stopped (`send_modal` keeps only a running one), its custom_id names the question
(`quiz:report:<card_key>`), and every submission reaches `submitted` through the client's
`on_interaction`, which reads the values off the payload itself: one path, restart or not.
"""

from __future__ import annotations

import re
from typing import Any, Self

import discord

from bot.decks.model import Question, pick
from bot.discord import embeds as render
from bot.discord.clicks import take
from bot.discord.components import Button, button
from bot.discord.replies import send
from bot.domain.problems import TEXT_LIMIT, Reason
from bot.presentation.locales import text
from bot.presentation.review_messages import reason_label
from bot.service.clicks import OpenReport, Outcome, Report, Reported, ReportForm, Stale

_KEY = r"(?P<key>[0-9a-f]{12})"  # bot.domain.review.card_key
REPORT = re.compile(rf"quiz:p:{_KEY}")
"""The "Report a problem" button of a reply about one question."""
FORM = re.compile(rf"quiz:report:{_KEY}")
"""The form it opens (a modal's custom_id, not a button's)."""
REASON = "reason"
DETAILS = "details"
"""The custom_ids of the form's two inputs."""

TITLE = 45
LABEL = 45
PLACEHOLDER = 100
OPTION = 100
SHOWN = 4000
"""Discord's limits: a modal's title, an input's label, a placeholder, an option's label,
a text display."""


class ReportButton(discord.ui.DynamicItem[Button], template=REPORT):
    """Opens the form about the question `key` names (`card_key`). It stores nothing, so the
    form itself is the click's first response."""

    def __init__(self, key: str, label: str = "", row: int | None = None) -> None:
        super().__init__(button(f"quiz:p:{key}", label, discord.ButtonStyle.secondary, row=row))
        self.key = key

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["key"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await take(interaction, OpenReport(self.key), lambda said: _opened(interaction, said))


async def _opened(interaction: discord.Interaction, said: Outcome) -> None:
    if isinstance(said, ReportForm):
        form = report_form(said.locale, said.key, said.question)
        await interaction.response.send_modal(form)


def report_button(key: str, label: str | None, row: int | None = None) -> list[ReportButton]:
    """The button for a reply's view, if the reply has a label for it."""
    return [ReportButton(key, label, row)] if label else []


def report_form(locale: str, key: str, question: Question) -> discord.ui.Modal:
    """The form: the question it is about, a reason (required), details (optional)."""
    form = discord.ui.Modal(
        title=render.clip(text(locale, "report.title"), TITLE), custom_id=f"quiz:report:{key}"
    )
    shown = render.clip(render.esc(pick(question.text, locale)), SHOWN)
    form.add_item(discord.ui.TextDisplay(shown))
    reasons = [
        discord.SelectOption(label=render.clip(reason_label(locale, r), OPTION), value=r.value)
        for r in Reason
    ]
    form.add_item(
        discord.ui.Label(
            text=render.clip(text(locale, "report.reason_label"), LABEL),
            component=discord.ui.Select(custom_id=REASON, options=reasons),
        )
    )
    form.add_item(
        discord.ui.Label(
            text=render.clip(text(locale, "report.details_label"), LABEL),
            component=discord.ui.TextInput(
                custom_id=DETAILS,
                style=discord.TextStyle.paragraph,
                required=False,
                max_length=TEXT_LIMIT,
                placeholder=render.clip(text(locale, "report.details_hint"), PLACEHOLDER),
            ),
        )
    )
    form.stop()  # see the module's docstring: discord.py keeps no form of ours
    return form


def form_values(components: object) -> tuple[object, str]:
    """The reason picked and the details typed, read off a submission's components (inputs
    inside labels, or inside action rows as older clients send them). The payload is not
    trusted: what is missing or malformed reads as no reason (refused) and no details."""
    reason: object = None
    details = ""
    stack = list(components) if isinstance(components, list) else []
    while stack:
        node = stack.pop(0)
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("component"), dict):  # a label
            stack.append(node["component"])
        if isinstance(node.get("components"), list):  # an action row
            stack.extend(node["components"])
        if node.get("custom_id") == REASON:
            values = node.get("values")
            reason = values[0] if isinstance(values, list) and len(values) == 1 else None
        elif node.get("custom_id") == DETAILS and isinstance(node.get("value"), str):
            details = node["value"]
    return reason, details


async def submitted(interaction: discord.Interaction) -> None:
    """A form sent back (any modal submission reaches here, see the module's docstring):
    stored, then thanked; a form that is not ours, a forged reason or a question no longer
    loaded is refused (the core says so) and nothing is stored."""
    data: Any = interaction.data or {}
    match = FORM.fullmatch(str(data.get("custom_id", "")))
    if match is None:
        intent: Report | Stale = Stale()
    else:
        reason, details = form_values(data.get("components"))
        intent = Report(match["key"], reason, details)
    await take(interaction, intent, lambda said: _thanked(interaction, said))


async def _thanked(interaction: discord.Interaction, said: Outcome) -> None:
    if isinstance(said, Reported):
        await send(interaction, content=text(said.locale, "report.thanks"))
