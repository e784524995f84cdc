"""The Discord gateway drops the bot's connection: the real discord.py client resumes its
session (RESUME with the session id and its last sequence, at READY's resume_gateway_url,
no new IDENTIFY); a click sent while it was away is replayed on resume and answered, like
the clicks after it, each stored once. A session Discord invalidates is IDENTIFYed afresh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.conftest import answers_by_user
from tests.reliability.discord_live import fake, make_bot

from discord_harness import BotFactory, DiscordBot, Person  # isort: skip
from bot.testing.fake_discord import (  # isort: skip
    GATEWAY_PATH,
    IDENTIFY,
    RESUME,
    RESUME_PATH,
    TOKEN,
    Drop,
    FakeDiscord,
    Interaction,
)

__all__ = ["fake", "make_bot"]  # fixtures
ANSWERS = ("✅ Right!", "❌ Not quite.")


class Clicks:
    """People clicking the buttons of one question in turn, and what each was told."""

    def __init__(self, bot: DiscordBot, post_id: int, message_id: str) -> None:
        self.bot = bot
        self.post_id = post_id
        self.message = bot.fake.messages[message_id]
        self.buttons = [c for row in self.message["components"] for c in row["components"]]
        self.sent: list[tuple[Person, str, Interaction]] = []

    async def send(self, count: int) -> list[Interaction]:
        """`count` clicks by new people, sent at once (no reply awaited)."""
        records = []
        for _ in range(count):
            n = len(self.sent)
            person = Person(20_000 + n, f"user{n}")
            button = self.buttons[n % len(self.buttons)]
            payload = self.bot.click_payload(self.message, button["custom_id"], by=person)
            record = await self.bot.fake.dispatch_interaction(payload)
            self.sent.append((person, button["label"], record))
            records.append(record)
        return records

    async def answered(self, records: list[Interaction], within: float = 15.0) -> int:
        """Waits for each click's reply; the number answered with a right/wrong verdict."""
        right = await self.bot.right_label(self.post_id)
        labels = {r.token: label for _, label, r in self.sent}
        count = 0
        for record in records:
            try:
                reply = await self.bot.reply(record, within)
            except TimeoutError:
                raise AssertionError(
                    f"no reply within {within} s to {labels[record.token]}"
                ) from None
            expected = ANSWERS[0] if labels[record.token] == right else ANSWERS[1]
            assert reply.ephemeral and reply.embed["title"] == expected, reply
            count += 1
        return count

    def stored(self, db: Path) -> dict[str, list[int]]:
        return answers_by_user(db, self.post_id)


async def open_question(bot: DiscordBot) -> Clicks:
    post_id, posted = await bot.post(deck="basics", question="all-reduce")
    assert posted.message_id is not None
    return Clicks(bot, post_id, posted.message_id)


def summary(label: str, fake: FakeDiscord, clicks: Clicks, answered: int, stored: int) -> str:
    return (
        f"\ngateway {label}: {len(clicks.sent)} clicks sent, {answered} answered, "
        f"{stored} stored; drops injected {len(fake.drops)}, IDENTIFY {len(fake.identifies)}, "
        f"RESUME {len(fake.resumes)}, dispatches replayed {fake.replayed}"
    )


@pytest.mark.parametrize("how", ["abort", "close", "reconnect"])
async def test_a_dropped_connection_is_resumed_and_clicks_during_and_after_are_answered(
    make_bot: BotFactory, fake: FakeDiscord, tmp_path: Path, how: Drop
) -> None:
    bot = await make_bot()
    clicks = await open_question(bot)
    answered = await clicks.answered(await clicks.send(5))
    session = fake.gateway_sessions[0]
    seq_at_drop = session.seq

    await fake.drop(how)
    away = await clicks.send(3)  # Discord keeps them in the session while the bot is away
    assert not fake.connected(), "the clicks were meant to arrive while the bot was away"
    await fake.until(lambda: fake.connected(), within=15)
    answered += await clicks.answered(away)
    answered += await clicks.answered(await clicks.send(5))

    stored = clicks.stored(tmp_path / "quiz.db")
    print(summary(how, fake, clicks, answered, sum(len(v) for v in stored.values())))
    assert len(fake.identifies) == 1, "a fresh IDENTIFY, not a RESUME"
    assert fake.resumes == [{"token": TOKEN, "session_id": session.id, "seq": seq_at_drop}]
    assert fake.replayed == [3]
    assert [(c.path, c.opened_with) for c in fake.connections] == [
        (GATEWAY_PATH, IDENTIFY),
        (RESUME_PATH, RESUME),
    ]
    assert answered == len(clicks.sent) == 13
    assert all(len(record.callbacks) == 1 for _, _, record in clicks.sent)
    assert sorted(stored) == sorted(str(p.id) for p, _, _ in clicks.sent)
    assert all(len(choices) == 1 for choices in stored.values())
    assert await bot.app.store.answer_count(clicks.post_id) == 13


async def test_an_invalidated_session_is_identified_again_and_clicks_after_are_answered(
    make_bot: BotFactory, fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await make_bot()
    clicks = await open_question(bot)
    answered = await clicks.answered(await clicks.send(3))
    old = fake.gateway_sessions[0]

    await fake.drop("invalidate")
    # discord.py waits 5 s before an IDENTIFY that is not its first
    await fake.until(lambda: len(fake.identifies) == 2 and fake.connected(), within=20)
    answered += await clicks.answered(await clicks.send(3))

    stored = clicks.stored(tmp_path / "quiz.db")
    print(summary("invalidate", fake, clicks, answered, sum(len(v) for v in stored.values())))
    assert fake.resumes == []
    assert fake.gateway_sessions[0].id != old.id
    assert [(c.path, c.opened_with) for c in fake.connections] == [
        (GATEWAY_PATH, IDENTIFY),
        (GATEWAY_PATH, IDENTIFY),
    ]
    assert answered == 6
    assert sorted(stored) == sorted(str(p.id) for p, _, _ in clicks.sent)
    assert all(len(choices) == 1 for choices in stored.values())
