"""`quizbot import` and `quizbot export --deck` as a person runs them: each format's real sample
becomes a deck that validates and plays in `quizbot play`, and a deck exports and comes back."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.formats.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[3]

SAMPLES = [
    ("gift", FIXTURES / "moodle" / "gift" / "questions.gift.txt", 4),
    ("moodle-xml", FIXTURES / "moodle" / "xml" / "nested_categories_with_questions.xml", 4),
    ("aiken", FIXTURES / "moodle" / "aiken" / "questions.aiken.txt", 2),
    ("opentdb", FIXTURES / "opentdb" / "amount10.json", 10),
    ("kahoot", FIXTURES / "kahoot" / "kahoot-quiz-template.xlsx", 3),
    ("json", FIXTURES / "json" / "devops-questions.json", 4),
    ("red", FIXTURES / "red" / "general.head.yaml", 27),
    ("moodle-csv", FIXTURES / "moodle-csv" / "sample.csv", 9),
]


def quizbot(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "decks").mkdir()
    (tmp_path / "config.toml").write_text(
        f'[database]\nurl = "sqlite:///{tmp_path / "q.db"}"\n'
        '[questions]\npaths = ["decks"]\nshipped = false\n',
        encoding="utf-8",
    )
    return tmp_path


@pytest.mark.parametrize(("fmt", "sample", "count"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_a_real_sample_imports_validates_and_plays(
    folder: Path, fmt: str, sample: Path, count: int
) -> None:
    imported = quizbot(folder, "import", str(sample), "--id", "sample", "--config", "config.toml")
    assert imported.returncode == 0, imported.stderr
    assert f"decks/sample.yaml: wrote {count} question" in imported.stdout
    assert "Traceback" not in imported.stderr

    valid = quizbot(folder, "validate", "--config", "config.toml")
    assert valid.returncode == 0, valid.stdout
    assert f"1 deck, {count} questions" in valid.stdout

    played = quizbot(
        folder,
        "play",
        *("--deck", "sample", "--user", "ana", "--config", "config.toml"),
        stdin="a\n" * count,
    )
    assert played.returncode == 0, played.stderr
    assert re.search(rf"Your score: \d+/{count}\n", played.stdout), played.stdout


def test_export_a_deck_then_import_it_back(folder: Path) -> None:
    shipped = ROOT / "questions" / "distributed-training.yaml"
    (folder / "decks" / shipped.name).write_bytes(shipped.read_bytes())
    exported = quizbot(
        folder,
        *("export", "--deck", "distributed-training", "--format", "csv", "--out", "dt.csv"),
        *("--config", "config.toml"),
    )
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == "dt.csv: 30 questions of distributed-training as csv\n"

    back = quizbot(folder, "import", "dt.csv", "--id", "dt-again", "--out", "dt-again.yaml")
    assert back.returncode == 0, back.stderr
    text = (folder / "dt-again.yaml").read_text(encoding="utf-8")
    assert "\nlicense: CC BY 4.0\n" in text
    assert "\nsource: Li et al. 2020 (PyTorch DDP);" in text


def test_export_says_what_is_wrong_in_one_line(folder: Path) -> None:
    def export(*args: str) -> subprocess.CompletedProcess[str]:
        return quizbot(folder, "export", *args, "--config", "config.toml")

    no_format = export("--deck", "nope")
    assert (no_format.returncode, no_format.stderr) == (
        2,
        "--deck needs --format yaml|gift|moodle-xml|csv\n",
    )
    unknown = export("--deck", "nope", "--format", "gift")
    assert unknown.returncode == 1 and unknown.stderr.startswith("no deck 'nope'")
    # --server with --deck: `team` is that server's own deck (docs/suggestions.md)
    none = export("--deck", "team", "--server", "local", "--format", "gift")
    assert none.returncode == 1 and none.stderr.startswith("no deck 'team'")
    neither = export("--format", "gift")
    assert (neither.returncode, neither.stderr) == (2, "export needs --server, --deck, or both\n")
    assert not any(folder.glob("*.gift"))


def test_import_of_a_file_with_nothing_to_import_writes_nothing(folder: Path) -> None:
    (folder / "essay.gift").write_text("::e::Write about pipelines.{}\n", encoding="utf-8")
    proc = quizbot(folder, "import", "essay.gift", "--config", "config.toml")
    assert proc.returncode != 0
    assert "no question could be imported" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert list((folder / "decks").iterdir()) == []


@pytest.mark.parametrize(
    ("sample", "locale", "question", "right"),
    [
        (FIXTURES / "json" / "bn-bank.json", "bn", "বাংলাদেশের জাতীয় ফুল কী?", "শাপলা"),
        (FIXTURES / "bn-mcq" / "exam.txt", None, "বাংলাদেশের জাতীয় ফুল কোনটি?", "শাপলা"),
    ],
    ids=["json", "bn-mcq"],
)
def test_a_bengali_bank_imports_validates_and_plays_in_bengali(
    folder: Path, sample: Path, locale: str | None, question: str, right: str
) -> None:
    language = ("--locale", locale) if locale else ()
    imported = quizbot(
        folder, "import", str(sample), "--id", "bangla", *language, "--config", "config.toml"
    )
    assert imported.returncode == 0, imported.stderr
    assert "decks/bangla.yaml: wrote " in imported.stdout

    valid = quizbot(folder, "validate", "--config", "config.toml")
    assert valid.returncode == 0, valid.stdout
    *warned, summary = valid.stdout.splitlines()
    assert summary.startswith("1 deck, ")
    # The lint's warnings are for the author (a stand-in explanation, a 2-choice question),
    # never problems: the deck loads and plays.
    assert all(": warning: " in line for line in warned)

    played = quizbot(
        folder,
        *("play", "--deck", "bangla", "--user", "ana", "--locale", "bn", "--config", "config.toml"),
        stdin="a\n" * 10,
    )
    assert played.returncode == 0, played.stderr
    screen = played.stdout
    assert question in screen
    shown = re.search(rf"\n   ([A-E])\. {right}\n", screen.split(question, 1)[1])
    assert shown is not None, screen  # the right answer is one of the choices shown...
    assert f"সঠিক উত্তর: {shown.group(1)}. {right}" in screen  # ...and named after the answer
    assert "আপনার স্কোর:" in screen


def test_validate_and_start_name_a_red_list_in_the_decks_folder_in_one_line(folder: Path) -> None:
    (folder / "decks" / "general.yaml").write_bytes(
        (FIXTURES / "red" / "general.head.yaml").read_bytes()
    )
    valid = quizbot(folder, "validate", "--config", "config.toml")
    assert valid.returncode == 1
    decks = folder / "decks"
    assert valid.stdout == (
        f"{decks / 'general.yaml'}:1:1: this is a Red-DiscordBot trivia list, not a deck; move "
        f"it out of {decks} and convert it: quizbot import general.yaml --format red\n"
    )

    started = quizbot(folder, "play", "--user", "ana", "--config", "config.toml", stdin="q\n")
    assert (started.returncode, started.stderr) == (
        1,
        valid.stdout + "1 problem(s) in the decks; the bot did not start.\n",
    )

    (folder / "decks" / "general.yaml").rename(folder / "general.yaml")
    imported = quizbot(
        folder, "import", "general.yaml", "--format", "red", "--config", "config.toml"
    )
    assert imported.returncode == 0, imported.stderr
    valid = quizbot(folder, "validate", "--config", "config.toml")
    *warned, summary = valid.stdout.splitlines()
    assert (valid.returncode, summary) == (
        0,
        f"1 deck, 27 questions in 1 file: all valid, {len(warned)} warnings",
    )
    assert "[missing-explanation]" in warned[0]  # Red lists have no explanations to import


def test_import_in_a_folder_without_questions_creates_it(tmp_path: Path) -> None:
    # Issue 35 item 3: "nothing written" in a folder without questions/, though the docs show
    # it writing questions/<id>.yaml.
    (tmp_path / "planets.gift").write_text("::red::Which planet is red?{=Mars ~Venus}\n")
    proc = quizbot(tmp_path, "import", "planets.gift")
    assert proc.returncode == 0, proc.stderr
    written = proc.stdout.rsplit("\n", 2)[-2].split(": wrote 1 question from planets.gift", 1)[0]
    target = tmp_path / written
    assert target.is_file() and target.parent != tmp_path  # in the default deck folder, made now
    assert target.name == "planets.yaml"


def test_import_creates_the_first_configured_folder_and_leaves_none_when_it_writes_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "config.toml").write_text(
        f'[database]\nurl = "sqlite:///{tmp_path / "q.db"}"\n'
        '[questions]\npaths = ["team/decks", "more"]\nshipped = false\n',
        encoding="utf-8",
    )
    (tmp_path / "essay.gift").write_text("::e::Write about pipelines.{}\n")
    failed = quizbot(tmp_path, "import", "essay.gift", "--config", "config.toml")
    assert failed.returncode == 1
    assert not (tmp_path / "team").exists()
    (tmp_path / "planets.gift").write_text("::red::Which planet is red?{=Mars ~Venus}\n")
    proc = quizbot(tmp_path, "import", "planets.gift", "--config", "config.toml")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "team" / "decks" / "planets.yaml").is_file()
    out = quizbot(tmp_path, "import", "planets.gift", "--out", "new/sub/p.yaml")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "new" / "sub" / "p.yaml").is_file()
