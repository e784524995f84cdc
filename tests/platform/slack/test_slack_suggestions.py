"""Questions the team writes, on Slack, through the real bolt app and the fake Slack: a member
suggests a question with a length tell, is coached, edits and sends it; an admin approves it
from the queue; it is posted, answered and revealed with its author's credit (no ping); a
rejection reaches its author; a member cannot approve."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlencode

from bot.domain.suggestion import Field
from bot.testing.slack_requests import VERIFICATION_TOKEN, Sent, all_text, buttons
from tests.platform.slack.conftest import Slack, SlackFactory

ADMIN = "UCONFIGADMIN"
AUTHOR = "U2"
TELLS = {
    Field.QUESTION: "Which file format does a <!channel> team deck use in git?",
    Field.RIGHT: "YAML with one mapping per question and its explanation",
    Field.WRONG: "JSON\nTOML\nCSV",
    Field.EXPLANATION: "Deck files are YAML: comments and multi-line text read well in review.",
    Field.WHYS: "JSON has no comments\nTOML is for config\nCSV cannot hold whys",
}


def _view(params: dict[str, Any]) -> dict[str, Any]:
    view = params["view"]
    return view if isinstance(view, dict) else json.loads(view)


def screenshot(title: str, blocks: list[dict[str, Any]]) -> None:
    """The rendered blocks as text, for the record (pytest's figures section)."""
    print(f"--- {title} ---")
    for line in all_text(blocks).splitlines():
        print(f"  {line}")


def _user(user: str) -> dict[str, Any]:
    return {"id": user, "username": user.lower(), "name": user.lower(), "team_id": "T1"}


async def _send(slack: Slack, payload: dict[str, Any]) -> Sent:
    body = urlencode({"payload": json.dumps(payload)})
    return await slack.tester.send(body, "application/x-www-form-urlencoded")


def submission(
    callback: str, values: dict[str, Any], user: str, metadata: str = "", view_id: str = "V2"
) -> dict[str, Any]:
    return {
        "type": "view_submission",
        "team": {"id": "T1", "domain": "team-t1"},
        "user": _user(user),
        "api_app_id": "A1",
        "token": VERIFICATION_TOKEN,
        "trigger_id": "12345.98765.abcd2358fdea",
        "view": {
            "id": view_id,
            "team_id": "T1",
            "type": "modal",
            "blocks": [],
            "private_metadata": metadata,
            "callback_id": callback,
            "state": {"values": values},
            "hash": f"{int(time.time())}.abc",
            "title": {"type": "plain_text", "text": "Suggest a question"},
            "app_id": "A1",
            "bot_id": "B1",
        },
        "response_urls": [],
        "is_enterprise_install": False,
        "enterprise": None,
    }


def form_values(fields: dict[Field, str]) -> dict[str, Any]:
    return {
        f.value: {f.value: {"type": "plain_text_input", "value": fields.get(f) or None}}
        for f in Field
    }


def view_click(action_id: str, value: str, user: str, view_id: str = "V2") -> dict[str, Any]:
    """A button clicked inside a modal (the coaching's Edit / Submit anyway)."""
    return {
        "type": "block_actions",
        "team": {"id": "T1", "domain": "team-t1"},
        "user": _user(user),
        "api_app_id": "A1",
        "token": VERIFICATION_TOKEN,
        "container": {"type": "view", "view_id": view_id},
        "trigger_id": "12466734323.1395872398.7ccc3e57d1fa2a2e2a2a2a2a2a2a2a2a",
        "view": {"id": view_id, "type": "modal", "blocks": [], "state": {"values": {}}},
        "actions": [
            {
                "action_id": action_id,
                "block_id": "suggest_choice",
                "text": {"type": "plain_text", "text": "x", "emoji": True},
                "value": value,
                "type": "button",
                "action_ts": f"{time.time():.6f}",
            }
        ],
    }


async def _updated(slack: Slack, count: int) -> dict[str, Any]:
    await slack.fake.until(lambda: len(slack.fake.api("views.update")) >= count, 10.0)
    return _view(slack.fake.api("views.update")[count - 1].params)


async def _suggest(slack: Slack, fields: dict[Field, str], user: str = AUTHOR) -> dict[str, Any]:
    """Opens the form and sends it; the view the form turned into once checked."""
    before = len(slack.fake.api("views.update"))
    await slack.tester.command("suggest", user=user)
    await slack.fake.until(lambda: bool(slack.fake.api("views.open")))
    sent = await _send(slack, submission("quiz_suggest_form", form_values(fields), user))
    answer = json.loads(sent.body)
    assert answer["response_action"] == "update"
    assert "Checking your question" in all_text(answer["view"]["blocks"])
    return await _updated(slack, before + 1)


async def test_suggest_coach_edit_approve_play_and_credit(slack: Slack) -> None:
    slack.app.services.deliveries.register(
        "slack", slack.bot.delivery
    )  # what run_slack does once up
    await slack.tester.command("suggest", user=AUTHOR)
    await slack.fake.until(lambda: bool(slack.fake.api("views.open")))
    form = _view(slack.fake.api("views.open")[-1].params)
    screenshot("Slack: the form (/quiz suggest)", form["blocks"])
    assert form["callback_id"] == "quiz_suggest_form" and form["notify_on_close"] is True
    labels = [b["label"]["text"] for b in form["blocks"]]
    assert labels[0] == "The question (up to 300 characters)"
    assert [b["element"]["max_length"] for b in form["blocks"]] == [300, 120, 500, 600, 800]

    refused = await _send(
        slack, submission("quiz_suggest_form", form_values({**TELLS, Field.WRONG: ""}), AUTHOR)
    )
    assert json.loads(refused.body) == {
        "response_action": "errors",
        "errors": {"wrong": "Write 1 to 4 wrong answers, one per line."},
    }

    sent = await _send(slack, submission("quiz_suggest_form", form_values(TELLS), AUTHOR))
    assert json.loads(sent.body)["response_action"] == "update"
    coached = await _updated(slack, 1)
    screenshot("Slack: the coaching", coached["blocks"])
    said = all_text(coached["blocks"])
    assert "The right answer is the longest choice by far" in said
    assert "&lt;!channel&gt;" in said  # escaped, and shown verbatim: no @channel
    assert all(
        b["text"].get("verbatim") is True for b in coached["blocks"][1:] if b["type"] == "section"
    )
    edit, anyway = buttons(coached["blocks"])
    assert (edit["text"]["text"], anyway["text"]["text"]) == ("Edit", "Submit anyway")

    await _send(slack, view_click(edit["action_id"], edit["value"], AUTHOR))
    reopened = await _updated(slack, 2)
    assert [b["element"].get("initial_value") for b in reopened["blocks"]] == [
        TELLS[f] for f in Field
    ]  # nothing typed is lost

    fixed = {**TELLS, Field.RIGHT: "YAML"}
    await _send(slack, submission("quiz_suggest_form", form_values(fixed), AUTHOR))
    done = await _updated(slack, 3)
    assert "The lint found nothing to fix. Sent to the admins." in all_text(done["blocks"])

    member = await slack.tester.command("suggestions", user="U3")
    assert "Only an admin" in json.dumps(await slack.fake.reply(member.key))
    asked = await slack.tester.command("suggestions", user=ADMIN)
    queue = (await slack.fake.reply(asked.key))["blocks"]
    screenshot("Slack: the admins' queue (/quiz suggestions)", queue)
    assert "Suggestions waiting: 1" in all_text(queue)
    assert "#1 by @u2" in all_text(queue)
    approve = next(b for b in buttons(queue) if b["text"]["text"] == "Approve")
    not_admin = await slack.tester.click(approve["action_id"], approve["value"], user="U3")
    assert "Only an admin" in json.dumps(await slack.fake.reply(not_admin.key))
    assert await slack.app.services.suggestions.store.approved() == []

    approved = await slack.tester.click(approve["action_id"], approve["value"], user=ADMIN)
    reply = await slack.fake.reply(approved.key)
    assert reply["replace_original"] is True
    assert "Approved #1: it is question q1 of Our questions now." in all_text(reply["blocks"])
    assert "No suggestion is waiting." in all_text(reply["blocks"])
    await slack.fake.until(
        lambda: any(c.params.get("channel") == AUTHOR for c in slack.fake.api("chat.postMessage"))
    )
    told = next(c for c in slack.fake.api("chat.postMessage") if c.params["channel"] == AUTHOR)
    assert "was approved: it is question 1 of “Our questions” now" in told.params["text"]

    post_id = await slack.post("team")
    posted = slack.fake.api("chat.postMessage")[-1].params
    assert "Which file format" in all_text(posted["blocks"])
    right = await slack.right_shown(post_id)
    click = await slack.tester.click(
        f"quiz_answer_{'ABCD'[right]}", f"p:{post_id}:{right}", user="U5"
    )
    assert "Right" in all_text((await slack.fake.reply(click.key))["blocks"])
    await slack.tester.command("close")
    await slack.fake.until(lambda: bool(slack.fake.api("chat.update")))
    await slack.fake.until(
        lambda: "Question by" in json.dumps(slack.fake.api("chat.update")[-1].params), 10.0
    )
    reveal = slack.fake.api("chat.update")[-1].params
    assert "Question by @u2" in all_text(reveal["blocks"])
    assert "<@U2>" not in json.dumps(reveal)  # a name, not a mention: nobody is pinged

    stats = await slack.fake.reply((await slack.tester.command("stats <@U2>", user="U5")).key)
    screenshot("Slack: /quiz stats of the author", stats["blocks"])
    said = all_text(stats["blocks"])
    assert "Questions written: 1" in said
    assert (
        "1. “Which file format does a &lt;!channel&gt; team deck use in git?”: answered 1, " in said
    )
    assert "100% right" in said


async def test_a_rejection_reaches_its_author_with_the_reason(slack: Slack) -> None:
    slack.app.services.deliveries.register("slack", slack.bot.delivery)
    done = await _suggest(slack, {**TELLS, Field.RIGHT: "YAML"})
    assert "Sent to the admins" in all_text(done["blocks"])
    asked = await slack.tester.command("suggestions", user=ADMIN)
    queue = (await slack.fake.reply(asked.key))["blocks"]
    reject = next(b for b in buttons(queue) if b["text"]["text"] == "Reject")
    opened = len(slack.fake.api("views.open"))
    await slack.tester.click(reject["action_id"], reject["value"], user=ADMIN)
    await slack.fake.until(lambda: len(slack.fake.api("views.open")) > opened)
    form = _view(slack.fake.api("views.open")[-1].params)
    assert form["callback_id"] == "quiz_suggest_reject_form"
    values = {"reason": {"reason": {"type": "plain_text_input", "value": "We ask this <@U9>."}}}
    sent = await _send(
        slack, submission("quiz_suggest_reject_form", values, ADMIN, form["private_metadata"])
    )
    assert "Rejected #1" in json.dumps(json.loads(sent.body))
    await slack.fake.until(
        lambda: any(c.params.get("channel") == AUTHOR for c in slack.fake.api("chat.postMessage"))
    )
    told = next(c for c in slack.fake.api("chat.postMessage") if c.params["channel"] == AUTHOR)
    assert "was not approved. The admin said: We ask this" in told.params["text"]
    assert "<@U9>" not in json.dumps(told.params)


async def test_a_form_closed_unsent_opens_filled_in(slack: Slack) -> None:
    closed = submission("quiz_suggest_form", form_values(TELLS), AUTHOR)
    closed["type"] = "view_closed"
    closed["is_cleared"] = False
    await _send(slack, closed)
    await slack.tester.command("suggest", user=AUTHOR)
    await slack.fake.until(lambda: bool(slack.fake.api("views.open")))
    form = _view(slack.fake.api("views.open")[-1].params)
    assert [b["element"].get("initial_value") for b in form["blocks"]] == [TELLS[f] for f in Field]


async def test_a_form_closed_while_the_database_refuses_is_answered_and_nothing_breaks(
    slack: Slack, caplog: Any
) -> None:
    """The draft is stored before Slack is answered; when the database refuses it, Slack is
    answered all the same (the form is gone: no one is left to tell), it is logged, and the
    next form opens as usual."""
    from bot.service.ports import StoreUnavailable

    box = slack.app.services.suggestions
    real = box.store.save_draft

    async def refused(*args: object, **kwargs: object) -> None:
        raise StoreUnavailable()

    box.store.save_draft = refused  # type: ignore[method-assign]
    closed = submission("quiz_suggest_form", form_values(TELLS), AUTHOR)
    closed["type"] = "view_closed"
    closed["is_cleared"] = False
    sent = await _send(slack, closed)
    assert sent.status == 200
    assert "its draft could not be kept" in caplog.text
    box.store.save_draft = real  # type: ignore[method-assign]
    await slack.tester.command("suggest", user=AUTHOR)
    await slack.fake.until(lambda: bool(slack.fake.api("views.open")))
    form = _view(slack.fake.api("views.open")[-1].params)
    assert [b["element"].get("initial_value") for b in form["blocks"]] == [None] * len(Field)


async def test_an_approver_the_config_names_decides_without_being_admin(
    make_slack: SlackFactory,
) -> None:
    slack = await make_slack(extra='\n[suggestions]\napprovers = ["U7"]\n')
    await _suggest(slack, {**TELLS, Field.RIGHT: "YAML"})
    asked = await slack.tester.command("suggestions", user="U7")
    queue = (await slack.fake.reply(asked.key))["blocks"]
    approve = next(b for b in buttons(queue) if b["text"]["text"] == "Approve")
    done = await slack.tester.click(approve["action_id"], approve["value"], user="U7")
    assert "Approved #1" in all_text((await slack.fake.reply(done.key))["blocks"])


async def test_an_admin_edits_a_waiting_suggestion_in_the_form(slack: Slack) -> None:
    await _suggest(slack, {**TELLS, Field.RIGHT: "YAML"})
    asked = await slack.tester.command("suggestions", user=ADMIN)
    queue = (await slack.fake.reply(asked.key))["blocks"]
    edit = next(b for b in buttons(queue) if b["text"]["text"] == "Edit")
    opened = len(slack.fake.api("views.open"))
    await slack.tester.click(edit["action_id"], edit["value"], user=ADMIN)
    await slack.fake.until(lambda: len(slack.fake.api("views.open")) > opened)
    form = _view(slack.fake.api("views.open")[-1].params)
    assert form["private_metadata"] == '{"e": 1}' and form["notify_on_close"] is False
    assert form["blocks"][1]["element"]["initial_value"] == "YAML"
    better = {**TELLS, Field.RIGHT: "YAML", Field.QUESTION: "Which format is a deck file in?"}
    before = len(slack.fake.api("views.update"))
    forged = await _send(
        slack, submission("quiz_suggest_form", form_values(better), "U3", '{"e": 1}')
    )
    assert json.loads(forged.body)["response_action"] == "update"
    refused = await _updated(slack, before + 1)
    assert "Only an admin" in all_text(refused["blocks"])  # a member cannot edit it
    await _send(slack, submission("quiz_suggest_form", form_values(better), ADMIN, '{"e": 1}'))
    done = await _updated(slack, before + 2)
    assert "Saved your edit of #1." in all_text(done["blocks"])
    [waiting] = await slack.app.services.suggestions.store.waiting("slack:T1", 10)
    assert waiting.draft.question == "Which format is a deck file in?"


async def test_a_form_the_database_cannot_take_stays_open_as_typed(slack: Slack) -> None:
    """An ack is a promise: the form is stored before Slack is told it went. When the
    database refuses, the form stays open with what was typed, and says it was not saved."""
    from bot.service.ports import StoreUnavailable

    box = slack.app.services.suggestions

    async def refused(*args: object, **kwargs: object) -> None:
        raise StoreUnavailable()

    box.store.save_draft = refused  # type: ignore[method-assign]
    await slack.tester.command("suggest", user=AUTHOR)
    await slack.fake.until(lambda: bool(slack.fake.api("views.open")))
    sent = await _send(slack, submission("quiz_suggest_form", form_values(TELLS), AUTHOR))
    answer = json.loads(sent.body)
    assert answer["response_action"] == "errors"
    assert "not saved" in answer["errors"][Field.QUESTION.value]
    assert not slack.fake.api("views.update")  # never turned into "checking"
