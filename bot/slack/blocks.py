"""Block Kit from `bot.presentation.messages` pieces, built with slack_sdk's block models.

The models check Slack's limits in `to_dict()`, so a payload that Slack would refuse fails
here first. Deck text only ever goes into plain_text objects, which Slack never parses: a
question about `*args` or `__init__` shows as written, and `<!channel>` pings nobody. mrkdwn
carries only the bot's own words (escaped) and mentions from `mrkdwn.placeholder`, and what
players typed (problem reports): such sections are `verbatim`, so Slack makes no link of an
address and no mention of a name in them, and the text is escaped (`&`, `<`, `>`), so
`<https://evil|click>` and `<!channel>` show as the characters typed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    RichTextBlock,
    RichTextElementParts,
    RichTextSectionElement,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.domain.answer import AnswerResult
from bot.domain.game import GameNews
from bot.domain.post import PostView, Reveal
from bot.domain.review import card_key
from bot.domain.run import RunFeedback, RunStep, RunSummary
from bot.presentation import messages
from bot.presentation.game_messages import WHEN, locked_text, news_message
from bot.presentation.locales import text
from bot.presentation.schedule_messages import ScheduleMessage
from bot.slack import actions
from bot.slack.mrkdwn import (
    channel_parts,
    clip,
    clip_markup,
    escape,
    has_mention,
    placeholder,
    with_channels,
    with_mentions,
)

SECTION_LIMIT = 3000
CONTEXT_LIMIT = 2000
HEADER_LIMIT = 150
BUTTON_LIMIT = 75


@dataclass(frozen=True)
class Reply:
    """A message: its blocks and the top-level `text` fallback (notifications, screen readers)."""

    text: str
    blocks: Sequence[Block]

    def payload(self) -> dict[str, Any]:
        """`text` and `blocks` as the Web API takes them; raises if a block breaks a limit."""
        return {"text": self.text, "blocks": [_as_dict(b) for b in self.blocks]}


_DICT = "_quizbot_dict"
TEXT_BLOCKS_KEPT = 512
"""Text blocks kept built, by their text (`_header`, `_plain`, `_section`, `_context`): a
burst's replies repeat its posts' deck texts, so a few hundred serve it; a line that is one
person's (their totals and streak) is built each time (`_context_of`), never kept."""
POST_BLOCKS_KEPT = 256
"""Reply button blocks kept built, one per post and language (`_reply_buttons`): 2.4 KB each."""


def _as_dict(block: Block) -> dict[str, Any]:
    """`block.to_dict()`, checked against Slack's limits once per block: the text blocks
    below are shared (a burst's replies repeat the same explanation hundreds of times), and
    checking one is most of the cost of a reply."""
    made: dict[str, Any] | None = getattr(block, _DICT, None)
    if made is None:
        made = block.to_dict()
        setattr(block, _DICT, made)
    return made


@functools.lru_cache(maxsize=TEXT_BLOCKS_KEPT)
def _header(plain: str) -> HeaderBlock:
    return HeaderBlock(text=PlainTextObject(text=clip(plain, HEADER_LIMIT), emoji=False))


@functools.lru_cache(maxsize=TEXT_BLOCKS_KEPT)
def _plain(text: str) -> SectionBlock:
    """A section shown exactly as written (deck text: never parsed as mrkdwn or emoji)."""
    return SectionBlock(text=PlainTextObject(text=clip(text, SECTION_LIMIT), emoji=False))


@functools.lru_cache(maxsize=TEXT_BLOCKS_KEPT)
def _section(md: str, verbatim: bool = False) -> SectionBlock:
    """mrkdwn; `verbatim` when it may carry what players typed (no links or mentions made
    of it: only the `<...>` the bot wrote, escaping the rest, stay links and mentions)."""
    text = clip_markup(md, SECTION_LIMIT)
    return SectionBlock(text=MarkdownTextObject(text=text, verbatim=True if verbatim else None))


