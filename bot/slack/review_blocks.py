"""Block Kit for review, mastery and "Report a problem": the review question and its
feedback (ephemeral, replaced as it goes), App Home's review button, the report form (a
modal) and question health for admins. Built like `bot.slack.blocks`, whose pieces it uses."""

from __future__ import annotations

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ContextBlock,
    DividerBlock,
    InputBlock,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from bot.decks.model import Question, pick
from bot.domain.mastery import Mastery
from bot.domain.problems import TEXT_LIMIT, Reason
from bot.domain.review import ReviewDone, ReviewFeedback, ReviewStep
from bot.presentation import review_messages as say
from bot.presentation.locales import text
from bot.slack import actions
from bot.slack.blocks import (
    Reply,
    _button,
    _context,
    _fallback,
    _header,
    _plain,
    report_button,
    verdict_blocks,
)
from bot.slack.mrkdwn import clip, escape

MODAL_TITLE_LIMIT = 24
OPTION_LIMIT = 75


def _step_blocks(step: ReviewStep) -> list[Block]:
    msg = say.review_question(step)
    buttons = [
        _button(
            letter,
            actions.REVIEW.format(letter=letter),
            actions.review_value(step.card.key, step.number, i, step.tag),
        )
        for i, (letter, _) in enumerate(msg.choices)
    ]
    return [
        _header(msg.header),
        _plain(msg.question),
        _plain("\n".join(f"{letter}. {choice}" for letter, choice in msg.choices)),
        ActionsBlock(block_id="quiz_choices", elements=buttons),
        _context(escape(msg.footer)),
    ]


def review_reply(next_: ReviewStep | ReviewDone) -> Reply:
    """The first due question of `/quiz review`, or that nothing is due (and when)."""
    if isinstance(next_, ReviewDone):
        message = say.review_done(next_)
        return Reply(_fallback(message), [_plain(message)])
    return Reply(_fallback(say.review_question(next_).question), _step_blocks(next_))


def review_feedback_reply(fb: ReviewFeedback) -> Reply:
    """Right or wrong and why, when it comes back, then the next due question or done."""
    msg = say.review_answer(fb)
    blocks = verdict_blocks(msg.headline, msg.answer, msg.explanation, msg.why)
    blocks.append(_context(escape(msg.when)))
    report = report_button(msg.report_label, fb.deck.id, fb.question.id)
    blocks.append(ActionsBlock(block_id="quiz_report", elements=report))
    blocks += [DividerBlock(), *review_reply(fb.next).blocks]
    return Reply(_fallback(msg.headline, msg.answer), blocks)


def review_start_button(locale: str, due: int | None) -> list[Block]:
    """App Home's "Review now", when something is due."""
    if not due:
        return []
    button = _button(text(locale, "review.start"), actions.REVIEW_START, actions.topic_value(None))
    return [ActionsBlock(block_id="quiz_review", elements=[button])]


def weakest_topic_button(locale: str, mastery: Mastery | None, own: bool) -> list[Block]:
    """`/quiz stats`' button to review the weakest topic, when some of it is due."""
    weakest = say.weakest_button(locale, mastery, own)
    if weakest is None:
        return []
    button = _button(weakest.label, actions.REVIEW_START, actions.topic_value(weakest.tag))
    return [ActionsBlock(block_id="quiz_review", elements=[button])]


def report_form(locale: str, key: str, question: Question) -> View:
    """The "Report a problem" modal: the question, a reason, optional details."""
    options = [
        Option(value=r.value, text=clip(say.reason_label(locale, r), OPTION_LIMIT)) for r in Reason
    ]
    blocks: list[Block] = [
        ContextBlock(elements=[PlainTextObject(text=clip(pick(question.text, locale), 2000))]),
        InputBlock(
            block_id="reason",
            label=text(locale, "report.reason_label"),
            element=StaticSelectElement(action_id="reason", options=options),
        ),
        InputBlock(
            block_id="details",
            label=text(locale, "report.details_label"),
            optional=True,
            element=PlainTextInputElement(
                action_id="details",
                multiline=True,
                max_length=TEXT_LIMIT,
                placeholder=clip(text(locale, "report.details_hint"), 150),
            ),
        ),
    ]
    return View(
        type="modal",
        callback_id=actions.REPORT_FORM,
        private_metadata=key,
        title=PlainTextObject(text=clip(text(locale, "report.title"), MODAL_TITLE_LIMIT)),
        submit=PlainTextObject(text=clip(text(locale, "report.submit"), MODAL_TITLE_LIMIT)),
        close=PlainTextObject(text=clip(text(locale, "report.cancel"), MODAL_TITLE_LIMIT)),
        blocks=blocks,
    )


def report_thanks(locale: str) -> View:
    """What the form turns into once the report is stored."""
    return View(
        type="modal",
        title=PlainTextObject(text=clip(text(locale, "report.title"), MODAL_TITLE_LIMIT)),
        close=PlainTextObject(text=clip(text(locale, "report.close"), MODAL_TITLE_LIMIT)),
        blocks=[_plain(text(locale, "report.thanks"))],
    )
