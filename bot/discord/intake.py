"""How answer clicks come in: parsed without the message they were made on, a fast path on
discord.py's internals, fenced so that a discord.py that moves can never stop the bot.

A component interaction carries its whole message (embeds, buttons), which discord.py parses
into a `Message` for every click: 6% of the event loop's work in a burst, where every
millisecond of it delays the answers queued behind. An answer needs only the button's
custom_id and who clicked; the post is read from the store. Other clicks keep their message.

The fast path wraps the state's parser of INTERACTION_CREATE (`ConnectionState.parsers`,
the dict the gateway looks events up in), which discord.py does not contain: an exception
there ends the gateway connection, and with it the process. So:

- at start, a message-less answer click is parsed by discord.py's own parser, with its
  dispatch held back; if that fails, or the click it makes is not what the bot expects, the
  wrapper is not installed and one log line says why (the bot runs on discord.py's path);
- at run time, anything the wrapper raises puts discord.py's parser back and parses that
  click whole, logged once.

tests/discord/test_discord_fences.py fails when the internals used here move; discord.py is
pinned to the versions those tests pass on (pyproject.toml, constraints.txt).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import discord

log = logging.getLogger("quizbot.discord")

EVENT = "INTERACTION_CREATE"
COMPONENT = discord.InteractionType.component.value
Parse = Callable[[dict[str, Any]], None]


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
