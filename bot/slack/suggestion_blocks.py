"""Slack's suggestion surfaces: the form (a modal), the coaching it turns into, the admins'
queue and the reject form. What members typed is escaped and shown in `verbatim` mrkdwn (no
mention or link is made of it) or as plain text.
"""

from __future__ import annotations

import json

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ContextBlock,
    DividerBlock,
    InputBlock,
    MarkdownTextObject,
    PlainTextInputElement,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.domain.suggestion import LIMITS, Checked, Draft, Field
from bot.presentation import suggestion_messages as say
from bot.presentation.locales import text
from bot.service.suggestions import REASON_LIMIT
from bot.slack.blocks import Reply, _button, _header
from bot.slack.mrkdwn import clip, clip_markup, escape

FORM = "quiz_suggest_form"
"""The form's callback_id; its private_metadata is `{"e": id}` when an admin edits one."""
REJECT_FORM = "quiz_suggest_reject_form"
EDIT = "quiz_suggest_edit"
SEND = "quiz_suggest_send"
APPROVE = "quiz_suggestion_approve"
ADMIN_EDIT = "quiz_suggestion_edit"
REJECT = "quiz_suggestion_reject"
TITLE_LIMIT = 24
HINT_LIMIT = 150
SECTION_LIMIT = 3000
OPTIONAL = (Field.EXPLANATION, Field.WHYS)


def said(typed: str) -> SectionBlock:
    """A section of text that carries what members typed: escaped, `verbatim`."""
    return SectionBlock(
        text=MarkdownTextObject(text=clip_markup(escape(typed), SECTION_LIMIT), verbatim=True)
    )


def _title(locale: str) -> PlainTextObject:
    return PlainTextObject(text=clip(text(locale, "suggest.title"), TITLE_LIMIT))


def form(locale: str, draft: Draft | None, edits: int | None = None) -> View:
    """The form, filled in with `draft` when there is one (reopened, or an admin's edit)."""
    shown = say.form_text(locale)
    filled = draft.fields() if draft else {}
    blocks: list[Block] = [
        InputBlock(
            block_id=f.value,
            label=clip(shown.labels[f], 2000),
            optional=f in OPTIONAL,
            element=PlainTextInputElement(
                action_id=f.value,
                multiline=f is not Field.RIGHT,
                max_length=LIMITS[f],
                initial_value=filled.get(f) or None,
                placeholder=clip(shown.hints[f], HINT_LIMIT),
            ),
        )
        for f in Field
    ]
    return View(
        type="modal",
        callback_id=FORM,
        private_metadata=json.dumps({"e": edits}) if edits else "",
        notify_on_close=edits is None,
        title=_title(locale),
        submit=PlainTextObject(text=clip(shown.check, TITLE_LIMIT)),
        close=PlainTextObject(text=clip(shown.close, TITLE_LIMIT)),
        blocks=blocks,
    )


def notice(locale: str, message: str) -> View:
    """The form turned into a message (checking, sent, refused)."""
    return View(
        type="modal",
        title=_title(locale),
        close=PlainTextObject(text=clip(text(locale, "suggest.close"), TITLE_LIMIT)),
        blocks=[said(message)],
    )


def coaching(locale: str, checked: Checked) -> View:
    """What the lint found, the question as written, and Edit / Submit anyway."""
    shown = say.coaching(locale, checked)
    value = str(checked.suggestion.id)
    blocks: list[Block] = [
        SectionBlock(text=MarkdownTextObject(text=f"*{escape(shown.title)}*")),
        *(said(f"• {line}") for line in shown.findings),
        DividerBlock(),
        said("\n".join(say.draft_lines(locale, checked.suggestion.draft))),
        ContextBlock(elements=[PlainTextObject(text=shown.note, emoji=False)]),
        ActionsBlock(
            block_id="suggest_choice",
            elements=[
                _button(shown.edit, EDIT, value),
                _button(shown.send, SEND, value, "primary"),
            ],
        ),
    ]
    return View(
        type="modal",
        title=_title(locale),
        close=PlainTextObject(text=clip(text(locale, "suggest.close"), TITLE_LIMIT)),
        blocks=blocks[:100],
    )


def queue(message: say.QueueMessage) -> Reply:
    """The admins' queue, oldest first: per suggestion its text, the lint's findings, and
    Approve / Edit / Reject (four blocks each: ten fit in Slack's fifty)."""
    blocks: list[Block] = [_header(clip(message.title, 150))]
    if message.note:
        blocks.append(said(message.note))
    for item in message.items:
        value = str(item.id)
        blocks += [
            DividerBlock(),
            said("\n".join([f"{item.heading}", *item.lines])),
            ContextBlock(
                elements=[
                    MarkdownTextObject(
                        text=clip_markup(escape("\n".join(item.findings)), 3000), verbatim=True
                    )
                ]
            ),
            ActionsBlock(
                block_id=f"suggestion_{item.id}",
                elements=[
                    _button(message.approve, APPROVE, value, "primary"),
                    _button(message.edit, ADMIN_EDIT, value),
                    _button(message.reject, REJECT, value, "danger"),
                ],
            ),
        ]
    return Reply(message.title, blocks)


def reject_form(locale: str, suggestion_id: int, question: str) -> View:
    """The admin says why; the author is told."""
    return View(
        type="modal",
        callback_id=REJECT_FORM,
        private_metadata=str(suggestion_id),
        title=PlainTextObject(text=clip(text(locale, "suggest.reject_title"), TITLE_LIMIT)),
        submit=PlainTextObject(text=clip(text(locale, "suggest.reject_send"), TITLE_LIMIT)),
        close=PlainTextObject(text=clip(text(locale, "suggest.close"), TITLE_LIMIT)),
        blocks=[
            said(question),
            InputBlock(
                block_id="reason",
                label=clip(text(locale, "suggest.reject_label"), 2000),
                element=PlainTextInputElement(
                    action_id="reason", multiline=True, max_length=REASON_LIMIT
                ),
            ),
        ],
    )