def _context_of(md: str, verbatim: bool = False) -> ContextBlock:
    text = clip_markup(md, CONTEXT_LIMIT)
    return ContextBlock(
        elements=[MarkdownTextObject(text=text, verbatim=True if verbatim else None)]
    )


_context = functools.lru_cache(maxsize=TEXT_BLOCKS_KEPT)(_context_of)


def _button(label: str, action_id: str, value: str, style: str | None = None) -> ButtonElement:
    return ButtonElement(
        text=PlainTextObject(text=clip(label, BUTTON_LIMIT), emoji=True),
        action_id=action_id,
        value=value,
        style=style,
    )


def _fallback(*parts: str) -> str:
    return clip_markup(" ".join(escape(p) for p in parts if p), SECTION_LIMIT)


def _question(msg: messages.QuestionMessage, buttons: list[ButtonElement]) -> list[Block]:
    blocks: list[Block] = [
        _header(msg.header),
        _plain(msg.question),
        _plain("\n".join(f"{c.letter}. {c.text}" for c in msg.choices)),
        ActionsBlock(block_id="quiz_choices", elements=buttons),
    ]
    if msg.footer:
        blocks.append(_context(escape(msg.footer)))
    return blocks


def question_post(view: PostView) -> Reply:
    """A posted question: header, question, lettered choices, a button each, "N answered"
    (a game's: when it closes, in each reader's own time zone)."""
    msg = messages.post_message(view)
    buttons = [
        _button(
            c.letter, actions.ANSWER.format(letter=c.letter), actions.post_value(view.post.id, i)
        )
        for i, c in enumerate(msg.choices)
    ]
    question = _question(msg, buttons)
    if msg.closes and view.game is not None:
        when = slack_time(view.game.closes_at)
        question.append(_context(escape(msg.closes).replace(WHEN, when)))
    return Reply(_fallback(msg.fallback), question)


def slack_time(at: datetime) -> str:
    """A clock time Slack shows in each reader's zone (it has no live countdown)."""
    stamp = int(at.timestamp())
    return f"<!date^{stamp}^{{time_secs}}|{at.strftime('%H:%M:%S')} UTC>"


def game_news(news: GameNews) -> Reply:
    """A game's announcement, standings or results: a board, players as mentions."""
    title, lines = news_message(news, placeholder)
    return board_reply(messages.BoardMessage(title, lines, None))


def locked_reply(result: AnswerResult) -> Reply:
    """The private reply to a click on a game's question: locked in, no verdict yet."""
    return text_reply(locked_text(result))


def reveal_post(reveal: Reveal) -> Reply:
    """A closed post: no buttons, the answer, the distribution (✅ on the right choice), the
    explanation."""
    msg = messages.reveal_message(reveal)
    blocks: list[Block] = [
        _header(msg.header),
        _plain(msg.question),
        _plain(msg.answer),
        _plain("\n".join(f"{r.line}  {r.text}" for r in msg.rows)),
        _context(escape(msg.summary)),
        _plain(msg.explanation),
    ]
    return Reply(_fallback(msg.fallback), blocks)


def verdict_blocks(headline: str, answer: str, explanation: str, why: str | None) -> list[Block]:
    """Right or wrong in bold, the right answer, its explanation and why the pick was wrong
    (if said): how an answer's reply begins, in a post, a run or review."""
    blocks: list[Block] = [_section(f"*{escape(headline)}*"), _plain(answer), _plain(explanation)]
    if why:
        blocks.append(_plain(why))
    return blocks


def _answer_blocks(msg: messages.AnswerMessage) -> list[Block]:
    blocks = verdict_blocks(msg.headline, msg.answer, msg.explanation, msg.why)
    notes = [n for n in (msg.totals, msg.streak) if n]
    if notes:
        blocks.append(_context_of(escape(" · ".join(notes))))  # one person's: not kept
    if msg.review:
        blocks.append(_context(escape(msg.review)))
    return blocks


def report_button(label: str | None, deck_id: str, question_id: str) -> list[ButtonElement]:
    """ "Report a problem" about a question: opens the form (`bot.slack.reports`)."""
    if not label:
        return []
    return [_button(label, actions.REPORT, card_key(deck_id, question_id))]


