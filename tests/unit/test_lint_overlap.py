"""`quizbot validate` on several decks: a question of one deck that gives away, or asks again,
a question of another, found as the bot loads the decks together; decks that do neither stay
quiet, and each deck alone stays as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.config import shipped_decks_dir
from bot.decks.loading import load_decks
from bot.decks.words import content_words
from tests.unit.test_lint import CLEAN, Q, at, warnings

MIXED_PRECISION = """\
id: mixed-precision
title: Mixed precision
locales: [en]
questions:
  - id: half-weights
    text: "What does keeping a 16-bit copy of the weights save in mixed precision?"
    choices:
      - "Half of the weights' memory"
      - "All of the activation memory"
      - "The optimizer's moment buffers"
      - "The time of the all-reduce"
    answer: 0
    explanation: "{explanation}"
"""

UNRELATED = """\
id: packaging
title: Python packaging
locales: [en]
questions:
  - id: wheel
    text: "What is a wheel in Python packaging?"
    choices:
      - "A built distribution, installed without a build step"
      - "A source archive that pip must build first"
      - "A lock file of pinned dependency versions"
      - "A virtual environment copied between machines"
    answer: 0
    explanation: "A wheel is a zip file with the files laid out as installed; pip unpacks it."
"""

TOLD = "fp16 training scales the loss so that small gradients do not underflow to zero."


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def mixed_precision(tmp_path: Path, explanation: str) -> Path:
    return write(tmp_path / "mixed.yaml", MIXED_PRECISION.format(explanation=explanation))


def validate_all(
    capsys: pytest.CaptureFixture[str], *paths: Path, flags: tuple[str, ...] = ()
) -> tuple[int, list[str]]:
    status = main(["validate", *flags, *map(str, paths)])
    return status, capsys.readouterr().out.splitlines()


def test_a_text_that_gives_away_another_decks_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    explanation = f"Weights in 16 bits take half the space; {TOLD}"
    mixed = mixed_precision(tmp_path, explanation)
    given = at(CLEAN, "- id: loss-scaling").split(":")[1]
    status, lines = validate_all(capsys, CLEAN, mixed, flags=("--strict",))
    assert warnings(lines) == [
        f"{at(mixed, Q + explanation)}: warning: this explanation gives away the answer of "
        f"question 'loss-scaling' of deck 'lint-clean' ({CLEAN}:{given}): it says "
        f'"gradient underflow", "small gradient", "underflow zero" [gives-away]'
    ]
    assert status == 1
    assert lines[-1] == "2 decks, 6 questions in 2 files: all valid, 1 warning"
    # Each deck alone is clean: the leak is between them.
    assert validate_all(capsys, mixed, flags=("--strict",))[0] == 0
    assert validate_all(capsys, CLEAN, flags=("--strict",))[0] == 0


def test_the_same_question_asked_in_two_decks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # clean.yaml asks "How many exponent bits does bf16 have?" (8); this asks it again.
    again = "In bf16, how many bits hold the exponent?"
    formats = write(
        tmp_path / "formats.yaml",
        "id: number-formats\ntitle: Number formats\nlocales: [en]\nquestions:\n"
        f'  - id: bf16-exponent\n    text: "{again}"\n'
        '    choices: ["8", "5", "11", "4"]\n    answer: 0\n'
        '    explanation: "bf16 keeps float32\'s exponent width and a shorter mantissa."\n',
    )
    first = at(CLEAN, "- id: bf16-bits").split(":")[1]
    status, lines = validate_all(capsys, CLEAN, formats)
    assert warnings(lines) == [
        f"{at(formats, Q + again)}: warning: this question asks what question 'bf16-bits' of "
        f'deck \'lint-clean\' ({CLEAN}:{first}) asks; both say "bf16", "bit", "exponent", '
        f'"8": whoever meets one first gets the other free, so keep one, or make '
        f"the other ask another fact [duplicate-question]"
    ]
    assert status == 0
    # The order given decides which of the two is warned: the later one.
    reversed_lines = warnings(validate_all(capsys, formats, CLEAN)[1])
    assert [w.split(": warning")[0] for w in reversed_lines] == [
        at(CLEAN, Q + "How many exponent bits does bf16 have?", key="en: ")
    ]


def test_a_question_asked_twice_in_one_deck_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = CLEAN.read_text(encoding="utf-8") + (
        "\n  - id: bf16-exponent-width\n"
        "    text:\n"
        '      bn: "bf16 ফরম্যাটে exponent-এর জন্য কয়টি bit থাকে?"\n'
        '      en: "In bf16, how many bits hold the exponent?"\n'
        "    choices:\n"
        '      - {bn: "8", en: "8"}\n      - {bn: "5", en: "5"}\n'
        '      - {bn: "11", en: "11"}\n      - {bn: "4", en: "4"}\n'
        "    answer: 0\n"
        "    explanation:\n"
        '      bn: "bf16 float32-এর মতো চওড়া exponent রাখে, mantissa ছোট।"\n'
        '      en: "bf16 keeps float32\'s exponent width and a shorter mantissa."\n'
    )
    path = write(tmp_path / "twice.yaml", text)
    first = at(path, "- id: bf16-bits").split(":")[1]
    (warning,) = warnings(validate_all(capsys, path)[1])
    assert warning.startswith(
        f"{at(path, Q + 'bf16 ফরম্যাটে')}: warning: this question asks what question "
        f"'bf16-bits' (line {first}) asks; both say "
    )
    assert warning.endswith(
        " in 'bn': whoever meets one first gets the other free, so keep "
        "one, or make the other ask another fact [duplicate-question]"
    )


def test_unrelated_decks_stay_quiet_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unrelated = write(tmp_path / "packaging.yaml", UNRELATED)
    mixed = mixed_precision(tmp_path, "Weights in 16 bits take half the memory of fp32 ones.")
    status, lines = validate_all(capsys, CLEAN, unrelated, mixed, flags=("--strict",))
    assert (status, lines) == (0, ["3 decks, 7 questions in 3 files: all valid"])


@pytest.mark.parametrize("ignoring", ["loss-scaling", "half-weights"])
def test_either_question_ignores_a_leak_between_decks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ignoring: str
) -> None:
    mixed = mixed_precision(tmp_path, f"Weights in 16 bits take half the space; {TOLD}")
    clean = CLEAN
    if ignoring == "half-weights":
        text = mixed.read_text(encoding="utf-8")
        write(
            mixed,
            text.replace("    answer: 0\n", "    answer: 0\n    lint: {ignore: [gives-away]}\n"),
        )
    else:
        text = CLEAN.read_text(encoding="utf-8")
        anchor = '    answer: 0\n    explanation:\n      bn: "fp16 প্রায়'
        assert text.count(anchor) == 1
        clean = write(
            tmp_path / "clean.yaml",
            text.replace(
                anchor,
                anchor.replace("answer: 0\n", "answer: 0\n    lint: {ignore: [gives-away]}\n"),
            ),
        )
    assert validate_all(capsys, clean, mixed, flags=("--strict",))[0] == 0


def test_either_twin_ignores_a_duplicate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    formats = write(
        tmp_path / "formats.yaml",
        "id: number-formats\ntitle: Number formats\nlocales: [en]\nquestions:\n"
        '  - id: bf16-exponent\n    text: "In bf16, how many bits hold the exponent?"\n'
        '    choices: ["8", "5", "11", "4"]\n    answer: 0\n'
        "    lint: {ignore: [duplicate-question]}\n"
        '    explanation: "bf16 keeps float32\'s exponent width and a shorter mantissa."\n',
    )
    assert validate_all(capsys, CLEAN, formats, flags=("--strict",))[0] == 0


def test_with_no_paths_a_teams_deck_is_checked_against_the_shipped_decks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the bot loads them: the configured paths and the shipped decks, together."""
    shipped_dir = shipped_decks_dir()
    assert shipped_dir is not None
    shipped = load_decks([shipped_dir])
    deck = min(shipped.decks, key=lambda d: d.id)
    copied = deck.questions[0]
    team = tmp_path / "team"
    team.mkdir()
    locales = ", ".join(deck.locales)

    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def localized(texts: dict[str, str] | object) -> str:
        assert isinstance(texts, dict)
        return "{" + ", ".join(f"{x}: {quoted(texts[x])}" for x in deck.locales) + "}"

    choices = "\n".join(f"      - {localized(dict(c.text))}" for c in copied.choices)
    path = write(
        team / "ours.yaml",
        f"id: ours\ntitle: {localized(dict(deck.title))}\nlocales: [{locales}]\nquestions:\n"
        f"  - id: copied\n    text: {localized(dict(copied.text))}\n    choices:\n{choices}\n"
        f"    answer: {copied.answer}\n    explanation: {localized(dict(copied.explanation))}\n",
    )
    config = write(tmp_path / "config.toml", '[questions]\npaths = ["team"]\n')
    main(["validate", "--config", str(config)])
    ours = [w for w in warnings(capsys.readouterr().out.splitlines()) if w.startswith(str(path))]
    assert [w.rsplit(" ", 1)[1] for w in ours if "duplicate-question" in w] == [
        "[duplicate-question]"
    ]
    (duplicate,) = [w for w in ours if "duplicate-question" in w]
    assert (
        f"question '{copied.id}' of deck '{deck.id}' ({shipped_dir / Path(deck.source).name}:"
        in duplicate
    )


def test_bengali_words_meet_without_their_endings() -> None:
    assert content_words("গ্রেডিয়েন্টগুলোর গ্রেডিয়েন্টের গ্রেডিয়েন্ট", "bn") == ["গ্রেডিয়েন্ট"] * 3
    assert content_words("লেয়ারে লেয়ারের লেয়ার", "bn") == ["লেয়া"] * 3
    assert content_words("মেমরিতে মেমরির মেমরি", "bn") == ["মেমরি"] * 3
    assert content_words("8টি GPU-তে, 16টি নোডে", "bn") == ["8", "gpu", "16", "নোড"]
    assert content_words("The ranks' GPUs and batches", "en") == ["rank", "gpu", "batch"]
