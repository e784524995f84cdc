"""Slack's mrkdwn: deck and user text made safe to show, and user mentions."""

from __future__ import annotations

import re

_USER_ID = re.compile(r"[UW][A-Z0-9]{1,30}")
_MENTION_TEXT = re.compile(r"^<@([UW][A-Z0-9]{1,30})(?:\|[^>]*)?>$")
_PLACEHOLDER = re.compile("\x1f([^\x1f]*)\x1f")
_CHANNEL_ID = re.compile(r"[CGD][A-Z0-9]{1,30}")
_CHANNEL_PLACEHOLDER = re.compile("\x1e([^\x1e]*)\x1e")


def escape(text: str) -> str:
    """Escapes the three characters Slack's mrkdwn parses (`<!channel>`, `<@U1>`, links)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    """Plain text cut to a Block Kit length limit, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


_BROKEN_TAIL = re.compile(r"&[a-z]*$|<[^>]*$")


def clip_markup(md: str, limit: int) -> str:
    """Escaped mrkdwn cut to a length limit, never inside an entity (`&amp;`) or a mention
    (`<@U1>`): one the cut would break is left out whole. Cutting after escaping keeps the
    limit exact however many characters escaping added."""
    if len(md) <= limit:
        return md
    return _BROKEN_TAIL.sub("", md[: limit - 1]) + "…"


def mention(user_id: str) -> str:
    """`<@U123>` for a real Slack user id; anything else is shown as escaped text."""
    return f"<@{user_id}>" if _USER_ID.fullmatch(user_id) else escape(user_id)


def placeholder(user_id: str) -> str:
    """A stand-in for a mention that survives `escape`; `with_mentions` turns it into one.

    `bot.presentation.messages` puts user names into its texts; the texts are escaped as a
    whole, so the mentions go in as placeholders and come out as real `<@U...>` after escaping.
    """
    return f"\x1f{user_id}\x1f"


def with_mentions(text: str) -> str:
    """Escapes `text` and turns its placeholders into mentions (ids that are not real stay text)."""
    return _PLACEHOLDER.sub(_mention_or_text, escape(text))


def _mention_or_text(match: re.Match[str]) -> str:
    user_id = match.group(1)  # already escaped with the rest of the text
    return f"<@{user_id}>" if _USER_ID.fullmatch(user_id) else user_id


def channel_placeholder(channel_id: str) -> str:
    """A stand-in for a channel link (`bot.presentation.schedule_messages`' ChannelRef on Slack):
    `with_channels` makes it `<#C123>` in mrkdwn, `channel_parts` a rich-text channel."""
    return f"\x1e{channel_id}\x1e"


def with_channels(text: str) -> str:
    """Escapes `text` and turns its channel placeholders into `<#C123>` links."""
    return _CHANNEL_PLACEHOLDER.sub(_channel_or_text, escape(text))


def _channel_or_text(match: re.Match[str]) -> str:
    channel_id = match.group(1)
    return f"<#{channel_id}>" if _CHANNEL_ID.fullmatch(channel_id) else f"#{channel_id}"


def channel_parts(text: str) -> list[tuple[str, str]]:
    """`text` split at its channel placeholders: ("text", words) and ("channel", id) pairs,
    in order (a placeholder that holds no real channel id stays text)."""
    parts: list[tuple[str, str]] = []
    for i, piece in enumerate(_CHANNEL_PLACEHOLDER.split(text)):
        if i % 2 and _CHANNEL_ID.fullmatch(piece):
            parts.append(("channel", piece))
        elif piece:
            parts.append(("text", piece if i % 2 == 0 else f"#{piece}"))
    return parts


def has_mention(text: str) -> bool:
    return _PLACEHOLDER.search(text) is not None


def user_of(word: str) -> str | None:
    """The user id in a mention as Slack sends it in command text: `<@U123|name>` or `<@U123>`."""
    match = _MENTION_TEXT.match(word)
    return match.group(1) if match else None
