"""Where the Discord adapter relies on discord.py's internals, fenced: each use is here, and
tests/discord/test_discord_fences.py fails (never warns) when one of them moves; discord.py is
pinned to the minor release those tests pass on (pyproject.toml, constraints.txt). Nothing
else in `bot` reaches past discord.py's public API.

- Answer clicks parsed without their message: a wrapper in `ConnectionState.parsers`.
- A click's reply as a JSON body built by hand (`private_reply`, `answer_body`'s templates)
  and posted as the interaction callback (`bot.discord.callback`); `answered` then writes
  `InteractionResponse._response_type`, as discord.py's own `send_message` does.
- `use_endpoints`: discord.py's REST base and gateway, pointed at a local test server.

Answer clicks without their message
-----------------------------------
A component interaction carries its whole message (embeds, buttons), which discord.py parses
into a `Message` for every click: 6% of the event loop's work in a burst, where every
millisecond of it delays the answers queued behind. An answer needs only the button's
custom_id and who clicked; the post is read from the store. Other clicks keep their message.

The wrapper on the state's parser of INTERACTION_CREATE (the dict the gateway looks events
up in) is outside what discord.py contains: an exception there ends the gateway connection,
and with it the process. So:

- at start, a message-less answer click is parsed by discord.py's own parser, with its
  dispatch held back; if that fails, or the click it makes is not what the bot expects, the
  wrapper is not installed and one log line says why (the bot runs on discord.py's path);
- at run time, anything the wrapper raises puts discord.py's parser back and parses that
  click whole, logged once.

The reply's JSON
----------------
discord.py always asks Discord to send a reply's new message back (`with_response`) and
parses it; the answer to a click needs nothing back, and in a burst that echo was an eighth
of a click's time on the event loop. Building and encoding the whole reply per click was a
sixth more (`answer_body` builds it once per post, language and choice, and splices in each
clicker's footer).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord
import yarl

from bot.config import DiscordConfig
from bot.decks.model import Question
from bot.discord import embeds as render
from bot.domain.answer import AnswerResult
from bot.domain.records import AnswerStatus
from bot.presentation.messages import answer_notes

log = logging.getLogger("quizbot.discord")

EVENT = "INTERACTION_CREATE"
COMPONENT = discord.InteractionType.component.value
Parse = Callable[[dict[str, Any]], None]


def skip_messages(client: discord.Client, answer: re.Pattern[str]) -> bool:
    """`answers_skip_message` on the client's state (`Client._connection`): before the
    gateway connects."""
    return answers_skip_message(getattr(client, "_connection", None), answer)


def answers_skip_message(state: Any, answer: re.Pattern[str]) -> bool:
    """Installs the wrapper on `state` (a `ConnectionState`) once it passed its self-test;
    `answer`: the custom_ids of answer clicks. Whether it was installed."""
    parsers = getattr(state, "parsers", None)
    parse = parsers.get(EVENT) if isinstance(parsers, dict) else None
    if parsers is None or not callable(parse):
        log.warning(
            "answer clicks are parsed whole, as discord.py does: it has no %s parser in "
            "ConnectionState.parsers (another discord.py?)",
            EVENT,
        )
        return False
    why = self_test(state, parse, answer)
    if why is not None:
        log.warning("answer clicks are parsed whole, as discord.py does: %s", why)
        return False
    parsers[EVENT] = _wrapper(parsers, parse, answer)
    return True


def strip(data: dict[str, Any], answer: re.Pattern[str]) -> dict[str, Any] | None:
    """The message an answer click carried, taken out of `data`; None for any other event."""
    inner = data.get("data")
    if (
        data.get("type") == COMPONENT
        and isinstance(inner, dict)
        and answer.fullmatch(str(inner.get("custom_id", "")))
    ):
        message: dict[str, Any] | None = data.pop("message", None)
        return message if message is not None else {}
    return None


def _wrapper(parsers: dict[str, Any], parse: Parse, answer: re.Pattern[str]) -> Parse:
    def fall_back(what: str) -> None:
        parsers[EVENT] = parse  # discord.py's own parser for every click from now on
        log.exception("the answer-click fast path failed (%s); discord.py parses clicks now", what)

    def parse_interaction(data: dict[str, Any]) -> None:
        try:
            message = strip(data, answer)
        except Exception:
            fall_back("reading the click")
            parse(data)
            return
        if message is None:  # not an answer click: discord.py's, untouched
            parse(data)
            return
        try:
            parse(data)
        except Exception:
            fall_back("parsing a click without its message")
            if message:
                data["message"] = message
            parse(data)  # whole, as discord.py would have; what it raises is its own

    return parse_interaction


SELF_TEST_ID = "quiz:a:1:0"


def sample_click(application_id: int | None) -> dict[str, Any]:
    """A message-less answer click, shaped as Discord sends one (less its message)."""
    user = {"id": "1", "username": "self-test", "discriminator": "0", "global_name": None}
    return {
        "id": "1",
        "application_id": str(application_id or 1),
        "type": COMPONENT,
        "token": "self-test",
        "version": 1,
        "guild_id": "1",
        "channel_id": "1",
        "channel": {"id": "1", "type": 0, "guild_id": "1", "name": "self-test", "position": 0},
        "member": {
            "user": {**user, "avatar": None},
            "roles": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "permissions": "0",
        },
        "app_permissions": "0",
        "locale": "en-US",
        "guild_locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {"0": "1"},
        "context": 0,
        "attachment_size_limit": 10485760,
        "data": {"custom_id": SELF_TEST_ID, "component_type": 2},
    }


def self_test(state: Any, parse: Parse, answer: re.Pattern[str]) -> str | None:
    """Parses a message-less answer click with discord.py's `parse`, its dispatch held
    back (no handler sees it). None when it made the interaction the bot expects; else why
    not, in words."""
    if not answer.fullmatch(SELF_TEST_ID):
        return f"the self-test's click {SELF_TEST_ID!r} is no answer click"
    sample = sample_click(getattr(state, "application_id", None))
    sample["message"] = {"id": "1"}
    taken = strip(sample, answer)
    if taken is None or "message" in sample:
        return "the wrapper did not take the message out of an answer click"
    seen: list[tuple[str, tuple[Any, ...]]] = []
    dispatch = getattr(state, "dispatch", None)
    if not callable(dispatch):
        return "ConnectionState has no dispatch to hold back"
    try:
        state.dispatch = lambda event, *args, **kwargs: seen.append((event, args))
        try:
            parse(sample)
        finally:
            state.dispatch = dispatch
    except Exception as error:
        return f"a click without its message does not parse ({type(error).__name__}: {error})"
    made = [args[0] for event, args in seen if event == "interaction" and args]
    if len(made) != 1 or not isinstance(made[0], discord.Interaction):
        return f"the parsed click dispatched {[event for event, _ in seen]}, not one interaction"
    interaction = made[0]
    parsed: dict[str, Any] = dict(interaction.data or {})
    custom_id = parsed.get("custom_id")
    if interaction.message is not None or custom_id != SELF_TEST_ID:
        return f"the parsed click reads as message={interaction.message!r}, custom_id={custom_id!r}"
    return None


# The reply's JSON ---------------------------------------------------------------------------

EPHEMERAL = 64
"""The message flag that makes a reply private."""


def private_reply(
    content: str | None = None,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
) -> str:
    """The JSON body of a private reply as an interaction's first response."""
    data: dict[str, Any] = {"flags": EPHEMERAL, "allowed_mentions": {"parse": []}}
    if content is not None:
        data["content"] = render.clip(content, render.CONTENT)
    shown = render.fit(embeds)
    if shown:
        data["embeds"] = [embed.to_dict() for embed in shown]
    if view is not None:
        data["components"] = view.to_components()
    payload = {"type": discord.InteractionResponseType.channel_message.value, "data": data}
    return json_text(payload)


