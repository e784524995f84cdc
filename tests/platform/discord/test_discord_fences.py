"""Fences around the discord.py internals the fast paths use (issue 32, finding 7): each test
fails, never warns, when the installed discord.py moves what the bot relies on, so a new
discord.py is tried here before it can reach a running bot. discord.py is pinned to the
minor range these pass on (pyproject.toml, constraints.txt).

Every use is in `bot.discord.fastpath`:

- Answer clicks without their message: a wrapper on `ConnectionState.parsers
  ["INTERACTION_CREATE"]`, which the gateway looks events up in; its self-test holds back
  `ConnectionState.dispatch` and parses a click without its message.
- The click's private reply (posted by `bot.discord.callback`) marks the interaction
  answered by writing `InteractionResponse._response_type`, as discord.py's own
  `send_message` does.
- `use_endpoints` sets `Route.BASE` and `DiscordWebSocket.DEFAULT_GATEWAY`.

And what happens when it moves anyway: the wrapper is not installed (one log line says why)
or, failing at run time, gives the clicks back to discord.py; the bot answers either way.
"""

from __future__ import annotations

import inspect
import logging
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import discord
import pytest
import yarl
from discord.gateway import DiscordWebSocket
from discord_harness import ALICE, BOB, BotFactory
from packaging.requirements import Requirement
from packaging.version import Version

from bot.discord import buttons, fastpath
from bot.discord.client import QuizClient
from bot.testing.fake_discord import BOT

ROOT = Path(__file__).resolve().parents[3]
ANSWER = buttons.ANSWER


def state() -> Any:
    """A client's state as after the login (the self-test runs in `setup_hook`)."""
    connection = discord.Client(intents=discord.Intents(guilds=True))._connection
    connection.user = discord.ClientUser(state=connection, data=BOT)  # type: ignore[arg-type]
    return connection


def test_the_gateway_looks_events_up_in_the_state_parsers() -> None:
    parsers = state().parsers
    assert isinstance(parsers, dict)
    assert inspect.ismethod(parsers[fastpath.EVENT])
    assert parsers[fastpath.EVENT].__name__ == "parse_interaction_create"
    # The gateway keeps that very dict (not a copy) and calls what it holds per event.
    assert "ws._discord_parsers = client._connection.parsers" in inspect.getsource(
        DiscordWebSocket.from_client
    )
    assert "self._discord_parsers[event]" in inspect.getsource(DiscordWebSocket.received_message)


def test_a_client_keeps_its_state_where_the_fast_path_looks() -> None:
    client = discord.Client(intents=discord.Intents(guilds=True))
    assert isinstance(client._connection, discord.state.ConnectionState)
    assert client._connection.parsers[fastpath.EVENT].__name__ == "parse_interaction_create"


def test_the_self_test_passes_on_the_installed_discord_py() -> None:
    connection = state()
    assert "dispatch" in vars(connection), "dispatch is no longer an attribute to hold back"
    assert fastpath.self_test(connection, connection.parsers[fastpath.EVENT], ANSWER) is None


def test_the_reply_fast_path_marks_the_interaction_answered_as_discord_py_does() -> None:
    connection = state()
    made: list[discord.Interaction] = []
    connection.dispatch = lambda event, *args: made.append(args[0])
    connection.parsers[fastpath.EVENT](fastpath.sample_click(None))
    (interaction,) = made
    assert not interaction.response.is_done()
    assert hasattr(interaction.response, "_response_type")
    fastpath.answered(interaction)
    assert interaction.response.is_done()
    assert interaction.response.type is discord.InteractionResponseType.channel_message
    sends = inspect.getsource(discord.InteractionResponse.send_message)
    assert "self._response_type = InteractionResponseType.channel_message" in sends


def test_the_endpoints_are_class_attributes_discord_py_reads() -> None:
    assert isinstance(vars(discord.http.Route)["BASE"], str)
    assert "self.BASE + self.path" in inspect.getsource(discord.http.Route.__init__)
    assert isinstance(vars(DiscordWebSocket)["DEFAULT_GATEWAY"], yarl.URL)
    assert "cls.DEFAULT_GATEWAY" in inspect.getsource(DiscordWebSocket.from_client)


def _pins(text: str) -> list[Requirement]:
    return [Requirement(line) for line in text.splitlines() if line.strip() and line[0] != "#"]


