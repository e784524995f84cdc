"""Fuzzing Discord interactions with hypothesis: button clicks with any custom_id (random
text, our own prefixes with broken, huge or negative ids, unicode) and /quiz commands with
wrong option types, unknown subcommands, huge strings and missing options, sent as
INTERACTION_CREATE through the fake gateway to the real discord.py client.

Whatever arrives: a private reply in words (or, for autocomplete, choices), never a
traceback, never an unexpected error logged, never a public message; nothing stored unless
it is a valid click on the open question (or a well-formed command); and a valid click
afterwards still works. One bot serves every example; each waits for its reply.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.domain.leaderboard import Period
from bot.presentation.locales import LOCALES
from tests.reliability.conftest import TRACEBACK
from tests.reliability.discord_live import fake, make_bot

from discord_harness import (  # isort: skip
    CHANNEL,
    BotFactory,
    DiscordBot,
    Person,
    Reply,
    visible,
    with_button,
)
from bot.testing.fake_discord import EPHEMERAL, FakeDiscord, Interaction  # isort: skip

__all__ = ["fake", "make_bot"]  # fixtures
EXAMPLES = 50
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FUZZ_CHANNEL = 444444444444444444
"""Where the fuzzed commands are typed: a /quiz post or close there leaves the open
question in CHANNEL alone."""
TABLES = ("servers", "user_settings", "posts", "runs", "answers", "schedules", "schedule_slots")
ANSWERS = ("✅ Right!", "❌ Not quite.")


class Fuzz:
    """The bot with an open question, and what the examples so far did.

    A plain class: hypothesis prints a dataclass field by field with every failing example.
    """

    def __init__(
        self,
        bot: DiscordBot,
        post_id: int,
        message_id: str,
        db: Path,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        self.bot = bot
        self.post_id = post_id
        self.message_id = message_id
        """The open question's public message."""
        self.db = db
        self.caplog = caplog
        self.examples = 0
        self.replied = 0
        self.stored = 0
        self.people = 0

    def __repr__(self) -> str:
        return f"Fuzz(post {self.post_id})"

    def person(self) -> Person:
        self.people += 1
        return Person(30_000 + self.people, f"fuzz{self.people}")

    def rows(self) -> dict[str, int]:
        with contextlib.closing(sqlite3.connect(self.db)) as con:
            return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}

    def errors(self, since: int) -> list[str]:
        return [
            r.getMessage()
            for r in self.caplog.records[since:]
            if r.levelno >= logging.ERROR and r.name.startswith(("quizbot", "discord", "asyncio"))
        ]

    def private_message(self, custom_id: str) -> dict[str, Any]:
        """An old private reply of the bot's carrying one button with `custom_id`: the message
        Discord sends along with a click on it."""
        fake = self.bot.fake
        message = fake._message({"content": "", "flags": EPHEMERAL}, str(CHANNEL))
        message = with_button(message, custom_id)
        fake.messages[message["id"]] = message
        return message

    async def valid_click(self) -> None:
        """A new person's click on the open question is answered and stored."""
        before = await self.bot.app.store.answer_count(self.post_id)
        reply = await self.bot.reply(await self.bot.click(self.message_id, "A", by=self.person()))
        assert reply.ephemeral and reply.embed["title"] in ANSWERS, reply
        assert await self.bot.app.store.answer_count(self.post_id) == before + 1


