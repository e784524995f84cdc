"""One language rule for everything the command line says (issue 35): `--locale`, else the
reader's saved choice, else the system's (LC_ALL, LC_MESSAGES, LANG) when a deck has it, else
English. The quiz, `--help`, the refusals and `report --html` agree, as real processes under
each environment a newcomer meets (Docker's images and CI have no LANG or C.UTF-8)."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.reliability.processes.test_play import BN_TITLE, EN_TITLE, SEED_DECK, environ

ROOT = Path(__file__).resolve().parents[3]
ENGLISH = "Your answer (A, B, C, D, q to stop): "
BENGALI = "আপনার উত্তর (A, B, C, D, থামতে q): "


def quizbot(folder: Path, *args: str, answers: str = "q\n", lang: str | None = None, **env: str):  # type: ignore[no-untyped-def]
    """`quizbot ARGS` in `folder` (no config: the shipped decks, SQLite there) with LANG set
    to `lang` (None: no locale variable at all)."""
    extra = {"LANG": lang} if lang is not None else {}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=answers,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=folder,
        env=environ(**extra, **env),
    )


@pytest.mark.parametrize(
    "lang", [None, "C", "C.UTF-8", "POSIX", "de_DE.UTF-8", "fr", "fr_FR.UTF-8", "en_US.UTF-8"]
)
def test_english_unless_the_system_names_a_language_of_the_decks(
    tmp_path: Path, lang: str | None
) -> None:
    played = quizbot(tmp_path, "play", "--deck", SEED_DECK, lang=lang)
    assert played.returncode == 0, played.stderr
    first, rest = played.stdout.split("\n", 1)
    assert first == "Language: English (for Bengali: quizbot play --locale bn)"
    assert rest.startswith(EN_TITLE + "\n") and ENGLISH in rest
    shown = quizbot(tmp_path, "play", "--help", lang=lang)
    assert "your name on the local leaderboard" in shown.stdout  # --help agrees


def test_bengali_from_the_system_says_in_english_how_to_switch(tmp_path: Path) -> None:
    played = quizbot(tmp_path, "play", "--deck", SEED_DECK, lang="bn_BD.UTF-8")
    first, rest = played.stdout.split("\n", 1)
    assert first == "Language: Bengali (for English: quizbot play --locale en)"
    assert rest.startswith(BN_TITLE + "\n") and BENGALI in rest
    shown = quizbot(tmp_path, "play", "--help", lang="bn_BD.UTF-8")
    assert "লোকাল লিডারবোর্ডে আপনার নাম" in shown.stdout


def test_the_make_run_path_speaks_english_under_c_utf8(tmp_path: Path) -> None:
    """`quizbot play` as `make run` starts it (no --deck, input not a terminal): English."""
    for lang in ("C.UTF-8", "de_DE.UTF-8"):
        played = quizbot(tmp_path, "play", lang=lang)
        assert played.returncode == 0, played.stderr
        assert ENGLISH in played.stdout and "কোন" not in played.stdout
        assert not re.search("[\u0980-\u09ff]", played.stdout.split("\n", 1)[1])


@pytest.mark.parametrize("asked", ["en_US", "en-US", "EN", "en_GB.UTF-8", " en "])
def test_locale_takes_a_locale_name_in_any_spelling(tmp_path: Path, asked: str) -> None:
    played = quizbot(tmp_path, "play", "--deck", SEED_DECK, "--locale", asked, lang="bn_BD.UTF-8")
    assert played.returncode == 0, played.stderr
    assert played.stdout.startswith(EN_TITLE + "\n") and ENGLISH in played.stdout
    helped = quizbot(tmp_path, "play", "--locale", asked, "--help", lang="bn_BD.UTF-8")
    assert "your name on the local leaderboard" in helped.stdout  # help follows --locale


@pytest.mark.parametrize("lang", [None, "C.UTF-8", "POSIX", "de_DE.UTF-8"])
def test_an_unknown_locale_is_refused_in_english(tmp_path: Path, lang: str | None) -> None:
    refused = quizbot(tmp_path, "play", "--locale", "fr", lang=lang)
    assert refused.returncode == 2
    assert refused.stderr == (
        "--locale fr: there are no questions in that language here; choose one of: bn, en\n"
    )
    assert refused.stdout == ""


def test_the_system_language_beats_nothing_but_a_saved_choice(tmp_path: Path) -> None:
    quizbot(tmp_path, "play", "--deck", SEED_DECK, "--locale", "bn", "--user", "mitu")
    later = quizbot(tmp_path, "play", "--deck", SEED_DECK, "--user", "mitu", lang="C.UTF-8")
    assert later.stdout.split("\n", 1)[1].startswith(BN_TITLE)
    refused = quizbot(tmp_path, "play", "--locale", "fr", "--user", "mitu", lang="C.UTF-8")
    assert "এই ভাষায় এখানে কোনো প্রশ্ন নেই" in refused.stderr  # the reader's choice


def page_language(tmp_path: Path, *args: str, lang: str | None) -> str:
    made = quizbot(tmp_path, "report", "--html", "health.html", *args, lang=lang)
    assert made.returncode == 0, made.stderr
    page = (tmp_path / "health.html").read_text(encoding="utf-8")
    found = re.search(r'<html lang="(\w+)">', page)
    assert found is not None
    return found.group(1)


def test_the_report_page_follows_the_same_rule(tmp_path: Path) -> None:
    assert page_language(tmp_path, lang=None) == "en"
    assert page_language(tmp_path, lang="C.UTF-8") == "en"
    assert page_language(tmp_path, lang="de_DE.UTF-8") == "en"
    assert page_language(tmp_path, lang="bn_BD.UTF-8") == "bn"
    assert page_language(tmp_path, "--locale", "en_US", lang="bn_BD.UTF-8") == "en"
    page = (tmp_path / "health.html").read_text(encoding="utf-8")
    assert "Question health:" in page and "প্রশ্নগুলোর হেলথ" not in page
    refused = quizbot(tmp_path, "report", "--html", "x.html", "--locale", "fr", lang="C.UTF-8")
    assert refused.returncode == 2 and refused.stderr.startswith("--locale fr: there are no")
    assert not (tmp_path / "x.html").exists()


def test_the_report_help_follows_the_system(tmp_path: Path) -> None:
    assert "the page's language" in quizbot(tmp_path, "report", "--help", lang="C").stdout
    assert "পেজের ভাষা" in quizbot(tmp_path, "report", "--help", lang="bn_BD.UTF-8").stdout


class Screen:
    """`quizbot play` on a pseudo-terminal, as a person at a keyboard runs it."""

    def __init__(self, folder: Path, *args: str, **env: str) -> None:
        self.fd, child = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "play", *args],
            stdin=child,
            stdout=child,
            stderr=child,
            cwd=folder,
            env={**environ(**env), "COLUMNS": "100"},
        )
        os.close(child)
        self.seen = ""

    def until(self, text: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            assert time.monotonic() < deadline, self.seen
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if ready:
                self.seen += os.read(self.fd, 65536).decode("utf-8", errors="replace")
        return self.seen

    def type(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self.fd)


def test_the_deck_menu_hints_and_says_why_it_asks_again(tmp_path: Path) -> None:
    screen = Screen(tmp_path, "--user", "newcomer", LANG="C.UTF-8")
    try:
        prompt = "Which deck? Type its number (1-"
        menu = screen.until(prompt)
        lines = [line.strip() for line in menu.splitlines()]
        assert lines[0] == "Language: English (for Bengali: quizbot play --locale bn)"
        decks = [line for line in lines if re.match(r"\d+\. [a-z0-9-]+: ", line)]
        assert len(decks) >= 4
        assert decks[0].endswith(" · the default")  # no [questions] default: the first by id
        assert "or its id; Enter for 1; q to quit:" in menu
        screen.type("9")
        again = screen.until("is not one of the decks above")
        assert "“9” is not one of the decks above: type a number from 1 to" in again
        screen.type("")  # Enter: the default deck
        screen.until("Your answer (")
        title = decks[0].split(": ", 1)[1].rsplit(" (", 1)[0]
        assert title in screen.seen.split("is not one of the decks above", 1)[1]
    finally:
        screen.close()
