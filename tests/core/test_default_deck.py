"""A server's default deck, in the core, on the memory store, SQLite and PostgreSQL: where a
command names no deck, `post`, `game`, `start` (a run), `report` and a daily question use the
server's default while it is loaded, else the config's `[questions] default` while it is
loaded, else the first deck by id; an admin sets and clears it; `decks` says which it is
and where it comes from."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from bot.bootstrap import build_games, capabilities
from bot.decks.model import DeckLibrary
from bot.domain.actor import Actor
from bot.domain.clock import ManualClock
from bot.domain.default_deck import Change, DefaultDeck, DefaultSource, default_deck
from bot.domain.errors import QuizError
from bot.domain.run import RunStep
from bot.presentation.deck_messages import decks_message, default_deck_text
from bot.presentation.schedule_messages import schedule_set_message
from bot.service.deliveries import Deliveries
from bot.service.ports import QuizStore
from bot.service.services import Capabilities
from tests import factories
from tests.core.schedule_fakes import FakeDelivery, World, world
from tests.storage.databases import any_store

__all__ = ["any_store"]

SERVER = "slack:T1"
ADMIN = Actor(SERVER, "boss", is_admin=True)
MEMBER = Actor(SERVER, "ana")
ELSEWHERE = Actor("discord:9", "cy", is_admin=True)
NINE = datetime(2026, 3, 4, 3, 0, tzinfo=UTC)  # 09:00 in Dhaka, a Wednesday
ALPHA, BETA, GAMMA = (factories.deck(i, n=4) for i in ("alpha", "beta", "gamma"))


def library(*decks: str) -> DeckLibrary:
    every = {d.id: d for d in (ALPHA, BETA, GAMMA)}
    return DeckLibrary([every[d] for d in decks or every])


def quiz_on(
    store: QuizStore, config: str | None = None, decks: DeckLibrary | None = None
) -> Capabilities:
    return capabilities(
        store=store,
        decks=decks or library(),
        clock=ManualClock(NINE),
        rng=random.Random(3),
        config_default=config,
    )


# The rule itself


@pytest.mark.parametrize(
    ("loaded", "server", "config", "chosen", "source", "unloaded"),
    [
        (("alpha", "beta", "gamma"), "gamma", "beta", "gamma", DefaultSource.SERVER, None),
        (("alpha", "beta", "gamma"), None, "beta", "beta", DefaultSource.CONFIG, None),
        (("alpha", "beta", "gamma"), None, None, "alpha", DefaultSource.FIRST, None),
        (("alpha", "beta"), "gamma", "beta", "beta", DefaultSource.CONFIG, "gamma"),
        (("alpha", "gamma"), "beta", "beta", "alpha", DefaultSource.FIRST, "beta"),
        (("beta", "gamma"), None, "alpha", "beta", DefaultSource.FIRST, None),
    ],
)
def test_the_rule(
    loaded: tuple[str, ...],
    server: str | None,
    config: str | None,
    chosen: str,
    source: DefaultSource,
    unloaded: str | None,
) -> None:
    """Set here, else the config's, else the first by id; a setting naming a deck that is
    not loaded is passed over (the server's is remembered, for `decks` to say)."""
    found = default_deck(library(*loaded), server, config)
    assert found is not None
    assert (found.deck.id, found.source, found.unloaded) == (chosen, source, unloaded)


def test_no_deck_loaded_means_no_default() -> None:
    assert default_deck(DeckLibrary([]), "alpha", "alpha") is None


# Each command that takes an optional deck


async def posted_deck(quiz: Capabilities, actor: Actor = MEMBER) -> str:
    view = await quiz.answering.post(actor, "C1")
    await quiz.answering.close_by_system(view.post.id)  # so the next post may ask anything again
    return view.deck.id


async def test_post_uses_the_first_then_the_config_s_then_the_server_s(
    any_store: QuizStore,
) -> None:
    assert await posted_deck(quiz_on(any_store)) == "alpha"
    quiz = quiz_on(any_store, config="beta")
    assert await posted_deck(quiz) == "beta"
    said = await quiz.catalog.set_default_deck(ADMIN, "gamma")
    assert said.change is Change.SET
    assert said.default == DefaultDeck(GAMMA, DefaultSource.SERVER)
    assert await posted_deck(quiz) == "gamma"
    assert await posted_deck(quiz, ELSEWHERE) == "beta"  # another server keeps the config's
    assert (
        await quiz.answering.post(MEMBER, "C1", "alpha")
    ).deck.id == "alpha"  # a named deck wins
    # another process on the same store reads it (nothing is kept only in memory)
    assert await posted_deck(quiz_on(any_store, config="beta")) == "gamma"


async def test_a_game_a_run_and_the_report_use_the_server_s_default(
    any_store: QuizStore,
) -> None:
    quiz = quiz_on(any_store, config="alpha")
    await quiz.catalog.set_default_deck(ADMIN, "beta")
    deliveries = Deliveries({"slack": FakeDelivery()})
    games = build_games(any_store, quiz, quiz.answering.clock, deliveries, random.Random(1))
    game = await games.start(MEMBER, "C1", None, 3, 20)
    assert game.deck_id == "beta"
    step = await quiz.runs.start_run(MEMBER)
    assert isinstance(step, RunStep) and step.deck.id == "beta"
    assert (await quiz.authoring.question_health(ADMIN)).deck.id == "beta"
    named = await games.start(MEMBER, "C2", "gamma", 3, 20)
    assert named.deck_id == "gamma"


async def test_a_schedule_set_without_a_deck_follows_the_default_as_it_changes(
    any_store: QuizStore,
) -> None:
    decks = library()
    w: World = world(any_store, ManualClock(NINE - timedelta(hours=1)), decks=decks)
    w.quiz.catalog.config_default = "beta"
    admin = Actor(SERVER, "boss", is_admin=True)
    follows = await w.schedules.set(admin, "C1", "09:00", "Asia/Dhaka")
    named = await w.schedules.set(admin, "C2", "09:00", "Asia/Dhaka", "alpha")
    assert follows.info.schedule.deck_id is None and named.info.schedule.deck_id == "alpha"
    said = schedule_set_message(follows, lambda c: f"<#{c}>").title
    assert said == (
        "Daily question set for <#C1>: every day at 09:00 (Asia/Dhaka), deck Demo beta "
        "(this server's default deck, followed as it changes)."
    )

    w.clock.set(NINE + timedelta(seconds=3))
    await w.scheduler.tick()
    assert [v.deck.id for v in w.delivery.in_channel("C1")] == ["beta"]
    await w.quiz.catalog.set_default_deck(admin, "gamma")
    w.clock.set(NINE + timedelta(days=1, seconds=3))
    await w.scheduler.tick()
    assert [v.deck.id for v in w.delivery.in_channel("C1")] == ["beta", "gamma"]
    assert [v.deck.id for v in w.delivery.in_channel("C2")] == ["alpha", "alpha"]
    (shown, _) = (await w.schedules.show(admin)).items
    assert shown.deck is not None and shown.deck.id == "gamma"


# Setting it


async def test_only_an_admin_sets_it_and_an_unknown_deck_is_refused_by_name(
    any_store: QuizStore,
) -> None:
    quiz = quiz_on(any_store)
    with pytest.raises(QuizError) as refused:
        await quiz.catalog.set_default_deck(MEMBER, "beta")
    assert refused.value.key == "admin_only"
    with pytest.raises(QuizError) as unknown:
        await quiz.catalog.set_default_deck(ADMIN, "delta")
    assert (unknown.value.key, unknown.value.params) == (
        "unknown_deck",
        {"deck": "delta", "decks": "alpha, beta, gamma"},
    )
    assert await any_store.server_default_deck(SERVER) is None
    shown = await quiz.catalog.default_view(MEMBER)  # anyone may see it
    assert shown.default == DefaultDeck(ALPHA, DefaultSource.FIRST) and shown.change is None

    assert (await quiz.catalog.set_default_deck(ADMIN, "  BETA ")).default.deck.id == "beta"
    cleared = await quiz.catalog.set_default_deck(ADMIN, "None")
    assert cleared.change is Change.CLEARED
    assert cleared.default == DefaultDeck(ALPHA, DefaultSource.FIRST)
    assert await any_store.server_default_deck(SERVER) is None
    assert default_deck_text(cleared) == (
        "This server's own default deck is cleared.\n"
        "★ alpha is the default deck, as the first by id (none is set for this server or in "
        "the config)."
    )


async def test_a_default_no_longer_loaded_falls_back_quietly_and_decks_says_so(
    any_store: QuizStore,
) -> None:
    quiz = quiz_on(any_store, config="alpha")
    await quiz.catalog.set_default_deck(ADMIN, "gamma")
    quiz.catalog.decks = library("alpha", "beta")  # a reload without it
    assert await posted_deck(quiz) == "alpha"
    listing = await quiz.catalog.deck_list(MEMBER)
    assert listing.default == DefaultDeck(ALPHA, DefaultSource.CONFIG, unloaded="gamma")
    msg = decks_message(listing)
    assert msg.lines[0].startswith("alpha: Demo alpha · 4 questions · English, বাংলা · ★ default")
    assert "★" not in msg.lines[1]
    assert msg.you == (
        "★ alpha is the default deck, as the bot's config names it (none is set for this "
        "server).\n"
        "⚠️ The default set for this server, gamma, is not loaded now (removed or renamed), "
        "so the one above is used until it is back or an admin sets another.\n"
        "An admin sets it with /quiz deck default DECK, and clears it with /quiz deck "
        "default none."
    )
    quiz.catalog.decks = library()  # back again: it is the default again
    assert await posted_deck(quiz) == "gamma"
    bengali = decks_message(await quiz.catalog.deck_list(Actor(SERVER, "ana", locale="bn")))
    assert bengali.lines[2].endswith(" · ★ ডিফল্ট")
    assert bengali.you is not None
    assert bengali.you.startswith("★ gamma এই সার্ভারের ডিফল্ট ডেক, এখানেই সেট করা")