@pytest.fixture
async def fuzz(
    make_bot: BotFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> AsyncIterator[Fuzz]:
    caplog.set_level(logging.INFO)
    bot = await make_bot()
    post_id, posted = await bot.post(deck="basics", question="all-reduce")
    assert posted.message_id is not None
    fuzz = Fuzz(bot, post_id, posted.message_id, tmp_path / "quiz.db", caplog)
    yield fuzz
    for message_id, _ in bot.fake.channel_edits:  # the question's count, or in FUZZ_CHANNEL
        channel = bot.fake.messages.get(message_id, {}).get("channel_id")
        assert message_id == posted.message_id or channel == str(FUZZ_CHANNEL), message_id
    print(
        f"\n{fuzz.examples} examples, {fuzz.replied} replied to, "
        f"{fuzz.stored} stored something (a valid click or a well-formed command); "
        "a valid click after them:",
        end=" ",
    )
    await fuzz.valid_click()
    print("answered and stored")


async def example(fuzz: Fuzz, payload: dict[str, Any]) -> tuple[Interaction, Reply | None]:
    """Sends one interaction, waits for its reply, and checks what every reply must be."""
    fake: FakeDiscord = fuzz.bot.fake
    logged = len(fuzz.caplog.records)
    record = await fake.dispatch_interaction(payload)
    autocomplete = payload["type"] == 4

    def answered() -> bool:
        return bool(record.callbacks) if autocomplete else visible(record) is not None

    try:
        await fake.until(answered, within=10)
    except TimeoutError:
        raise AssertionError(f"no reply: {json.dumps(payload.get('data'))[:300]}") from None
    fuzz.examples += 1
    fuzz.replied += 1
    errors = fuzz.errors(logged)
    assert not errors, errors
    for _, body in record.callbacks:
        text = json.dumps(body, ensure_ascii=False)
        assert not TRACEBACK.search(text), text[:500]
    if autocomplete:
        assert [body["type"] for _, body in record.callbacks] == [8], "choices, once"
        return record, None
    shown = visible(record)
    assert shown is not None
    assert shown.text.strip() or shown.data.get("embeds"), "an empty reply"
    return record, shown


# Button clicks ----------------------------------------------------------------------------

NUMBERS = st.one_of(
    st.just("{post}"),
    st.integers(-(10**20), 10**20).map(str),
    st.integers(19, 90).map(lambda n: "9" * n),  # more digits than a 64-bit id
    st.sampled_from(["", "0", "-0", "00{post}", "-{post}", "{post}.0", "1e3", "٣", "𝟙"]),
)
CHOICES = st.one_of(st.integers(-3, 9).map(str), st.sampled_from(["", "A", "0 ", "00", "٠"]))
OWN = st.one_of(
    st.builds("quiz:a:{}:{}".format, NUMBERS, CHOICES),
    st.builds("quiz:l:{}:{}".format, NUMBERS, st.sampled_from(["en", "bn", "xx", "", "e", "EN"])),
    st.builds(
        "quiz:r:{}:{}:{}".format,
        NUMBERS,
        st.sampled_from(["all-reduce", "bubble", "Nope", "", "x" * 64, "ডেক"]),
        CHOICES,
    ),
    st.builds(
        "quiz:reset:{}{}".format,
        st.sampled_from(["yes", "no", "maybe", ""]),
        st.one_of(st.just(""), NUMBERS.map(lambda n: ":" + n)),
    ),
    st.sampled_from(["quiz:", "quiz:a:", "quiz:a:{post}", "quiz:a:{post}:0:1", "quiz:a:{post}:0"]),
)
CUSTOM_IDS = st.one_of(
    OWN,
    st.text(min_size=1, max_size=100),
    st.builds("{}{}".format, OWN, st.text(min_size=1, max_size=8)),
    st.builds("{}{}".format, st.text(min_size=1, max_size=8), OWN),
)


def answer_click(custom_id: str, post_id: int) -> bool:
    """What may store an answer: a click of choice A, B or C of the open question."""
    return re.fullmatch(rf"quiz:a:{post_id}:[012]", custom_id) is not None


@SETTINGS
@given(custom_id=CUSTOM_IDS)
async def test_fuzz_button_custom_ids(fuzz: Fuzz, custom_id: str) -> None:
    custom_id = custom_id.replace("{post}", str(fuzz.post_id))[:100]  # Discord's limit
    message = fuzz.private_message(custom_id)
    payload = fuzz.bot.click_payload(message, custom_id, by=fuzz.person())
    rows = fuzz.rows()
    public = len(fuzz.bot.fake.channel_posts)

    _, shown = await example(fuzz, payload)

    assert shown is not None and shown.ephemeral, shown
    assert len(fuzz.bot.fake.channel_posts) == public, "a public message"
    changed = {t: n - rows[t] for t, n in fuzz.rows().items() if n != rows[t]}
    if answer_click(custom_id, fuzz.post_id):
        assert changed == {"answers": 1} and shown.embed["title"] in ANSWERS, (changed, shown)
        fuzz.stored += 1
    else:
        assert changed == {}, changed
        assert not any(e.get("title") in ANSWERS for e in shown.data.get("embeds", []))


# /quiz commands ---------------------------------------------------------------------------

STRING, USER = 3, 6
PARAMETERS: dict[str, dict[str, int]] = {
    "post": {"deck": STRING, "question": STRING},
    "start": {"deck": STRING},
    "leaderboard": {"period": STRING, "deck": STRING},
    "stats": {"user": USER},
    "decks": {},
    "language": {"locale": STRING},
    "close": {},
    "help": {},
}
"""/quiz's subcommands and their options, as synced to Discord."""
REQUIRED = {"language": {"locale"}}
OFFERED = {"period": {p.value for p in Period}, "locale": set(LOCALES)}
"""Options with fixed choices: Discord sends nothing else for them."""
AUTOCOMPLETE = [("post", "deck"), ("post", "question"), ("start", "deck"), ("leaderboard", "deck")]
MAX_STRING = 6000
"""The longest string option Discord takes."""

TEXT = st.one_of(
    st.sampled_from(
        [
            *["basics", "BASICS", " basics ", "all-reduce", "bubble", "nope", "week", "month"],
            *["all", "season", "en", "bn", "xx", "", "@everyone", "<@101>", "'; DROP TABLE x;--"],
            *["101", "0", "-1", "99999999999999999999999"],
        ]
    ),
    st.text(max_size=100),
    st.integers(100, MAX_STRING).map(lambda n: "ঢ" * n),  # huge
)
SNOWFLAKES = st.one_of(st.sampled_from(["101", "102"]), st.integers(1, 2**63 - 1)).map(str)
VALUES: dict[int, st.SearchStrategy[Any]] = {
    STRING: TEXT,
    4: st.integers(-(2**53), 2**53),  # integer
    5: st.booleans(),
    10: st.floats(-(2**53), 2**53, allow_nan=False),  # number
    USER: SNOWFLAKES,
    7: SNOWFLAKES,  # channel
    8: SNOWFLAKES,  # role
    9: SNOWFLAKES,  # mentionable
    11: SNOWFLAKES,  # attachment
}
"""Discord's value types, each with values of its kind: a wrong type is an option that
does not match the synced command (as after a change not yet synced)."""
OTHER_NAMES = st.one_of(
    st.sampled_from(["deck", "question", "period", "user", "locale", "channel"]),
    st.text(min_size=1, max_size=32),
)
KINDS = st.sampled_from([STRING] * 8 + list(VALUES))


def options_of(sub: str) -> st.SearchStrategy[dict[str, Any]]:
    """Options for subcommand `sub`: mostly its own names, mostly strings."""
    own = st.sampled_from(list(PARAMETERS.get(sub, {})) or ["deck"])
    return st.tuples(KINDS, st.one_of(own, own, OTHER_NAMES)).flatmap(
        lambda t: st.fixed_dictionaries(
            {"type": st.just(t[0]), "name": st.just(t[1]), "value": VALUES[t[0]]}
        )
    )


SUBCOMMANDS = st.one_of(
    st.sampled_from(list(PARAMETERS)),
    st.sampled_from(list(PARAMETERS)),
    st.sampled_from(["reset", "schedule", "Post", "language "]),
    st.text(max_size=32),
)


@st.composite
def commands(draw: st.DrawFn) -> dict[str, Any]:
    """The `data` of a /quiz interaction (or another command's), and whether it is an
    autocomplete request; `resolved` filled in as Discord does for user options."""
    group = draw(st.sampled_from(["quiz"] * 6 + ["quizadmin", "quizz"]))
    autocomplete = draw(st.integers(0, 4)) == 0
    if autocomplete:  # Discord asks only for an option that has autocomplete, typed text
        group = "quiz"
        sub, name = draw(st.sampled_from(AUTOCOMPLETE))
    else:
        sub = draw(SUBCOMMANDS)
    options = draw(st.lists(options_of(sub), max_size=3, unique_by=lambda o: str(o["name"])))
    if autocomplete:
        options = [o for o in options if o["name"] != name]
        typed = {"type": STRING, "name": name, "value": draw(st.text(max_size=100))}
        options.insert(draw(st.integers(0, len(options))), {**typed, "focused": True})
    leaf: dict[str, Any] = {"type": 2 if sub == "schedule" else 1, "name": sub}  # a group
    listed: bool = draw(st.booleans())  # Discord leaves out an empty "options"; or not
    if options or listed:
        leaf["options"] = options
    data: dict[str, Any] = {"id": "1", "name": group, "type": 1, "options": [leaf]}
    users = [str(o["value"]) for o in options if o["type"] == USER]
    resolve: bool = draw(st.booleans())
    if users and resolve:
        people = [Person(int(u), "someone") for u in users if u.isdigit() and int(u) < 2**63]
        data["resolved"] = {
            "users": {str(p.id): user_of(p) for p in people},
            "members": {str(p.id): member_of(p) for p in people},
        }
    return {"data": data, "autocomplete": autocomplete}


def user_of(person: Person) -> dict[str, Any]:
    return dict(person.member()["user"])


def member_of(person: Person) -> dict[str, Any]:
    return {k: v for k, v in person.member().items() if k != "user"}


def well_formed(data: dict[str, Any]) -> bool:
    """Whether Discord could send this for the /quiz we synced (such a command may store
    what it is for: a post, a run, a language)."""
    leaf = data["options"][0]
    if data["name"] != "quiz" or leaf["type"] != 1 or leaf["name"] not in PARAMETERS:
        return False
    params = PARAMETERS[leaf["name"]]
    resolved = data.get("resolved", {}).get("users", {})
    seen: set[str] = set()
    for option in leaf.get("options", []):
        name, kind, value = option["name"], option["type"], option["value"]
        if name not in params or name in seen or kind != params[name]:
            return False
        seen.add(name)
        if kind == STRING and not (isinstance(value, str) and len(value) <= MAX_STRING):
            return False
        if name in OFFERED and value not in OFFERED[name]:
            return False
        if kind == USER and str(value) not in resolved:
            return False
    return REQUIRED.get(leaf["name"], set()) <= seen


@SETTINGS
@given(command=commands())
async def test_fuzz_quiz_command_options(fuzz: Fuzz, command: dict[str, Any]) -> None:
    bot = fuzz.bot
    payload = bot.command_payload("quiz", "help", by=fuzz.person(), in_channel=FUZZ_CHANNEL)
    payload["data"] = command["data"]
    if command["autocomplete"]:
        payload["type"] = 4
    valid = well_formed(command["data"])
    rows = fuzz.rows()
    answers = await bot.app.store.answer_count(fuzz.post_id)
    public = len(bot.fake.channel_posts)

    record, shown = await example(fuzz, payload)

    assert await bot.app.store.answer_count(fuzz.post_id) == answers
    assert len(bot.fake.channel_posts) == public, "a public message"
    if command["autocomplete"]:
        choices = record.callbacks[0][1]["data"]["choices"]
        assert len(choices) <= 25 and all(1 <= len(c["name"]) <= 100 for c in choices)
        assert fuzz.rows() == rows
        return
    assert shown is not None
    if fuzz.rows() != rows:
        assert valid, "stored for a malformed command"
        fuzz.stored += 1
    if not valid:
        assert shown.ephemeral, shown
    elif not shown.ephemeral:  # only a question posted by a well-formed /quiz post is public
        leaf = command["data"]["options"][0]
        assert leaf["name"] == "post" and shown.buttons, shown


async def test_an_option_of_another_type_is_refused_as_a_stale_command(
    make_bot: BotFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """As Discord sends a command whose options changed type before the sync: no callback
    with a number for a deck (it crashed on `.strip()`), no error logged."""
    caplog.set_level(logging.INFO)
    bot = await make_bot()
    fuzz = Fuzz(bot, 0, "", tmp_path / "quiz.db", caplog)
    rows = fuzz.rows()
    payload = bot.command_payload("quiz", "post", in_channel=FUZZ_CHANNEL)
    payload["data"]["options"][0]["options"] = [{"type": 4, "name": "deck", "value": 5}]
    _, shown = await example(fuzz, payload)
    assert shown is not None and shown.ephemeral
    assert shown.data["content"] == "Unknown command “/quiz post”."

    payload = bot.command_payload("quiz", "post", focused="question", deck="x", question="a")
    payload["data"]["options"][0]["options"][0].update(type=7, value="102")  # deck: a channel
    record, _ = await example(fuzz, payload)
    assert record.callbacks[0][1] == {"type": 8, "data": {"choices": []}}
    assert fuzz.rows() == rows