@functools.lru_cache(maxsize=POST_BLOCKS_KEPT)
def _reply_buttons(
    post_id: int,
    switch: tuple[str, str] | None,
    report_label: str | None,
    deck_id: str,
    question_id: str,
) -> ActionsBlock | None:
    """The reply's buttons (other language, Report a problem): one block per post and
    language, so a burst's replies share it and its checked dict (`_as_dict`)."""
    elements = report_button(report_label, deck_id, question_id)
    if switch is not None:
        label, locale = switch
        elements.insert(0, _button(label, actions.LOCALE, actions.locale_value(post_id, locale)))
    return ActionsBlock(block_id="quiz_switch", elements=elements) if elements else None


def answer_reply(result: AnswerResult) -> Reply:
    """The private reply to a click on a post, with the other-language and Report a problem
    buttons."""
    msg = messages.answer_message(result)
    blocks = _answer_blocks(msg)
    view = result.view
    switch = None
    if msg.switch_label and msg.switch_locale:
        switch = (msg.switch_label, msg.switch_locale)
    buttons = _reply_buttons(view.post.id, switch, msg.report_label, view.deck.id, view.question.id)
    if buttons is not None:
        blocks.append(buttons)
    return Reply(_fallback(msg.headline, msg.answer), blocks)


def _step_blocks(step: RunStep) -> list[Block]:
    msg = messages.step_message(step)
    buttons = [
        _button(
            c.letter,
            actions.RUN.format(letter=c.letter),
            actions.run_value(step.run.id, step.question.id, i),
        )
        for i, c in enumerate(msg.choices)
    ]
    return _question(msg, buttons)


def step_reply(step: RunStep) -> Reply:
    """One question of a private run."""
    return Reply(_fallback(messages.step_message(step).fallback), _step_blocks(step))


def _summary_blocks(summary: RunSummary) -> list[Block]:
    msg = messages.summary_message(summary)
    return [
        _header(msg.header),
        _section(f"*{escape(msg.score)}*"),
        _context(escape(msg.points)),
        _plain("\n".join(msg.review)),
        _context(escape(msg.closing)),
    ]


def summary_reply(summary: RunSummary) -> Reply:
    """The end of a run: the score (`8/8`), the points, the misses to review."""
    msg = messages.summary_message(summary)
    return Reply(_fallback(msg.header, msg.score), _summary_blocks(summary))


def feedback_reply(feedback: RunFeedback) -> Reply:
    """The reply to a run answer: right or wrong and why, then the next question or the summary."""
    msg = messages.feedback_message(feedback)
    blocks = _answer_blocks(msg)
    report = report_button(msg.report_label, feedback.deck.id, feedback.question.id)
    if report:
        blocks.append(ActionsBlock(block_id="quiz_report", elements=report))
    if feedback.next is not None:
        blocks += [DividerBlock(), *_step_blocks(feedback.next)]
    elif feedback.summary is not None:
        blocks += [DividerBlock(), *_summary_blocks(feedback.summary)]
    return Reply(_fallback(msg.headline, msg.answer), blocks)


def _board_blocks(msg: messages.BoardMessage) -> list[Block]:
    """Texts with a user in them are mrkdwn (for the mention), verbatim (a report's lines
    carry what a player typed); the rest, deck titles among them, are plain text."""
    title: Block = (
        _section(f"*{with_mentions(msg.title)}*", verbatim=True)
        if has_mention(msg.title)
        else _header(msg.title)
    )
    body = "\n".join(msg.lines)
    lines = _section(with_mentions(body), verbatim=True) if has_mention(body) else _plain(body)
    blocks: list[Block] = [title, lines]
    if msg.you:
        blocks.append(_context(with_mentions(msg.you), verbatim=True))
    return blocks


def board_reply(msg: messages.BoardMessage) -> Reply:
    """A leaderboard, a user's stats or the deck list; users as mentions."""
    fallback = clip_markup(
        " ".join(with_mentions(p) for p in (msg.title, *msg.lines)), SECTION_LIMIT
    )
    return Reply(fallback, _board_blocks(msg))


