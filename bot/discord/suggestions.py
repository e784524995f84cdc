"""`/quiz suggest` and `/quizadmin suggestions` on Discord: the form, its coaching, the queue.

The form is a modal of five inputs. Sent, it is kept as the author's draft at once (a form
Discord closes leaves no trace, so what was sent is what is kept); a field the form cannot
take is said privately with an Edit button that reopens it filled in. Otherwise the lint
coaches privately (Edit, Submit anyway), or, finding nothing, sends it to the queue. The
queue is private to the admin, five suggestions a message; Approve, Edit (the form, filled
in) and Reject (a form for the reason) act on it, and the author is told by DM.
"""

from __future__ import annotations

import re
from typing import Any, Self

import discord

from bot.discord import embeds as render
from bot.discord import suggestion_views as views
from bot.discord.clicks import take
from bot.discord.components import Button, button
from bot.discord.context import client_of
from bot.discord.identity import actor
from bot.discord.replies import in_time, send
from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.suggestion import Draft, Field, Queue
from bot.observability.clicklog import DONE, Handled
from bot.presentation import suggestion_messages as say
from bot.presentation.locales import text
from bot.presentation.messages import error_text
from bot.service.catalog import Catalog
from bot.service.clicks import Act, Outcome
from bot.service.suggestions import Suggestions

_ID = r"(?P<id>[1-9][0-9]{0,17})"
CLICK = re.compile(rf"quiz:(?P<kind>se|ss|sa|sx|sr):{_ID}")
FORMS = re.compile(rf"quiz:(?P<form>suggest|sreject)(?::{_ID})?")


def known(custom_id: str) -> bool:
    return CLICK.fullmatch(custom_id) is not None


def _services(interaction: discord.Interaction) -> tuple[Suggestions, Catalog]:
    services = client_of(interaction).services
    return services.suggestions, services.catalog


def _name(interaction: discord.Interaction) -> str:
    return interaction.user.display_name or interaction.user.name


def approver(interaction: discord.Interaction) -> Actor:
    """The caller, if they may decide suggestions: Manage Server, or named (their id or one
    of their roles') in `[suggestions] approvers`; else `admin_only`."""
    who = actor(interaction)
    allowed = set(client_of(interaction).services.config.file.suggestions.approvers)
    roles = {str(role.id) for role in getattr(interaction.user, "roles", ())}
    if who.is_admin or who.user_id in allowed or roles & allowed:
        return Actor(who.server_id, who.user_id, True, who.locale)
    raise QuizError("admin_only")


async def open_form(interaction: discord.Interaction) -> None:
    """`/quiz suggest`: the form, filled in with the author's draft if they left one."""
    box, quiz = _services(interaction)
    who = actor(interaction)
    locale = await quiz.ui_locale(who)
    await interaction.response.send_modal(views.form(locale, await box.draft(who)))


async def show_queue(interaction: discord.Interaction) -> None:
    """`/quizadmin suggestions`: what waits, oldest first (admins)."""
    box, quiz = _services(interaction)
    who = approver(interaction)
    waiting = await in_time(interaction, box.queue(who))
    locale = await quiz.ui_locale(who)
    shown = Queue(waiting.waiting[: views.QUEUE_SHOWN], waiting.total)
    content, embeds, view = views.queue(say.queue_message(locale, shown))
    await send(interaction, content=content, embeds=embeds, view=view)


async def written_embeds(
    interaction: discord.Interaction, asker: Actor, user_id: str
) -> list[discord.Embed]:
    """`/quiz stats`: the questions the person wrote and how they play (none: no embed)."""
    box, quiz = _services(interaction)
    written = await box.written(asker, user_id)
    lines = say.written_lines(await quiz.ui_locale(asker), written)
    if not lines:
        return []
    title, *rest = lines
    body = "\n".join(render.typed(line) for line in rest)
    return [discord.Embed(title=render.esc(title), description=body or None, colour=views.COLOUR)]


