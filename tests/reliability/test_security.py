"""Security of the Slack endpoint: forged and replayed requests, admin actions reached through
crafted payloads, and markup or SQL in deck text and user ids.

Secrets in the logs are checked on the real `quizbot run` in test_crash.py and test_drain.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from slack_sdk.models.blocks import Block

from bot.slack.dedup import SeenSignatures
from bot.testing.slack_requests import VERIFICATION_TOKEN
from tests.reliability.conftest import (
    ADMIN_ONLY,
    DECK,
    QUESTION,
    RIGHT,
    SECRET,
    STALE,
    WRONG,
    Live,
    LiveFactory,
    Shot,
    click_payload,
    eventually,
    reply_text,
    send_click,
    settle,
    write_decks,
)

FORM = "application/x-www-form-urlencoded"


def signature(body: str, timestamp: str, secret: str = SECRET) -> str:
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def command_body(live: Live, text: str, key: str, user: str = "U1", channel: str = "C1") -> str:
    return urlencode(
        {
            "token": VERIFICATION_TOKEN,
            "team_id": "T1",
            "team_domain": "team-t1",
            "channel_id": channel,
            "channel_name": "general",
            "user_id": user,
            "user_name": user.lower(),
            "command": "/quiz",
            "text": text,
            "api_app_id": "A1",
            "is_enterprise_install": "false",
            "response_url": live.fake.response_url(key),
            "trigger_id": "13345224609.738474920.8088930838d88f008e0",
        }
    )


async def quietly(*sends: Awaitable[Any]) -> list[int]:
    """Sends one after the other, then waits for all the work the requests started; the
    HTTP statuses."""
    before = set(asyncio.all_tasks())
    statuses = [(await send).status for send in sends]
    await settle(before)
    return statuses


# Forged and replayed requests -------------------------------------------------------------------


async def test_forged_signatures_are_refused(make_live: LiveFactory) -> None:
    live = await make_live()
    post_id = await live.post()
    key = "forged"
    body = urlencode({"payload": click_payload(live.tester, post_id, Shot("UF", 0, key))})
    now = str(int(time.time()))
    good = signature(body, now)
    variants = {
        "zeros": {"timestamp": now, "signature": "v0=" + "0" * 64},
        "another secret": {"timestamp": now, "signature": signature(body, now, "not-the-secret")},
        "upper-case hex": {"timestamp": now, "signature": "v0=" + good[3:].upper()},
        "v1 scheme": {"timestamp": now, "signature": "v1=" + good[3:]},
        "no scheme": {"timestamp": now, "signature": good[3:]},
        "truncated": {"timestamp": now, "signature": good[:-2]},
        "empty": {"timestamp": now, "signature": ""},
        "another timestamp": {"timestamp": str(int(now) + 1), "signature": good},
        "ten minutes old": {
            "timestamp": str(int(now) - 600),
            "signature": signature(body, str(int(now) - 600)),
        },
        "ten minutes ahead": {
            "timestamp": str(int(now) + 600),
            "signature": signature(body, str(int(now) + 600)),
        },
        "timestamp not a number": {"timestamp": "now", "signature": signature(body, "now")},
        "empty timestamp": {"timestamp": "", "signature": signature(body, "")},
    }
    statuses = {}
    for name, headers in variants.items():
        sent = await live.tester.send(body, FORM, key=key, **headers)
        statuses[name] = sent.status
    body_changed = await live.tester.send(body + "&x=1", FORM, timestamp=now, signature=good)
    statuses["body changed after signing"] = body_changed.status
    print(f"\nforged: {len(statuses)} variants -> {sorted(set(statuses.values()))}")
    assert set(statuses.values()) == {401}, statuses
    await live.fake.until_idle(quiet=0.3)  # what a forged click set going has come
    assert await live.app.store.answer_count(post_id) == 0
    assert not live.fake.replies(key)


async def test_a_replayed_click_is_acknowledged_and_changes_nothing(make_live: LiveFactory) -> None:
    live = await make_live()
    post_id = await live.post()
    body = urlencode({"payload": click_payload(live.tester, post_id, Shot("UR", 1, "once"))})
    ts = str(int(time.time()))
    sig = signature(body, ts)
    first = await quietly(live.tester.send(body, FORM, timestamp=ts, signature=sig))
    assert first == [200]
    assert WRONG in reply_text(await live.reply("once"))
    replays = await quietly(
        *(live.tester.send(body, FORM, timestamp=ts, signature=sig) for _ in range(3))
    )
    print(
        f"\nreplayed click: first 200, replays {replays}; replies {len(live.fake.replies('once'))}"
    )
    assert replays == [200, 200, 200]
    assert len(live.fake.replies("once")) == 1  # not handled again: no second reply
    assert await live.app.store.answer_count(post_id) == 1
    assert await live.app.store.post_answer_of(post_id, "UR") == 1


async def test_a_replayed_slash_command_posts_once(make_live: LiveFactory) -> None:
    live = await make_live()
    body = command_body(live, f"post {DECK} {QUESTION}", "post")
    ts = str(int(time.time()))
    sig = signature(body, ts)
    statuses = await quietly(
        *(live.tester.send(body, FORM, timestamp=ts, signature=sig) for _ in range(3))
    )
    assert statuses == [200, 200, 200]
    await eventually(lambda: bool(live.fake.successful("chat.postMessage")))
    await live.fake.until_idle(quiet=0.3)  # a second post would have come by now
    posted = live.fake.successful("chat.postMessage")
    print(f"\nreplayed /quiz post: statuses {statuses}, {len(posted)} question(s) posted")
    assert len(posted) == 1

    # The same words in a new request (a new timestamp) are a new command, not a replay.
    help_body = command_body(live, "help", "help")
    for offset in (0, 1):
        t = str(int(ts) + offset)
        await quietly(
            live.tester.send(help_body, FORM, timestamp=t, signature=signature(help_body, t))
        )
    assert len(live.fake.replies("help")) == 2


def test_signatures_are_remembered_for_the_five_minutes_they_are_valid() -> None:
    now = 1_000_000.0
    seen = SeenSignatures(window=300, size=3, clock=lambda: now)
    assert seen.first_time("v0=a", int(now))
    assert not seen.first_time("v0=a", int(now))  # a replay
    assert seen.first_time("v0=b", int(now))
    now += 301  # both timestamps are too old for the signature check now: forgotten
    assert seen.first_time("v0=c", int(now))
    assert list(seen._seen) == ["v0=c"]
    for name in "defg":  # bounded: beyond `size`, the oldest are forgotten first
        assert seen.first_time(f"v0={name}", int(now))
    assert list(seen._seen) == ["v0=e", "v0=f", "v0=g"]


# Admin actions -----------------------------------------------------------------------------


async def test_a_non_admin_cannot_reach_admin_actions(make_live: LiveFactory) -> None:
    live = await make_live(admins=())
    live.fake.admins.add("UADMIN")  # a workspace admin, per users.info
    post_id = await live.post(user="UPOSTER")
    store = live.app.store

    async def refused(sent_key: str) -> str:
        return reply_text(await live.reply(sent_key))

    # The reset confirm button, crafted, with admin-looking claims in the payload.
    key = "reset"
    payload = live.tester.action_payload("quiz_reset_yes", "s:1", user="UNOBODY", key=key)
    payload["user"] |= {"is_admin": True, "is_owner": True, "is_primary_owner": True}
    payload["is_admin"] = True
    await quietly(live.tester.send_payload(payload, key))
    assert ADMIN_ONLY in await refused(key)
    assert (await store.server("slack:T1")).season == 1

    # Admin commands typed by a non-admin.
    checks = {
        "schedule set 09:00 UTC rel daily": ADMIN_ONLY,
        "schedule off": ADMIN_ONLY,
        "language bn server": ADMIN_ONLY,
        "reset": ADMIN_ONLY,
        "close": "Only whoever posted this question, or an admin, can close it.",
    }
    for text, expected in checks.items():
        before = set(asyncio.all_tasks())
        sent = await live.tester.command(text, user="UNOBODY")
        await settle(before)
        assert sent.status == 200
        assert expected in await refused(sent.key), text
    assert (await store.server("slack:T1")).locale is None
    assert not await store.server_schedules("slack:T1")
    post = await store.post(post_id)
    assert post is not None and post.is_open

    # A click on this workspace's post sent from another workspace.
    other = live.tester.action_payload(
        "quiz_answer_A", f"p:{post_id}:0", user="UX", team="T2", key="t2"
    )
    await quietly(live.tester.send_payload(other, "t2"))
    assert STALE in reply_text(await live.reply("t2"))
    assert await store.post_answer_of(post_id, "UX") is None

    # The same button pressed by a real admin does reset: the refusals above were not luck.
    admin_reset = live.tester.action_payload("quiz_reset_yes", "s:1", user="UADMIN", key="ok")
    await quietly(live.tester.send_payload(admin_reset, "ok"))
    assert "2" in reply_text(await live.reply("ok"))
    assert (await store.server("slack:T1")).season == 2
    print(
        f"\nnon-admin: reset button + {len(checks)} admin commands refused; "
        "a real admin's reset went through"
    )


# Markup, mentions and SQL as data --------------------------------------------------------------

DANGER = [
    "@everyone",
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "<@U123>",
    "*bold*",
    "<https://evil.example|click>",
    "'; DROP TABLE answers;--",
]
EVIL = " ".join(DANGER)
EVIL_DECK: dict[str, Any] = {
    "id": "evil",
    "title": f"Evil {EVIL}",
    "locales": ["en"],
    "shuffle": False,
    "questions": [
        {
            "id": "q1",
            "text": f"Question {EVIL}?",
            "choices": [f"Right {EVIL}", {"text": f"Wrong {EVIL}", "why": f"Why {EVIL}"}],
            "answer": 0,
            "explanation": f"Because {EVIL}",
        }
    ],
}
EVIL_USERS = ["U'; DROP TABLE answers;--", "<!channel>", "<@U123>", "*U*", "UPLAIN"]
EVIL_CHANNEL = "C'; DROP TABLE posts;--"
LIVE_MARKUP = re.compile(r"<[^>]*>")


def texts(node: Any, kind: str = "") -> list[tuple[str, str]]:
    """(type, text) of every text object in a Block Kit tree."""
    out: list[tuple[str, str]] = []
    if isinstance(node, dict):
        if isinstance(node.get("text"), str) and node.get("type") in ("mrkdwn", "plain_text"):
            out.append((node["type"], node["text"]))
        for value in node.values():
            out += texts(value)
    elif isinstance(node, list):
        for item in node:
            out += texts(item)
    return out


def check_markup(sent: dict[str, Any], mentionable: set[str]) -> None:
    """mrkdwn (and the `text` fallback) carries no live mention, broadcast or link other than
    `<@U...>` of users the bot means to mention; deck text is shown in plain_text only."""
    assert sent.get("parse") not in ("full",) and not sent.get("link_names"), sent
    if isinstance(sent.get("blocks"), list):
        for raw in sent["blocks"]:
            block = Block.parse(raw)
            assert block is not None, raw
            block.validate_json()
    marked = [t for kind, t in texts(sent.get("blocks", [])) if kind == "mrkdwn"]
    for md in marked:
        assert "*bold*" not in md, md  # deck text is never in mrkdwn, only in plain_text
    if isinstance(sent.get("text"), str):  # notifications: escaped, emphasis left as is
        marked.append(sent["text"])
    for md in marked:
        for token in LIVE_MARKUP.findall(md):
            match = re.fullmatch(r"<@([UW][A-Z0-9]+)>", token)
            assert match is not None and match[1] in mentionable, (token, md)


async def test_markup_and_sql_in_decks_and_user_ids_stay_text(
    make_live: LiveFactory, tmp_path: Path
) -> None:
    folder = write_decks(tmp_path / "evil-decks", EVIL_DECK)
    live = await make_live(deck_folder=folder)
    fake, store = live.fake, live.app.store
    post_id = await live.post("evil q1", user="UPOSTER", channel=EVIL_CHANNEL)
    for i, user in enumerate(EVIL_USERS):
        shot = Shot(user, i % 2, f"evil-{i}")
        await quietly(send_click(live.tester, post_id, shot))
        assert (RIGHT if shot.shown == 0 else WRONG) in reply_text(await live.reply(shot.key))
    for text in ("leaderboard", "leaderboard all evil", "decks", "stats <@UPLAIN|*x* <!here>>",
                 "stats <!channel>", f"post {EVIL}"):  # fmt: skip
        await quietly(live.tester.command(text, user="UPLAIN"))
    await quietly(live.tester.command("close", user="UPOSTER", channel=EVIL_CHANNEL))
    # After the close: a run passes over a question open in the server (fair play).
    await quietly(live.tester.command("start evil", user="UPLAIN"))
    start = fake.responses[-1]
    run_button = next(
        e for b in start.body["blocks"] if b["type"] == "actions" for e in b["elements"]
    )
    await quietly(live.tester.click(run_button["action_id"], run_button["value"], user="UPLAIN"))
    await eventually(
        lambda: any("Answer" in json.dumps(u.params) for u in fake.successful("chat.update"))
    )

    sent = [c.params for c in fake.calls if "blocks" in c.params or "text" in c.params]
    sent += [p.body for p in fake.responses]
    for payload in sent:
        check_markup(payload, mentionable={"UPLAIN", "UPOSTER"})
    shown = "\n".join(
        t for p in sent for kind, t in texts(p.get("blocks", [])) if kind == "plain_text"
    )
    for danger in DANGER:
        assert danger in shown, danger  # shown as written, as plain text
    print(f"\nmarkup: {len(sent)} payloads checked, every danger shown as plain text only")

    # Stored verbatim, through bound parameters: the tables are all still there.
    for i, user in enumerate(EVIL_USERS):
        assert await store.post_answer_of(post_id, user) == i % 2
    assert await store.answer_count(post_id) == len(EVIL_USERS)
    post = await store.post(post_id)
    assert post is not None and post.channel_id == EVIL_CHANNEL
