"""Slack's Web API and response_url failing once: a 429 with Retry-After, a 500, no answer
within the client's timeout, a connection closed without an answer. The bot acknowledges
in time regardless, and retries until the private reply is sent and the answered count is
redrawn. A question's post is retried only after a 429: any other failure may have posted
it, so the post is given up and the poster told, never sent twice."""

from __future__ import annotations

import pytest

from tests.reliability.conftest import (
    DECK,
    FAULTS,
    QUESTION,
    RIGHT,
    LiveFactory,
    Shot,
    eventually,
    fault_named,
    reply_text,
    send_click,
)

METHODS = ("chat.postMessage", "response_url", "chat.update")
TIMEOUT = 1  # seconds the bot waits for Slack in this test (the fake hangs for 3)


@pytest.mark.parametrize("fault", FAULTS)
async def test_each_slack_call_is_retried(
    make_live: LiveFactory, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    monkeypatch.setattr("bot.slack.client.TIMEOUT", TIMEOUT)
    live = await make_live()
    fake = live.fake
    retried = METHODS if fault == "429" else METHODS[1:]
    for method in retried:
        fake.faults.next(method, fault_named(fault))

    post_id = await live.post()  # chat.postMessage: the fault (429), then the retry
    assert live.command_elapsed < 3.0, f"/quiz post was acked after {live.command_elapsed:.2f}s"
    click = await send_click(live.tester, post_id, Shot("U1", 0, "click"))
    assert click.status == 200
    assert click.elapsed < 3.0, f"the click was acked after {click.elapsed:.2f}s"
    assert RIGHT in reply_text(await live.reply("click"))  # response_url: fault, then retry

    async def redrawn() -> bool:
        updates = fake.successful("chat.update")
        return any("1 answered" in str(u.params.get("blocks")) for u in updates)

    await eventually(redrawn)
    retries = {m: fake.faults.attempts[m] - 1 for m in retried}
    served = fake.faults.served
    print(f"\n{fault}: faults injected {len(served)}, retries seen by the fake {retries}")
    assert sorted((m, f) for m, f in served) == sorted((m, fault_named(fault)) for m in retried)
    assert all(n >= 1 for n in retries.values()), retries
    assert len(fake.successful("chat.postMessage")) == 1  # the question posted once
    assert len(fake.replies("click")) == 1  # and the reply sent once
    assert await live.app.store.answer_count(post_id) == 1


@pytest.mark.parametrize("fault", ["500-done", "500", "hang", "close"])
async def test_a_question_post_that_may_have_arrived_is_not_sent_twice(
    make_live: LiveFactory, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """Before, chat.postMessage was retried after a timeout or a 5xx: with a Slack that
    posted and then failed, two messages appeared and only the second became the post."""
    monkeypatch.setattr("bot.slack.client.TIMEOUT", TIMEOUT)
    live = await make_live()
    live.fake.faults.next("chat.postMessage", fault_named(fault))
    sent = await live.tester.command(f"post {DECK} {QUESTION}", user="UPOSTER")
    assert sent.status == 200
    told = reply_text(await live.reply(sent.key))
    print(f"\n{fault}: the poster is told: {told!r}")
    assert live.fake.faults.attempts["chat.postMessage"] == 1  # tried once, never again
    assert told.startswith("Slack did not confirm that the question was posted, so I did not")
    assert await live.app.store.open_questions("slack:T1") == {}  # withdrawn: no open post