def json_text(value: Any) -> str:
    """JSON as Discord reads it, compact and not ASCII-escaped: `json.dumps`' default escapes
    each Bengali letter as six bytes and pads with spaces, a third more to encode, on the
    event loop, once a click."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def answered(interaction: discord.Interaction) -> None:
    """What `InteractionResponse.send_message` records once its callback was taken: later
    replies become follow-ups."""
    interaction.response._response_type = discord.InteractionResponseType.channel_message


Parts = Callable[[AnswerResult], tuple[discord.Embed, discord.ui.View | None, str | None]]
"""A reply to an answer as its card, its view and its review line (`bot.discord.buttons`)."""


@dataclass(frozen=True)
class _Frame:
    """A click's reply as JSON with a hole for its footer (`head` + footer + `tail`)."""

    question: Question
    """What it was built from: a reloaded deck's questions are new objects."""
    head: str
    tail: str
    review: str | None


_FRAMES: dict[tuple[Any, ...], _Frame] = {}
_MOST_FRAMES = 512
_HOLE = "\x00footer\x00"


def answer_body(result: AnswerResult, parts: Parts) -> str:
    """The private answer's JSON body (`private_reply` of what `parts` makes), built once per
    post, language and click: everyone who picked the same choice gets the same headline,
    explanation and buttons, and only the footer (their totals and streak) is theirs. A reply
    with no totals (a closed post) is built whole."""
    view = result.view
    if result.status is AnswerStatus.CLOSED:
        return _whole(result, parts)
    key = (
        view.post.id,
        result.locale,
        result.status,
        result.choice,
        result.replay,
        result.practice,
    )
    frame = _FRAMES.get(key)
    if frame is None or frame.question is not view.question:
        frame = _frame(result, parts)
        if frame is None:
            return _whole(result, parts)
        if len(_FRAMES) >= _MOST_FRAMES:
            _FRAMES.clear()
        _FRAMES[key] = frame
    totals, streak = answer_notes(result, result.locale)
    footer = render.answer_footer(totals, streak, frame.review)
    return frame.head + json_text(footer) + frame.tail


def _whole(result: AnswerResult, parts: Parts) -> str:
    card, view, _review = parts(result)
    return private_reply(embeds=[card], view=view)


def _frame(result: AnswerResult, parts: Parts) -> _Frame | None:
    """None when the reply is so long that a footer could make Discord's 6,000-character
    limit shorten it (`render.fit`)."""
    card, view, review = parts(result)
    card.set_footer(text=_HOLE)
    if render.total_length([card]) - len(_HOLE) + render.FOOTER > render.TOTAL:
        return None
    head, hole, tail = private_reply(embeds=[card], view=view).partition(json_text(_HOLE))
    if not hole:
        return None
    return _Frame(result.view.question, head, tail, review)


# Endpoints ----------------------------------------------------------------------------------


def use_endpoints(config: DiscordConfig) -> None:
    """Points discord.py at another REST base and gateway (a local test server), through two
    class attributes every client of the process reads.

    The gateway URL counts when `shard_count` is set; without it, discord.py connects where
    `GET /gateway/bot` (on the REST base) says.
    """
    if config.api_url:
        discord.http.Route.BASE = config.api_url.rstrip("/")
    if config.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(config.gateway_url)