class SuggestionButton(discord.ui.DynamicItem[Button], template=CLICK):
    """Edit and Submit anyway (the author's); Approve, Edit and Reject (an admin's)."""

    def __init__(self, kind: str, suggestion_id: int) -> None:
        super().__init__(
            button(views.custom_id(kind, suggestion_id), kind, discord.ButtonStyle.secondary)
        )
        self.kind = kind
        self.suggestion_id = suggestion_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["kind"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await take(interaction, Act(lambda _deadline: self._act(interaction)), _replied)

    async def _act(self, interaction: discord.Interaction) -> Handled:
        box, quiz = _services(interaction)
        if self.kind == views.EDIT:
            who = actor(interaction)
            draft = await box.draft(who)
            if draft is None:
                raise QuizError("stale_click")
            locale = await quiz.ui_locale(who)
            await interaction.response.send_modal(views.form(locale, draft))
        elif self.kind == views.SEND:
            who = actor(interaction)
            sent = await in_time(interaction, box.send_anyway(who, self.suggestion_id))
            await send(interaction, content=say.sent_text(await quiz.ui_locale(who), sent))
        elif self.kind == views.APPROVE:
            who = approver(interaction)
            done = await in_time(interaction, box.approve(who, self.suggestion_id))
            deck = quiz.decks.own.of(who.server_id)
            said = say.decided_text(await quiz.ui_locale(who), done, deck)
            await send(interaction, content=said)
        else:  # an admin's Edit or Reject: a form, filled in or for the reason
            who = approver(interaction)
            found = await box.waiting_one(who, self.suggestion_id)
            locale = await quiz.ui_locale(who)
            modal = (
                views.form(locale, found.draft, edits=found.id)
                if self.kind == views.ADMIN_EDIT
                else views.reject_form(locale, found.id, found.draft.question)
            )
            await interaction.response.send_modal(modal)
        return DONE


async def _replied(outcome: Outcome) -> None:
    """An `Act` sends its own reply (a form, or the answer as the interaction's response)."""


def typed(components: object) -> dict[str, str]:
    """Every text input's value by custom_id, read off a submission (inputs inside labels, or
    inside action rows as older clients send them); the payload is not trusted."""
    found: dict[str, str] = {}
    stack = list(components) if isinstance(components, list) else []
    while stack:
        node = stack.pop(0)
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("component"), dict):
            stack.append(node["component"])
        if isinstance(node.get("components"), list):
            stack.extend(node["components"])
        custom, value = node.get("custom_id"), node.get("value")
        if isinstance(custom, str) and isinstance(value, str):
            found[custom] = value
    return found


def is_ours(custom_id: str) -> bool:
    """Whether a form sent back is one of these (else `bot.discord.reports` takes it)."""
    return FORMS.fullmatch(custom_id) is not None


async def submitted(interaction: discord.Interaction) -> None:
    await take(interaction, Act(lambda _deadline: _form_sent(interaction)), _replied)


async def _form_sent(interaction: discord.Interaction) -> Handled:
    data: Any = interaction.data or {}
    match = FORMS.fullmatch(str(data.get("custom_id", "")))
    if match is None:
        raise QuizError("stale_click")
    values = typed(data.get("components"))
    box, quiz = _services(interaction)
    if match["form"] == "sreject":
        who = approver(interaction)
        reason = values.get("reason", "")
        done = await in_time(interaction, box.reject(who, int(match["id"] or 0), reason))
        await send(interaction, content=say.decided_text(await quiz.ui_locale(who), done, None))
        return DONE
    fields = {f: values.get(f.value, "") for f in Field}
    if match["id"]:
        await _admin_edit(interaction, approver(interaction), int(match["id"]), fields)
        return DONE
    who = actor(interaction)
    locale = await quiz.ui_locale(who)
    refused = Draft.typed(fields).refusal()
    if refused is not None:
        kept = await box.keep(who, _name(interaction), fields)  # nothing typed is lost
        field, error = refused
        said = f"{say.form_text(locale).labels[field]}: {error_text(error, locale)}"
        view = discord.ui.View(timeout=None)
        view.add_item(
            button(
                views.custom_id(views.EDIT, kept.id),
                text(locale, "suggest.edit"),
                discord.ButtonStyle.primary,
            )
        )
        view.stop()
        await send(interaction, content=said, view=view)
        return DONE
    checked = await in_time(interaction, box.check(who, _name(interaction), fields))
    if checked.sent is not None:
        await send(interaction, content=say.sent_text(locale, checked.sent, clean=True))
    else:
        embed, view = views.coaching(locale, checked)
        await send(interaction, embeds=[embed], view=view)
    return DONE


async def _admin_edit(
    interaction: discord.Interaction, who: Actor, suggestion_id: int, fields: dict[Field, str]
) -> None:
    box, quiz = _services(interaction)
    locale = await quiz.ui_locale(who)
    await in_time(interaction, box.rewrite(who, suggestion_id, fields))
    await send(interaction, content=text(locale, "suggest.edited", id=suggestion_id))
