"""Deck reload: a valid change replaces the decks; an invalid one keeps them and says why."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from pathlib import Path

import pytest

from bot.bootstrap import build_app, reload_on_sighup
from bot.config import load_config

DECK = """title: "Deck {name}"
locales: [en]
questions:
  - id: one
    text: "Two plus two?"
    choices: ["4", "5"]
    answer: 0
    explanation: "Arithmetic."
"""


def write_deck(folder: Path, name: str) -> None:
    (folder / f"{name}.yaml").write_text(DECK.format(name=name), encoding="utf-8")


async def test_reload_keeps_the_old_decks_when_the_new_ones_are_broken(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    decks = tmp_path / "questions"
    decks.mkdir()
    write_deck(decks, "first")
    (tmp_path / "config.toml").write_text(
        '[database]\nurl = "sqlite:///q.db"\n[questions]\npaths = ["questions"]\nshipped = false\n',
        encoding="utf-8",
    )
    app = await build_app(load_config(str(tmp_path / "config.toml"), env={}))
    try:
        assert app.services.catalog.decks.ids() == ["first"]

        write_deck(decks, "second")
        report = app.services.catalog.reload()
        assert report.ok and app.services.catalog.decks.ids() == ["first", "second"]

        (decks / "second.yaml").write_text("title: [broken\n", encoding="utf-8")
        with caplog.at_level(logging.ERROR):
            report = app.services.catalog.reload()
        assert not report.ok
        assert app.services.catalog.decks.ids() == ["first", "second"]  # the running decks stay
        assert "keeping the running decks" in caplog.text
        assert f"{decks / 'second.yaml'}:" in caplog.text  # says where and why
    finally:
        await app.close()


async def test_sighup_reloads(tmp_path: Path) -> None:
    decks = tmp_path / "questions"
    decks.mkdir()
    write_deck(decks, "first")
    (tmp_path / "config.toml").write_text(
        '[database]\nurl = "sqlite:///q.db"\n[questions]\npaths = ["questions"]\nshipped = false\n',
        encoding="utf-8",
    )
    app = await build_app(load_config(str(tmp_path / "config.toml"), env={}))
    try:
        reload_on_sighup(app.services.catalog)
        write_deck(decks, "second")
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(100):
            if "second" in app.services.catalog.decks.ids():
                break
            await asyncio.sleep(0.01)
        assert app.services.catalog.decks.ids() == ["first", "second"]
    finally:
        asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
        await app.close()
