"""Button action ids and values: what a click carries, and reading it back safely.

A value is never trusted: anything that does not parse (stale, tampered, malformed) is None,
and the click gets the polite `error.stale_click` reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ANSWER = "quiz_answer_{letter}"
RUN = "quiz_run_{letter}"
LOCALE = "quiz_locale"
RESET_YES = "quiz_reset_yes"
RESET_NO = "quiz_reset_no"
FORGET_YES = "quiz_forget_yes"
FORGET_NO = "quiz_forget_no"
HIDE = "quiz_privacy_hide"
SHOW = "quiz_privacy_show"
REVIEW = "quiz_review_{letter}"
REVIEW_START = "quiz_review_start"
"""App Home's "Review now" and `/quiz stats`' weakest-topic button (value `t:` + a topic)."""
REPORT = "quiz_report"
""""Report a problem": opens the form (value: the question's `card_key`)."""
REPORT_FORM = "quiz_report_form"
"""The form's callback_id; its private_metadata is the question's `card_key`."""

ANSWER_IDS = re.compile(r"^quiz_answer_[A-E]$")
RUN_IDS = re.compile(r"^quiz_run_[A-E]$")
REVIEW_IDS = re.compile(r"^quiz_review_[A-E]$")
ANY = re.compile(r".*")

_ID = r"([1-9]\d{0,17})"  # a row id as written: fits a 64-bit column, no leading zero
_POST = re.compile(rf"p:{_ID}:(\d)")
_RUN = re.compile(rf"r:{_ID}:([a-z0-9][a-z0-9-]{{0,199}}):(\d)")
_LOCALE = re.compile(rf"l:{_ID}:([a-z]{{2,3}}(?:-[A-Za-z0-9]{{2,4}}){{0,2}})")
_RESET = re.compile(r"s:([1-9]\d{0,8})")
_KEY = r"([0-9a-f]{12})"
_REVIEW = re.compile(rf"v:{_KEY}:(\d{{1,9}}):(\d)(?::(.{{1,150}}))?", re.DOTALL)
_TOPIC = re.compile(r"t:(.{0,150})", re.DOTALL)


@dataclass(frozen=True)
class PostClick:
    post_id: int
    shown: int
    """The button's position: 0 is A."""


@dataclass(frozen=True)
class RunClick:
    run_id: int
    question_id: str
    shown: int


@dataclass(frozen=True)
class LocaleClick:
    post_id: int
    locale: str


@dataclass(frozen=True)
class ReviewClick:
    key: str
    """The question's `card_key`."""
    number: int
    """The review answer's number the question was shown for."""
    shown: int
    tag: str | None


def review_value(key: str, number: int, shown: int, tag: str | None) -> str:
    return f"v:{key}:{number}:{shown}" + (f":{tag}" if tag else "")


def parse_review(value: object) -> ReviewClick | None:
    match = _REVIEW.fullmatch(value) if isinstance(value, str) else None
    return ReviewClick(match[1], int(match[2]), int(match[3]), match[4]) if match else None


def topic_value(tag: str | None) -> str:
    return f"t:{tag or ''}"


def parse_topic(value: object) -> str | None:
    """The topic a review-start button keeps to ("" for none); None if malformed."""
    match = _TOPIC.fullmatch(value) if isinstance(value, str) else None
    return match[1] if match else None


def parse_key(value: object) -> str | None:
    """A question's `card_key` (the report button, the report form)."""
    return value if isinstance(value, str) and re.fullmatch(_KEY, value) else None


def post_value(post_id: int, shown: int) -> str:
    return f"p:{post_id}:{shown}"


def run_value(run_id: int, question_id: str, shown: int) -> str:
    return f"r:{run_id}:{question_id}:{shown}"


def locale_value(post_id: int, locale: str) -> str:
    return f"l:{post_id}:{locale}"


def reset_value(season: int) -> str:
    """The confirm button of `/quiz reset` carries the season it was shown for."""
    return f"s:{season}"


def parse_post(value: object) -> PostClick | None:
    match = _POST.fullmatch(value) if isinstance(value, str) else None
    return PostClick(int(match[1]), int(match[2])) if match else None


def parse_run(value: object) -> RunClick | None:
    match = _RUN.fullmatch(value) if isinstance(value, str) else None
    return RunClick(int(match[1]), match[2], int(match[3])) if match else None


def parse_locale(value: object) -> LocaleClick | None:
    match = _LOCALE.fullmatch(value) if isinstance(value, str) else None
    return LocaleClick(int(match[1]), match[2]) if match else None


def parse_reset(value: object) -> int | None:
    """The season a reset confirm button was shown for."""
    match = _RESET.fullmatch(value) if isinstance(value, str) else None
    return int(match[1]) if match else None


def post_id_of(value: object) -> int | None:
    """The post a button names (an answer or a language button), for the logs."""
    parsed = parse_post(value) or parse_locale(value)
    return parsed.post_id if parsed else None


def well_formed(body: dict[str, object]) -> bool:
    """False for a block_actions payload bolt's matchers would choke on, or one that names
    no clicking user (bolt would then take `message.user`: the bot itself)."""
    if body.get("type") != "block_actions":
        return True
    acts = body.get("actions")
    user = body.get("user")
    return (
        isinstance(acts, list)
        and len(acts) > 0
        and all(isinstance(a, dict) and isinstance(a.get("action_id"), str) for a in acts)
        and isinstance(user, dict)
        and isinstance(user.get("id"), str)
        and bool(user["id"])
    )


FORM_ERROR_LIMIT = 150
"""Characters of an error Slack shows under a form's field."""


def dig(node: object, *keys: str) -> object:
    """`node[k1][k2]...`, or None where a payload lacks a level (forms are never trusted)."""
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node
