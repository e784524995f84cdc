"""Block Kit limits hold for any deck text: long texts are clipped, never refused by Slack."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from slack_sdk.models.blocks import Block

from bot.decks.model import Choice, Deck, Question
from bot.domain.post import PostView, build_reveal
from bot.domain.records import PostRecord
from bot.slack import blocks
from bot.slack.mrkdwn import clip_markup, escape
from tests.platform.slack.conftest import TEST_DECK, Slack, validate_blocks


def _huge_view() -> PostView:
    long = "x<&>" * 2000
    question = Question(
        id="long",
        text={"en": long},
        choices=tuple(Choice({"en": long}, why={"en": long}) for _ in range(5)),
        answer=4,
        explanation={"en": long},
    )
    deck = Deck(id="long", title={"en": "T" * 400}, locales=("en",), questions=(question,))
    post = PostRecord(
        id=123456789012345678,
        server_id="slack:T1",
        channel_id="C1",
        deck_id="long",
        question_id="long",
        order=(4, 3, 2, 1, 0),
        locale="en",
        poster_id="U1",
        season=1,
        opened_at=datetime(2025, 1, 1, tzinfo=UTC),
    )
    return PostView(post, deck, question, answered=10**6)


def _check(reply: blocks.Reply) -> None:
    payload = reply.payload()  # to_dict() validates every block against Slack's limits
    assert len(payload["text"]) <= 3000
    assert len(payload["blocks"]) <= 50
    for raw in payload["blocks"]:
        parsed = Block.parse(raw)
        assert parsed is not None and parsed.to_dict() == raw


def test_long_deck_texts_stay_within_block_kit_limits() -> None:
    view = _huge_view()
    _check(blocks.question_post(view))
    _check(blocks.reveal_post(build_reveal(view, {0: 3, 4: 1}, closed_now=True)))
    header = blocks.question_post(view).payload()["blocks"][0]
    assert len(header["text"]["text"]) == 150 and header["text"]["text"].endswith("…")


async def test_every_payload_the_app_sends_parses_as_block_kit(slack: Slack) -> None:
    post_id = await slack.post(f"{TEST_DECK} capital")
    clicked = await slack.tester.click("quiz_answer_B", f"p:{post_id}:1", user="U2")
    reply = await slack.fake.reply(clicked.key)
    switched = await slack.tester.press(reply["blocks"], "বাংলায় দেখুন", user="U2", ephemeral=True)
    await slack.fake.reply(switched.key)
    for text in ("leaderboard", "stats", "decks", "help", f"start {TEST_DECK}", "close"):
        sent = await slack.tester.command(text)
        await slack.fake.reply(sent.key)
    await slack.tester.event(
        {"type": "app_home_opened", "user": "U2", "channel": "D1", "tab": "home"}
    )
    await slack.fake.until(lambda: bool(slack.fake.api("views.publish")))
    await slack.bot.posts.flush()
    assert validate_blocks(slack.fake) >= 11


def _view_of(text: str, choice: str, explanation: str) -> PostView:
    view = _huge_view()
    question = Question(
        id="fmt",
        text={"en": text},
        choices=(Choice({"en": choice}), Choice({"en": "plain"})),
        answer=0,
        explanation={"en": explanation},
    )
    deck = Deck(id="fmt", title={"en": "*Bold* deck"}, locales=("en",), questions=(question,))
    return PostView(replace(view.post, order=(0, 1)), deck, question, answered=0)


def test_deck_text_that_looks_like_mrkdwn_is_shown_as_written() -> None:
    view = _view_of("What does *args do in `f(*args)`?", "_init_ ~x~", "See `__init__`.")
    for reply in (blocks.question_post(view), blocks.reveal_post(build_reveal(view, {0: 1}, True))):
        payload = reply.payload()
        for block in payload["blocks"]:
            for obj in _text_objects(block):
                if any(mark in obj["text"] for mark in ("*args", "_init_", "`__init__`", "*Bold*")):
                    assert obj["type"] == "plain_text" and obj.get("emoji") is False, obj


def _text_objects(node: object) -> list[dict[str, str]]:
    if isinstance(node, list):
        return [o for item in node for o in _text_objects(item)]
    if not isinstance(node, dict):
        return []
    own = [node] if node.get("type") in ("plain_text", "mrkdwn") else []
    return own + [o for v in node.values() if isinstance(v, dict | list) for o in _text_objects(v)]


def test_mrkdwn_is_never_cut_inside_an_entity_or_a_mention() -> None:
    escaped = escape("&" * 2000)  # 2000 × "&amp;": 10,000 characters
    cut = clip_markup(escaped, 3000)
    assert len(cut) <= 3000 and cut.endswith("&amp;…")
    assert clip_markup("ab <@U123> cd", 8) == "ab …"
    assert clip_markup("ab &lt;x", 6) == "ab …"
    assert clip_markup("short &amp;", 100) == "short &amp;"
    reply = blocks.text_reply("&" * 5000)
    assert len(reply.payload()["text"]) <= 3000 and reply.payload()["text"].endswith("&amp;…")
