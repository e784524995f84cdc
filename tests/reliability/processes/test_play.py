"""`quizbot play` as a person uses it: a real process, answers typed into its standard input."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
SEED = ROOT / "questions" / "model-pipeline-parallelism.yaml"
SEED_DECK = "model-pipeline-parallelism"
"""With more than one deck shipped, the tests take the seed deck by name."""
PROMPT = re.compile(r"\(([A-E](?:, [A-E])*), [^)]*\): $")
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def environ(**extra: str) -> dict[str, str]:
    """The test's environment without the machine's language, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in LOCALE_VARS and k != "COLUMNS"}
    return {**env, "PYTHONUTF8": "1", **extra}


class Player:
    """Drives `quizbot play` one prompt at a time."""

    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        config = tmp_path / "config.toml"
        config.write_text(
            f'[database]\nurl = "sqlite:///{tmp_path / "play.db"}"\n'
            f'[questions]\npaths = ["{ROOT / "questions"}"]\n',
            encoding="utf-8",
        )
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bot",
                "play",
                "--config",
                str(config),
                "--deck",
                SEED_DECK,
                *args,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            env=env or environ(),
        )
        self.out = ""

    def until_prompt(self, timeout: float = 30) -> str | None:
        """Reads until the next answer prompt; returns the screen since the last one."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        start = len(self.out)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if PROMPT.search(self.out[start:]):
                return self.out[start:]
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.out += chunk.decode("utf-8")
        raise AssertionError(f"no prompt within {timeout}s; output so far:\n{self.out}")

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def finish(self) -> tuple[int, str, str]:
        stdout, stderr = self.proc.communicate(timeout=30)
        self.out += stdout.decode("utf-8")
        return self.proc.returncode, self.out, stderr.decode("utf-8")


def seed(locale: str) -> list[dict[str, str]]:
    """The seed deck's questions read straight from the YAML: the test's own answer key."""
    data = yaml.safe_load(SEED.read_text(encoding="utf-8"))
    out = []
    for q in data["questions"]:
        right = q["choices"][q["answer"]]
        right_text = right.get("text", right)
        out.append(
            {
                "text": q["text"][locale],
                "right": right_text[locale],
                "explanation": q["explanation"][locale],
            }
        )
    return out


def right_letter(screen: str, right: str) -> str:
    """The letter shown for the right choice; choices may wrap onto indented lines."""
    choices: dict[str, str] = {}
    letter = None
    for line in screen.splitlines():
        m = re.match(r"   ([A-E])\. (.*)", line)
        if m:
            letter = m.group(1)
            choices[letter] = m.group(2)
        elif letter and line.startswith("      "):
            choices[letter] += " " + line.strip()
        else:
            letter = None
    for letter, shown in choices.items():
        if flat(shown) == flat(right):
            return letter
    raise AssertionError(f"the right choice {right!r} is not on screen:\n{screen}")


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(("locale", "score"), [("en", "8/8"), ("bn", "৮/৮")])
def test_all_right_shows_every_explanation_and_full_score(
    tmp_path: Path, locale: str, score: str
) -> None:
    questions = seed(locale)
    player = Player(tmp_path, "--locale", locale, "--user", "tester")
    for q in questions:
        screen = player.until_prompt()
        assert screen is not None
        assert flat(q["text"]) in flat(screen)
        player.type(right_letter(screen, q["right"]))
    code, out, err = player.finish()
    assert code == 0, err
    assert err == ""
    for q in questions:
        assert flat(q["explanation"]) in flat(out)
    assert score in out
    assert "tester" in out.split(score, 1)[1]  # the local leaderboard lists the player


def test_bad_input_is_asked_again_and_q_keeps_progress(tmp_path: Path) -> None:
    questions = seed("en")
    player = Player(tmp_path, "--locale", "en", "--user", "tester")
    screen = player.until_prompt()
    assert screen is not None
    player.type("Z")
    screen2 = player.until_prompt()
    assert screen2 is not None and "Please type one of" in screen2
    player.type(right_letter(screen, questions[0]["right"]))
    assert player.until_prompt() is not None
    player.type("q")
    code, out, err = player.finish()
    assert (code, err) == (0, "")
    assert "progress is kept" in out

    resumed = Player(tmp_path, "--locale", "en", "--user", "tester")
    screen = resumed.until_prompt()
    assert screen is not None
    assert "Picking up where you left off." in screen
    assert flat(questions[1]["text"]) in flat(screen)
    code, out, err = resumed.finish()  # closes its input: end of input stops cleanly
    assert (code, err) == (0, "")


def test_piped_input_all_at_once(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[database]\nurl = "sqlite:///{tmp_path / "p.db"}"\n'
        f'[questions]\npaths = ["{ROOT / "questions"}"]\n',
        encoding="utf-8",
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "play",
            "--config",
            str(config),
            "--deck",
            SEED_DECK,
            "--user",
            "pipe",
        ],
        input=b"a\nb\nc\nd\na\nb\nc\nd\n",
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
        env=environ(),
    )
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert re.search(r"Your score: [0-8]/8", out)  # no system language: English
    assert "Traceback" not in proc.stderr.decode()


def test_unknown_deck_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--deck", "nope"],
        input=b"",
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        env=environ(),
    )
    err = proc.stderr.decode()
    assert proc.returncode != 0
    assert "Traceback" not in err
    assert "nope" in err


def wrong_letter(screen: str, right: str) -> str:
    return "A" if right_letter(screen, right) != "A" else "B"


def test_review_brings_back_exactly_the_misses_in_the_terminal(tmp_path: Path) -> None:
    """`quizbot play --review`: the two questions missed in the run, one at a time, with
    when each comes back; then nothing more today."""
    questions = seed("bn")
    player = Player(tmp_path, "--locale", "bn", "--user", "tester")
    for n, q in enumerate(questions):
        screen = player.until_prompt()
        assert screen is not None
        missed = n in (2, 5)
        player.type(
            wrong_letter(screen, q["right"]) if missed else right_letter(screen, q["right"])
        )
    code, out, err = player.finish()
    assert (code, err) == (0, "")
    assert out.count("📚 আপনার রিভিউতে যোগ হলো") == 2

    review = Player(tmp_path, "--review", "--locale", "bn", "--user", "tester")
    for n in (2, 5):
        screen = review.until_prompt()
        assert screen is not None
        assert "রিভিউ ·" in screen and flat(questions[n]["text"]) in flat(screen)
        review.type(right_letter(screen, questions[n]["right"]))
    code, out, err = review.finish()
    assert (code, err) == (0, "")
    assert "বাকি ২টা" in out and "বাকি ১টা" in out
    assert out.count("কাল আবার আসবে।") == 2
    assert "আজকের রিভিউ শেষ। 🎉" in out

    again = Player(tmp_path, "--review", "--locale", "bn", "--user", "tester")
    assert again.until_prompt() is None  # nothing due: no question asked
    code, out, err = again.finish()
    assert (code, err) == (0, "")
    assert "আজকের রিভিউ শেষ। 🎉" in out and "পরের প্রশ্ন আসবে" in out


def play_once(
    folder: Path, *args: str, answers: str = "q\n", **env: str
) -> subprocess.CompletedProcess[str]:
    """`quizbot play` in `folder` with no config file: its questions/ and the shipped decks."""
    return subprocess.run(
        [sys.executable, "-m", "bot", "play", *args],
        input=answers,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=folder,
        env=environ(**env),
    )


EN_TITLE = "Model and Pipeline Parallelism Quiz"
BN_TITLE = "মডেল ও পাইপলাইন প্যারালেলিজম কুইজ"


@pytest.mark.parametrize(
    ("env", "title"),
    [
        ({"LANG": "en_US.UTF-8"}, EN_TITLE),
        ({"LANG": "bn_BD.UTF-8"}, BN_TITLE),
        ({"LANG": "C.UTF-8"}, EN_TITLE),  # no language: English
        ({"LANG": "de_DE.UTF-8"}, EN_TITLE),  # a language the deck lacks: English
        ({"LANG": "bn_BD.UTF-8", "LC_MESSAGES": "en_GB.UTF-8"}, EN_TITLE),
        ({"LANG": "bn_BD.UTF-8", "LC_MESSAGES": "en_GB", "LC_ALL": "bn_IN.UTF-8"}, BN_TITLE),
    ],
)
def test_the_system_language_is_used_when_nothing_was_chosen(
    tmp_path: Path, env: dict[str, str], title: str
) -> None:
    played = play_once(tmp_path, "--deck", SEED_DECK, **env)
    assert played.returncode == 0, played.stderr
    hint, shown = played.stdout.split("\n", 1)
    assert hint.startswith("Language: ")  # in English, whatever the language
    assert shown.startswith(title + "\n")
    english_prompt = "(A, B, C, D, q to stop)" in played.stdout
    assert english_prompt == (title == EN_TITLE)  # the prompts too, not only the deck


def test_locale_in_any_case_wins_and_is_remembered(tmp_path: Path) -> None:
    chosen = play_once(tmp_path, "--deck", SEED_DECK, "--locale", "EN", "--user", "mitu")
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout.startswith(EN_TITLE) and "q to stop" in chosen.stdout
    later = play_once(tmp_path, "--deck", SEED_DECK, "--user", "mitu", LANG="bn_BD.UTF-8")
    assert later.stdout.split("\n", 1)[1].startswith(EN_TITLE)  # saved beats the system's
    other = play_once(tmp_path, "--deck", SEED_DECK, "--user", "rafi", LANG="bn_BD.UTF-8")
    assert other.stdout.split("\n", 1)[1].startswith(BN_TITLE)  # saved per player
    back = play_once(tmp_path, "--deck", SEED_DECK, "--locale", " bn ", "--user", "mitu")
    assert back.stdout.startswith(BN_TITLE)


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en_US.UTF-8", "choose one of: bn, en"), ("bn_BD.UTF-8", "এগুলোর যেকোনো একটা দিন: bn, en")],
)
def test_an_unknown_locale_is_refused_in_one_line(tmp_path: Path, lang: str, said: str) -> None:
    refused = play_once(tmp_path, "--deck", SEED_DECK, "--locale", "fr", LANG=lang)
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "--locale fr" in refused.stderr
    assert said in refused.stderr
    assert not (tmp_path / "quizbot.db").exists() or "Traceback" not in refused.stderr


def test_a_miss_names_the_terminals_review_command(tmp_path: Path) -> None:
    questions = seed("en")
    player = Player(tmp_path, "--locale", "en", "--user", "tester")
    screen = player.until_prompt()
    assert screen is not None
    player.type(wrong_letter(screen, questions[0]["right"]))
    player.until_prompt()
    player.type("q")
    code, out, err = player.finish()
    assert (code, err) == (0, "")
    assert "`quizbot play --review` brings it back" in flat(out)
    assert "/quiz" not in out


@pytest.mark.parametrize(("locale", "columns"), [("en", 40), ("bn", 32), ("en", 120)])
def test_text_wraps_to_the_terminal_width_and_never_inside_a_word(
    tmp_path: Path, locale: str, columns: int
) -> None:
    from bot.console.layout import width

    played = play_once(
        tmp_path,
        "--deck",
        SEED_DECK,
        "--locale",
        locale,
        answers="a\nq\n",
        COLUMNS=str(columns),
    )
    assert played.returncode == 0, played.stderr
    lines = played.stdout.splitlines()
    words = {w for line in lines for w in line.split()}
    shown = [line for line in lines if not re.search(r"q\): [a-z]$", line)]  # prompts + echo
    too_wide = [line for line in shown if width(line) > columns and " " in line.strip()]
    assert too_wide == []
    assert max(width(line) for line in lines) > columns * 0.8  # it fills the width it has
    explanation = seed(locale)[0]["explanation"]
    assert set(explanation.split()) <= words  # every word whole, none split across lines


def test_a_broken_deck_does_not_stop_another_and_is_named(tmp_path: Path) -> None:
    (tmp_path / "questions").mkdir()
    (tmp_path / "questions" / "mine.yaml").write_text("title: [broken\n", encoding="utf-8")
    played = play_once(tmp_path, "--deck", SEED_DECK, "--locale", "en")
    assert played.returncode == 0
    assert played.stdout.startswith(EN_TITLE)
    problem, summary = played.stderr.splitlines()
    assert problem.startswith(f"{tmp_path / 'questions' / 'mine.yaml'}:2:1: ")
    assert "left out" in summary
    validate = subprocess.run(
        [sys.executable, "-m", "bot", "validate"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environ(),
        timeout=60,
    )
    assert validate.returncode == 1 and "mine.yaml:2:1:" in validate.stdout


def test_plays_the_shipped_decks_from_an_empty_folder(tmp_path: Path) -> None:
    played = play_once(tmp_path, answers="b\nq\n", LANG="en_US.UTF-8")
    assert played.returncode == 0, played.stderr
    assert played.stderr == ""
    assert "1 of " in played.stdout and "Your answer" in played.stdout


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en_US.UTF-8", "your name on the local leaderboard"),
        ("bn_BD.UTF-8", "লোকাল লিডারবোর্ডে আপনার নাম"),
    ],
)
def test_play_help_is_in_the_system_language(tmp_path: Path, lang: str, said: str) -> None:
    shown = play_once(tmp_path, "--help", LANG=lang)
    assert shown.returncode == 0 and said in flat(shown.stdout)
