"""Block Kit limits hold for any deck text: long texts are clipped, never refused by Slack."""

from __future__ import annotations

from datetime import UTC, datetime

from slack_sdk.models.blocks import Block

from bot.core.deck import Choice, Deck, Question
from bot.core.post import PostView, build_reveal
from bot.core.store import PostRecord
from bot.slack import blocks
from tests.slack.conftest import TEST_DECK, Slack, validate_blocks


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
