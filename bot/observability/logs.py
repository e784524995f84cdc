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
_TOKEN_SHAPES = re.compile(
    r"xox[abprse]-[A-Za-z0-9-]{8,}"  # Slack bot/user/config tokens
    r"|xapp-[A-Za-z0-9-]{8,}"  # Slack app-level tokens
    r"|[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}"  # Discord bot tokens
    r"|(?i:(?:authorization|bot|bearer)[\"']?\s*[:=]?\s*[\"']?(?:bot|bearer)?\s*)[A-Za-z0-9._-]{30,}"
)
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
        return _TOKEN_SHAPES.sub(REDACTED, text)


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