def text_reply(message: str) -> Reply:
    """UI text (help, confirmations, errors, with what the user typed in them) as one plain
    section."""
    return Reply(_fallback(message), [_plain(message)])


def _rich(lines: Sequence[str], *, bold_first: bool = False) -> RichTextBlock:
    """Lines whose channel placeholders become channel links. Rich text is never parsed as
    mrkdwn, so deck titles in them show as written."""
    elements: list[RichTextElementParts.Text | RichTextElementParts.Channel] = []
    for n, line in enumerate(lines):
        if n:
            elements.append(RichTextElementParts.Text(text="\n"))
        style = {"bold": True} if bold_first and n == 0 else None
        for kind, value in channel_parts(line):
            if kind == "channel":
                elements.append(RichTextElementParts.Channel(channel_id=value, style=style))
            else:
                elements.append(
                    RichTextElementParts.Text(text=clip(value, SECTION_LIMIT), style=style)
                )
    return RichTextBlock(elements=[RichTextSectionElement(elements=elements)])


def schedule_reply(msg: ScheduleMessage) -> Reply:
    """A `bot.presentation.schedule_messages` message: its title in bold, then its lines."""
    return Reply(
        clip_markup(with_channels(msg.fallback), SECTION_LIMIT),
        [_rich([msg.title, *msg.lines], bold_first=True)],
    )


def notice_reply(message: str) -> Reply:
    """UI text that names channels (`schedule off`, the failure DM)."""
    return Reply(clip_markup(with_channels(message), SECTION_LIMIT), [_rich([message])])


def mention_reply(message: str) -> Reply:
    """UI text that names users (`mrkdwn.placeholder`) and carries what players wrote (the
    daily summary of problem reports): one verbatim mrkdwn section, everything escaped but
    the mentions."""
    md = clip_markup(with_mentions(message), SECTION_LIMIT)
    return Reply(md, [_section(md, verbatim=True)])


def reset_confirm(locale: str, season: int) -> Reply:
    """The confirm step before a new season: "Start a new season" / "Cancel". The confirm
    button names the running `season`, so it can start the next one only once."""
    question = text(locale, "reset.confirm")
    buttons = [
        _button(
            text(locale, "reset.yes"), actions.RESET_YES, actions.reset_value(season), "danger"
        ),
        _button(text(locale, "reset.no"), actions.RESET_NO, "cancel"),
    ]
    return Reply(
        _fallback(question),
        [_plain(question), ActionsBlock(block_id="quiz_reset", elements=buttons)],
    )


def privacy_confirm(locale: str, hidden: bool) -> Reply:
    """`/quiz privacy`: what is kept; "Delete everything about me", "Hide me on leaderboards"
    (or "Show me" when hidden) and "Keep it"."""
    question = text(locale, "privacy.confirm")
    toggle = (
        _button(text(locale, "privacy.show"), actions.SHOW, "show")
        if hidden
        else _button(text(locale, "privacy.hide"), actions.HIDE, "hide")
    )
    buttons = [
        _button(text(locale, "privacy.yes"), actions.FORGET_YES, "forget", "danger"),
        toggle,
        _button(text(locale, "privacy.no"), actions.FORGET_NO, "keep"),
    ]
    return Reply(
        _fallback(question),
        [_plain(question), ActionsBlock(block_id="quiz_privacy", elements=buttons)],
    )


def home_view(
    board: messages.BoardMessage,
    stats: messages.BoardMessage,
    locale: str,
    review: Sequence[Block] = (),
) -> View:
    """The App Home tab: this week's leaderboard and the viewer's own stats (with what is due
    for review, and `review`: a button to start it)."""
    blocks = [
        *_board_blocks(board),
        DividerBlock(),
        *_board_blocks(stats),
        *review,
        _context(escape(text(locale, "slack.home_hint"))),
    ]
    return View(type="home", blocks=blocks)
