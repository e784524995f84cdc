"""A workspace's default deck on Slack, end to end through the real bolt app and the fake
Slack: an admin sets it with `/quiz deck default DECK`, and `/quiz post` and `/quiz game`
without a deck play it; a member may see it but not set it; `/quiz decks` marks it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.domain.clock import ManualClock
from tests.slack.conftest import SEED_DECK, TEST_DECK, Slack, SlackFactory
from tests.slack.harness import all_text

START = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)
SEED_TITLE = "Model and Pipeline Parallelism Quiz"
SHIPPED = sorted(p.stem for p in (Path(__file__).parents[2] / "questions").glob("*.yaml"))
"""The shipped decks' ids (each file's name), which the test bot loads beside its own."""
ADMIN_ONLY = (
    "Only an admin can do that. On Slack, workspace admins and owners (and the users in "
    "[slack] admins) are admins."
)
HOW = "An admin sets it with /quiz deck default DECK, and clears it with /quiz deck default none."


async def say(slack: Slack, text: str, **kwargs: Any) -> str:
    sent = await slack.tester.command(text, **kwargs)
    assert sent.status == 200 and sent.body == ""
    reply = await slack.fake.reply(sent.key)
    assert reply["response_type"] == "ephemeral"
    return all_text(reply["blocks"])


def channel_posts(slack: Slack) -> list[str]:
    return [all_text(c.params["blocks"]) for c in slack.fake.api("chat.postMessage")]


async def test_an_admin_sets_the_default_and_post_and_game_play_it(
    make_slack: SlackFactory,
) -> None:
    slack = await make_slack(clock=ManualClock(START))
    assert slack.bot.delivery is not None
    # What run_slack does once up:
    slack.app.services.deliveries.register("slack", slack.bot.delivery)
    slack.fake.admins.add("UADMIN")

    assert await say(slack, "deck default", user="U2") == (
        f"★ {TEST_DECK} is the default deck, as the first by id (none is set for this server "
        f"or in the config).\n{HOW}"
    )
    assert await say(slack, f"deck default {SEED_DECK}", user="U2") == ADMIN_ONLY
    assert await slack.app.store.server_default_deck("slack:T1") is None
    unknown = await say(slack, "deck default pipelines", user="UADMIN")
    assert unknown == f"There is no deck “pipelines”. Decks: {', '.join(['basics', *SHIPPED])}"

    done = await say(slack, f"deck default {SEED_DECK}", user="UADMIN")
    assert done == (
        "Default deck changed.\n"
        f"★ {SEED_DECK} is this server's default deck, set here: a command or daily question "
        "that names no deck uses it."
    )
    assert await slack.app.store.server_default_deck("slack:T1") == SEED_DECK

    post_id = await slack.post("", user="U2")
    post = await slack.app.store.post(post_id)
    assert post is not None and post.deck_id == SEED_DECK
    assert channel_posts(slack)[-1].startswith(f"{SEED_TITLE} · Question ")

    started = await say(slack, "game 2 10", user="U2")
    assert started == "Game on! The first question comes in a few seconds."
    await slack.app.services.games.tick()
    assert channel_posts(slack)[-1].startswith(f"🎮 Quiz game: {SEED_TITLE}")

    decks = await say(slack, "decks", user="U2")
    assert f"{SEED_DECK}: {SEED_TITLE} · 8 questions · বাংলা, English · ★ default" in decks
    assert f"{TEST_DECK}: Team <Quiz> & Co · 3 questions · English, বাংলা\n" in decks
    assert decks.endswith(
        f"★ {SEED_DECK} is this server's default deck, set here: a command or daily question "
        f"that names no deck uses it.\n{HOW}"
    )

    other = await slack.post("", team="T2", user="U9")  # another workspace: its own default
    other_post = await slack.app.store.post(other)
    assert other_post is not None and other_post.deck_id == TEST_DECK


async def test_clearing_it_and_the_usage_and_bengali(slack: Slack) -> None:
    await say(slack, "deck default distributed-jobs", user="UCONFIGADMIN")
    assert await say(slack, "language bn", user="U2") == "এখন থেকে আপনার ভাষা বাংলা।"
    assert await say(slack, "deck default", user="U2") == (
        "★ distributed-jobs এই সার্ভারের ডিফল্ট ডেক, এখানেই সেট করা: কোনো কমান্ড বা ডেইলি "
        "প্রশ্নে ডেক বলা না থাকলে এটাই চলে।\n"
        "অ্যাডমিনরা /quiz deck default DECK দিয়ে এটা সেট করতে পারেন, আর /quiz deck default "
        "none দিয়ে সরাতে পারেন।"
    )
    cleared = await say(slack, "deck default NONE", user="UCONFIGADMIN")
    assert cleared == (
        "This server's own default deck is cleared.\n"
        f"★ {TEST_DECK} is the default deck, as the first by id (none is set for this server "
        "or in the config)."
    )
    assert await slack.app.store.server_default_deck("slack:T1") is None
    usage = (
        "Usage: /quiz deck default [DECK|none]: shows this server's default deck; an admin "
        "sets it, or clears it with none."
    )
    assert await say(slack, "deck") == usage
    assert await say(slack, "deck default a b", user="UCONFIGADMIN") == usage
    assert not slack.fake.api("users.info")  # only setting it asks who is an admin
    helped = await say(slack, "help")
    assert "/quiz deck default [deck|none] · the deck used when a command names none" in helped