@pytest.mark.parametrize("source", ["pyproject.toml", "constraints.txt"])
def test_discord_py_is_pinned_to_the_minor_release_these_fences_pass_on(source: str) -> None:
    text = (ROOT / source).read_text(encoding="utf-8")
    if source == "pyproject.toml":
        text = "\n".join(tomllib.loads(text)["project"]["dependencies"])
    (pin,) = [r for r in _pins(text) if r.name == "discord.py"]
    installed = Version(discord.__version__)
    assert installed in pin.specifier
    after = Version(f"{installed.major}.{installed.minor + 1}")
    assert after not in pin.specifier, f"{source} lets discord.py {after} in untested"


# When discord.py moves anyway ------------------------------------------------------------


def reads_message(connection: Any) -> Callable[[dict[str, Any]], None]:
    """A discord.py whose parser reads the message of every click (KeyError without)."""
    original = connection.parsers[fastpath.EVENT]

    def parse(data: dict[str, Any]) -> None:
        if data.get("type") == 3:
            data["message"]["id"]
        original(data)

    return parse


def test_a_discord_py_that_reads_the_message_keeps_its_own_parser(
    caplog: pytest.LogCaptureFixture,
) -> None:
    connection = state()
    connection.parsers[fastpath.EVENT] = parse = reads_message(connection)
    with caplog.at_level(logging.WARNING, logger="quizbot.discord"):
        assert fastpath.answers_skip_message(connection, ANSWER) is False
    assert connection.parsers[fastpath.EVENT] is parse
    (line,) = [r.getMessage() for r in caplog.records]
    assert line == (
        "answer clicks are parsed whole, as discord.py does: a click without its message "
        "does not parse (KeyError: 'message')"
    )


async def test_without_the_wrapper_the_bot_answers_clicks_as_discord_py_does(
    make_bot: BotFactory, caplog: pytest.LogCaptureFixture
) -> None:
    def older(client: QuizClient) -> None:
        client._connection.parsers[fastpath.EVENT] = reads_message(client._connection)

    with caplog.at_level(logging.WARNING, logger="quizbot.discord"):
        bot = await make_bot(prepare=older)
        post_id, posted = await bot.post(deck="basics", question="bubble")
    assert posted.message_id is not None
    right = await bot.right_label(post_id)
    reply = await bot.reply(await bot.click(posted.message_id, right, by=ALICE))
    assert reply.embed["title"] == "✅ Right!"
    assert any("answer clicks are parsed whole" in r.getMessage() for r in caplog.records)
    assert await bot.app.store.answer_count(post_id) == 1


async def test_a_wrapper_that_fails_at_run_time_gives_clicks_back_to_discord_py(
    make_bot: BotFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """Its self-test passed, then a real click fails without its message: that click is
    parsed whole and answered, the client stays up, and discord.py parses every later one."""
    failures: list[str] = []

    def fails_later(client: QuizClient) -> None:
        original = client._connection.parsers[fastpath.EVENT]

        def parse(data: dict[str, Any]) -> None:
            clicked = data.get("type") == 3 and data.get("token") != "self-test"
            if clicked and "message" not in data:
                failures.append(str(data["id"]))
                raise RuntimeError("a newer discord.py needs the message")
            original(data)

        client._connection.parsers[fastpath.EVENT] = parse

    bot = await make_bot(prepare=fails_later)
    assert bot.client is not None
    parsers = bot.client._connection.parsers
    assert parsers[fastpath.EVENT].__name__ == "parse_interaction"  # installed
    post_id, posted = await bot.post(deck="basics", question="bubble")
    assert posted.message_id is not None
    right = await bot.right_label(post_id)
    wrong = "B" if right == "A" else "A"
    with caplog.at_level(logging.ERROR, logger="quizbot.discord"):
        first = await bot.reply(await bot.click(posted.message_id, right, by=ALICE))
    second = await bot.reply(await bot.click(posted.message_id, wrong, by=BOB))

    assert first.embed["title"] == "✅ Right!" and second.embed["title"] == "❌ Not quite."
    assert len(failures) == 1  # the second click went straight to discord.py's parser
    assert parsers[fastpath.EVENT].__name__ == "parse"
    assert [r.getMessage() for r in caplog.records if "fast path" in r.getMessage()] == [
        "the answer-click fast path failed (parsing a click without its message); "
        "discord.py parses clicks now"
    ]
    assert not bot.task.done()
    assert await bot.app.store.answer_count(post_id) == 2


def test_the_self_test_click_is_an_answer_click() -> None:
    assert re.fullmatch(ANSWER, fastpath.SELF_TEST_ID)
