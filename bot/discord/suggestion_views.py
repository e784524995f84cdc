"""Discord's suggestion surfaces: the form (a modal of five inputs, Discord's most), the
coaching and the admins' queue as embeds with buttons, the reject form. What members typed
is shown with `embeds.typed`: markdown, links and mentions neutralised.

Forms are sent already stopped and read back off the payload (`bot.discord.reports` says
why); buttons are `DynamicItem`s (`bot.discord.suggestions`), so they work after a restart.
"""

from __future__ import annotations

import discord

from bot.discord import embeds as render
from bot.discord.components import button
from bot.domain.suggestion import LIMITS, Checked, Draft, Field
from bot.presentation import suggestion_messages as say
from bot.presentation.locales import text
from bot.service.suggestions import REASON_LIMIT

FORM = "quiz:suggest"
"""The form's custom_id; `quiz:suggest:<id>` when an admin edits suggestion <id>."""
REJECT_FORM = "quiz:sreject"
"""`quiz:sreject:<id>`: the reason an admin gives."""
EDIT, SEND, APPROVE, ADMIN_EDIT, REJECT = "se", "ss", "sa", "sx", "sr"
"""The buttons' kinds: `quiz:<kind>:<id>`."""
QUEUE_SHOWN = 5
"""Suggestions one queue message shows: a message holds five rows of buttons."""
TITLE, LABEL, PLACEHOLDER = 45, 45, 100
"""Discord's limits: a modal's title, an input's label, a placeholder."""
COLOUR = discord.Colour.blurple()


def custom_id(kind: str, suggestion_id: int) -> str:
    return f"quiz:{kind}:{suggestion_id}"


def form(locale: str, draft: Draft | None, edits: int | None = None) -> discord.ui.Modal:
    """The form, filled in with `draft` when there is one."""
    shown = say.form_text(locale)
    filled = draft.fields() if draft else {}
    modal = discord.ui.Modal(
        title=render.clip(shown.title, TITLE),
        custom_id=f"{FORM}:{edits}" if edits else FORM,
    )
    for f in Field:
        modal.add_item(
            discord.ui.Label(
                text=render.clip(shown.labels[f], LABEL),
                component=discord.ui.TextInput(
                    custom_id=f.value,
                    style=discord.TextStyle.short
                    if f is Field.RIGHT
                    else discord.TextStyle.paragraph,
                    required=f in (Field.QUESTION, Field.RIGHT, Field.WRONG),
                    max_length=LIMITS[f],
                    default=filled.get(f) or None,
                    placeholder=render.clip(shown.hints[f], PLACEHOLDER),
                ),
            )
        )
    modal.stop()
    return modal


def reject_form(locale: str, suggestion_id: int, question: str) -> discord.ui.Modal:
    modal = discord.ui.Modal(
        title=render.clip(text(locale, "suggest.reject_title"), TITLE),
        custom_id=f"{REJECT_FORM}:{suggestion_id}",
    )
    modal.add_item(discord.ui.TextDisplay(render.clip(render.typed(question), 4000)))
    modal.add_item(
        discord.ui.Label(
            text=render.clip(text(locale, "suggest.reject_label"), LABEL),
            component=discord.ui.TextInput(
                custom_id="reason", style=discord.TextStyle.paragraph, max_length=REASON_LIMIT
            ),
        )
    )
    modal.stop()
    return modal


def _lines(lines: list[str]) -> str:
    return "\n".join(render.typed(line) for line in lines)


def coaching(locale: str, checked: Checked) -> tuple[discord.Embed, discord.ui.View]:
    """What the lint found, the question as written, Edit and Submit anyway."""
    shown = say.coaching(locale, checked)
    found = _lines([f"• {line}" for line in shown.findings])
    draft = _lines(say.draft_lines(locale, checked.suggestion.draft))
    embed = discord.Embed(
        title=render.clip(shown.title, 256),
        description=render.clip(f"{found}\n\n{draft}", 4096),
        colour=COLOUR,
    )
    embed.set_footer(text=render.clip(shown.note, 2048))
    view = discord.ui.View(timeout=None)
    sid = checked.suggestion.id
    view.add_item(button(custom_id(EDIT, sid), shown.edit, discord.ButtonStyle.secondary))
    view.add_item(button(custom_id(SEND, sid), shown.send, discord.ButtonStyle.primary))
    view.stop()
    return embed, view


def queue(message: say.QueueMessage) -> tuple[str, list[discord.Embed], discord.ui.View]:
    """The admins' queue: a heading, an embed per suggestion (its text and what the lint
    found), a row of Approve / Edit / Reject per suggestion."""
    content = "\n".join(x for x in (f"**{render.esc(message.title)}**", message.note) if x)
    embeds = []
    view = discord.ui.View(timeout=None)
    for row, item in enumerate(message.items[:QUEUE_SHOWN]):
        embeds.append(
            discord.Embed(
                title=render.clip(render.esc(item.heading), 256),
                description=render.clip(f"{_lines(item.lines)}\n\n{_lines(item.findings)}", 4096),
                colour=COLOUR,
            )
        )
        for kind, label, style in (
            (APPROVE, message.approve, discord.ButtonStyle.success),
            (ADMIN_EDIT, message.edit, discord.ButtonStyle.secondary),
            (REJECT, message.reject, discord.ButtonStyle.danger),
        ):
            view.add_item(button(custom_id(kind, item.id), label, style, row=row))
    view.stop()
    return content, embeds, view
