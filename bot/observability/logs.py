"""Logs for operators: one JSON object per line, with secrets redacted before anything is written.

Events carry their fields (`server`, `post`, `user`, `latency_ms`, ...) as keys of the line,
so `jq 'select(.event == "answer")'` finds them. Tokens are removed by value (the secrets
this process holds) and by shape (xoxb-/xapp- tokens, Discord bot tokens, Authorization
headers), so a library that logs a request cannot leak them either.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, TextIO

REDACTED = "[redacted]"
_SLACK_TOKENS = re.compile(r"xox[abprse]-[A-Za-z0-9-]{8,}|xapp-[A-Za-z0-9-]{8,}")
_DISCORD_TOKENS = re.compile(r"[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}")
_DISCORD_GUARD = re.compile(r"\.[A-Za-z0-9_-]{6}\.")
"""What every Discord token holds (its middle part): most lines lack it, and looking for it
costs a tenth of looking for the whole token at every position of a line."""
_AUTH_TOKENS = re.compile(
    r"(?i:(?:authorization|bot|bearer)[\"']?\s*[:=]?\s*[\"']?(?:bot|bearer)?\s*)[A-Za-z0-9._-]{30,}"
)
_AUTH_GUARD = re.compile(
    r"(?:authorization|bot|bearer)[\"']?\s*[:=]?\s*[\"']?(?:bot|bearer)?\s*[a-z0-9._-]{30,}"
)
"""`_AUTH_TOKENS` without its case-insensitive scan, run over the lowered line first: the
scan is most of what redacting a line cost, and a click writes a line."""
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class Redactor:
    """Removes secrets from text: the exact values given, and anything shaped like a token."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        values = sorted({s for s in secrets if s and len(s) >= 6}, key=len, reverse=True)
        self._values = [re.escape(v) for v in values]
        self._pattern = re.compile("|".join(self._values)) if self._values else None

    def __call__(self, text: str) -> str:
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        if "xox" in text or "xapp-" in text:
            text = _SLACK_TOKENS.sub(REDACTED, text)
        if _DISCORD_GUARD.search(text):
            text = _DISCORD_TOKENS.sub(REDACTED, text)
        if _AUTH_GUARD.search(text.lower()):
            text = _AUTH_TOKENS.sub(REDACTED, text)
        return text


def event_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The `extra=` fields of a record: what makes a line an event."""
    return {k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self._redact = redact

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in event_fields(record).items():
            line[key] = value if isinstance(value, int | float | bool | None) else str(value)
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return self._redact(json.dumps(line, ensure_ascii=False, default=str))


class TextFormatter(logging.Formatter):
    """Human-readable lines (a terminal), redacted the same way."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")
        self._redact = redact

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = event_fields(record)
        if fields:
            text += " " + " ".join(f"{k}={v}" for k, v in fields.items())
        return self._redact(text)


def configure(
    level: str = "INFO",
    secrets: Mapping[str, str | None] | Iterable[str | None] = (),
    *,
    json_lines: bool = True,
    stream: TextIO | None = None,
) -> logging.Handler:
    """Routes every logger to one redacting handler on stderr (or `stream`)."""
    values = secrets.values() if isinstance(secrets, Mapping) else secrets
    redact = Redactor(values)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter(redact) if json_lines else TextFormatter(redact))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.getLogger("alembic").setLevel(logging.WARNING)  # its INFO lines are noise here
    return handler
