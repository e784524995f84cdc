"""What the platform fault tests ask of each transport (tests/reliability/platforms.py), and
the checks every one of them ends with.

`Channel` speaks to the bot as a person in the channel would, on Slack (HTTP or Socket
Mode) or Discord: a command with its private reply, the daily question posted now by an
admin, a question closed. `after_the_fault` is what must hold once a fault is over:
every acknowledged click stored, once, as clicked; the public count and the reveal equal to
the answers stored; and the bot answers a new command without a restart.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from tests.reliability.conftest import (
    DECK,
    LETTERS,
    Database,
    answers_by_user,
    eventually,
    post_id_of,
    reply_text,
    rows_of,
)
from tests.reliability.platforms import (
    Click,
    DiscordGateway,
    Paced,
    SlackHttp,
    SlackSocket,
    Transport,
)
from tests.slack.harness import all_text

from discord_harness import ADMIN, ALICE, CHANNEL, visible  # isort: skip

ADMIN_ID = "UADMIN"
ROW = re.compile(r"\b([A-E]) [█░]+ (\d+) · \d+%")
"""A reveal's row: the choice as shown, its bar, how many picked it."""
VERDICTS = ("✅ Right!", "❌ Not quite.", "You already answered")


class Channel:
    """The bot as people in its channel meet it, whatever the platform."""

    def __init__(self, transport: Transport, db: Database) -> None:
        self.t = transport
        self.db = db
        self.shots: list[Click] = []
        self._keys = 0

    @property
    def discord(self) -> DiscordGateway | None:
        return self.t if isinstance(self.t, DiscordGateway) else None

    @property
    def slack(self) -> SlackHttp:
        assert isinstance(self.t, SlackHttp)
        return self.t

    # Commands --------------------------------------------------------------------

    async def slack_command(self, text: str, user: str = "U1") -> str:
        """`/quiz text` by `user` in C1; the words of its private reply."""
        t = self.slack
        self._keys += 1
        key = f"cmd{self._keys}"  # a reply of its own (the transport's testers start at k1)
        if not isinstance(t, SlackSocket):
            tester = t.tester
            tester.new_key = lambda: key  # type: ignore[method-assign]
            sent = await tester.command(text, user=user)
            assert sent.status == 200, sent
            return reply_text(await t.fake.reply(key, seconds=60))
        payload = {
            "token": "verification",
            "team_id": "T1",
            "team_domain": "t1",
            "channel_id": "C1",
            "channel_name": "general",
            "user_id": user,
            "user_name": user.lower(),
            "command": "/quiz",
            "text": text,
            "api_app_id": "A1",
            "is_enterprise_install": "false",
            "response_url": t.fake.response_url(key),
            "trigger_id": "1.2.3",
        }
        envelope = {
            "envelope_id": f"env-{key}",
            "type": "slash_commands",
            "accepts_response_payload": True,
            "payload": payload,
        }
        await t.fake.socket_send(envelope)
        return reply_text(await t.fake.reply(key, seconds=60))

    async def daily_now(self) -> str:
        """An admin sets the daily question here and posts it now, as the scheduler does
        (`schedule now` goes through the schedule's delivery); what the admin is told."""
        if (d := self.discord) is not None:
            schedule = {"time": "09:00", "timezone": "UTC", "deck": DECK}
            await d.harness.run("quizadmin", "set", subgroup="schedule", by=ADMIN, **schedule)
            now = await d.harness.run("quizadmin", "now", subgroup="schedule", by=ADMIN)
            return now.text
        self.slack.fake.admins.add(ADMIN_ID)
        said = await self.slack_command(f"schedule set 09:00 UTC {DECK}", user=ADMIN_ID)
        assert "09:00" in said, said
        return await self.slack_command("schedule now", user=ADMIN_ID)

    def channel_posts(self) -> list[Any]:
        """The question messages the bot posted in the channel itself (the daily question's
        way; a command's post is its reply), made, whatever the bot was answered."""
        if (d := self.discord) is not None:
            return [m for m in d.fake.posts_in(CHANNEL) if m.get("components")]
        return [
            c
            for c in self.slack.fake.api("chat.postMessage")
            if c.params.get("channel") == "C1" and c.answer and c.answer.get("ok")
        ]

    async def take_last_post(self) -> int:
        """Clicks from now on go to the newest question message; its post id (once stored)."""
        if (d := self.discord) is not None:
            message = self.channel_posts()[-1]
            d.message_id = message["id"]
            d.post_id = int(message["components"][0]["components"][0]["custom_id"].split(":")[2])
        else:
            t = self.slack
            t.message = self.channel_posts()[-1]
            t.post_id = post_id_of(t.message.params)
        post_id = self.t.post_id
        assert self.t.bot is not None

        await eventually(lambda: _message_ref(self.db, post_id) is not None, 30)
        return post_id

    async def close(self) -> None:
        """An admin closes the question: the reveal replaces it."""
        if (d := self.discord) is not None:
            closed = await d.harness.run("quizadmin", "close", by=ADMIN)
            assert closed.ephemeral, closed
        else:
            self.slack.fake.admins.add(ADMIN_ID)
            said = await self.slack_command("close", user=ADMIN_ID)
            assert "Closed." in said, said

    async def answers_a_new_command(self) -> None:
        """A question is posted again, without a restart."""
        if (d := self.discord) is not None:  # posted as the command's reply
            reply = await d.harness.run("quiz", "post", by=ALICE, deck=DECK, question="sum")
            assert not reply.ephemeral and reply.buttons, reply
            return
        before = len(self.channel_posts())
        await self.slack.send_command(f"post {DECK} sum")  # acknowledged; no reply
        await eventually(lambda: len(self.channel_posts()) == before + 1, 30)

    # Clicks ----------------------------------------------------------------------

    def choices(self) -> int:
        """How many answer buttons the question being clicked has."""
        if (d := self.discord) is not None:
            message = d.fake.messages[d.message_id]
            return sum(len(row["components"]) for row in message["components"])
        blocks = self.slack.message.params["blocks"]
        return sum(len(b["elements"]) for b in blocks if b.get("type") == "actions")

    def new_shots(self, count: int, tag: str) -> list[Click]:
        """`count` clicks by new people, spread over the choices."""
        start, choices = len(self.shots), self.choices()
        shots = [
            Click(f"U{start + i:04d}", (start + i) % choices, f"{tag}-{i}") for i in range(count)
        ]
        self.shots += shots
        return shots

    async def burst(self, count: int, per_second: float = 20.0, tag: str = "c") -> list[Click]:
        """`count` clicks at `per_second`; on Discord, waits until each was answered (its
        callback taken), as Slack's are once their requests return."""
        shots = self.new_shots(count, tag)
        await Paced(self.t, shots, per_second).run()
        if self.discord is not None:
            await self.all_acknowledged(shots)
        return shots

    def settle(self) -> None:
        settle = getattr(self.t, "settle_acks", None)
        if settle is not None:
            settle(self.shots)

    async def all_acknowledged(self, shots: list[Click], seconds: float = 60.0) -> None:
        def acked() -> bool:
            self.settle()
            return all(s.acked for s in shots)

        await eventually(acked, seconds)

    def stored(self) -> dict[str, list[int]]:
        return answers_by_user(self.db, self.t.post_id)

    def verdict(self, shot: Click) -> str | None:
        """What the clicker was told, as the platform shows it (a Discord follow-up too)."""
        said = self.t.reply(shot)
        if said is None and self.discord is not None and shot.record is not None:
            shown = visible(shot.record)
            said = shown.text if shown is not None else None
            if said is None and shot.record.followups:
                data = shot.record.followups[0]
                said = "\n".join(
                    [data.get("content") or ""]
                    + [str(e.get("title", "")) for e in data.get("embeds", [])]
                )
        return said

    # After the fault -----------------------------------------------------------------

    async def after_the_fault(self) -> str:
        """Every check that must hold once the fault is over; a summary line."""
        # The channel's count catches up with what is stored (redrawn every 3 s at most).
        try:
            await eventually(lambda: self.t.shown_count() == _total(self.stored()), 60)
        except AssertionError:
            raise AssertionError(
                f"the channel shows {self.t.shown_count()} answered, {_total(self.stored())} "
                "are stored"
            ) from None
        self.settle()
        stored = self.stored()
        total = _total(stored)
        assert self.t.shown_count() == total
        acked = [s for s in self.shots if s.acked]
        for shot in acked:  # acknowledged: stored, once, as clicked
            assert stored.get(self.t.stored_as(shot)) == [shot.shown], shot
        assert all(len(choices) == 1 for choices in stored.values())
        assert set(stored) <= {self.t.stored_as(s) for s in self.shots}
        for shot in acked:
            said = self.verdict(shot)
            assert said is not None and any(v in said for v in VERDICTS), (shot, said)
        await self.close()
        shown = await self._revealed()
        picked = Counter(LETTERS[c[0]] for c in stored.values())
        assert shown == {letter: picked.get(letter, 0) for letter in LETTERS[: self.choices()]}
        await self.answers_a_new_command()
        return (
            f"{len(self.shots)} clicks, {len(acked)} acknowledged, {total} stored; "
            f"count shown {total}, reveal {dict(shown)}"
        )

    async def _revealed(self) -> dict[str, int]:
        """The reveal's count per choice, once the question became its reveal."""
        found: dict[str, int] = {}

        def revealed() -> bool:
            text = self._reveal_text()
            if text is None:
                return False
            found.clear()
            found.update({letter: int(n) for letter, n in ROW.findall(text)})
            return bool(found)

        await eventually(revealed, 60)
        return found

    def _reveal_text(self) -> str | None:
        if (d := self.discord) is not None:
            message = d.fake.messages[d.message_id]
            buttons = [b for row in message["components"] for b in row["components"]]
            if not buttons or not all(b.get("disabled") for b in buttons):
                return None
            embed = message["embeds"][0]
            return f"{embed.get('description', '')}\n{embed.get('footer', {}).get('text', '')}"
        t = self.slack
        ts = t.message.answer["ts"] if t.message.answer else None
        edits = [c for c in t.fake.successful("chat.update") if c.params.get("ts") == ts]
        if not edits or _has_buttons(edits[-1].params["blocks"]):
            return None
        return all_text(edits[-1].params["blocks"])


def _total(stored: dict[str, list[int]]) -> int:
    return sum(len(choices) for choices in stored.values())


def _has_buttons(blocks: list[dict[str, Any]]) -> bool:
    return any(b.get("type") == "actions" for b in blocks)


def _message_ref(db: Database, post_id: int) -> str | None:
    rows = rows_of(db, "SELECT message_ref FROM posts WHERE id = $1", post_id)
    return None if not rows else rows[0][0]
