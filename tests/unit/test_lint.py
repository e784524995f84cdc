"""`quizbot validate` and its lint: one warning planted at a time in a copy of a clean deck,
with its message, line and column, and the exit status with and without --strict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.decks.lint import NAMES, lint
from bot.decks.loading import load_decks

CLEAN = Path(__file__).resolve().parents[1] / "decks" / "lint" / "clean.yaml"
Q = '"'
SHIPPED = Path(__file__).resolve().parents[2] / "questions"


def plant(tmp_path: Path, *swaps: tuple[str, str]) -> Path:
    """A copy of the clean deck with each `old` text replaced by `new` (each found once)."""
    text = CLEAN.read_text(encoding="utf-8")
    for old, new in swaps:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "planted.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def at(path: Path, needle: str, key: str = "") -> str:
    """'path:line:column' of the first `key + needle` in the file, pointing past `key`, as
    editors count."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if key + needle in line:
            return f"{path}:{number}:{line.index(key + needle) + len(key) + 1}"
    raise AssertionError(f"{needle!r} is not in {path}")


def validate(capsys: pytest.CaptureFixture[str], path: Path, *flags: str) -> tuple[int, list[str]]:
    status = main(["validate", *flags, str(path)])
    return status, capsys.readouterr().out.splitlines()


def warnings(lines: list[str]) -> list[str]:
    return [line for line in lines if ": warning: " in line]


def test_the_clean_deck_gets_no_warning(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = validate(capsys, CLEAN, "--strict")
    assert status == 0
    assert lines == ["1 deck, 5 questions in 1 file: all valid"]


def test_length_tell_points_at_the_right_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "A full copy of the model, with all of its weights"
    path = plant(tmp_path, ('en: "A full copy of the model"', f'en: "{long}"'))
    status, lines = validate(capsys, path)
    assert warnings(lines) == [
        f"{at(path, Q + long)}: warning: the right "
        f"answer is the longest choice by far in 'en' (49 vs 27 characters) [length-tell]"
    ]
    assert status == 0
    assert lines[-1] == "1 deck, 5 questions in 1 file: all valid, 1 warning"
    assert validate(capsys, path, "--strict")[0] == 1


def test_a_right_answer_a_little_longer_is_no_tell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 31 vs 27 characters: strictly longest, but neither 1.25x nor 8 characters more.
    path = plant(
        tmp_path, ('en: "A full copy of the model"', 'en: "A full copy of the model, each"')
    )
    assert validate(capsys, path, "--strict") == (0, ["1 deck, 5 questions in 1 file: all valid"])


def test_deck_length_tell_counts_the_questions_at_the_questions_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Three of five right answers longest, none by far: only the deck-wide warning.
    path = plant(
        tmp_path,
        ('en: "6"}', 'en: "6 steps"}'),
        ('en: "8"}\n      - {bn: "10"', 'en: "8 bits"}\n      - {bn: "10"'),
        ('en: "NVLink"}', 'en: "NVLink, NVSwitch"}'),
    )
    status, lines = validate(capsys, path)
    assert warnings(lines) == [
        f"{at(path, 'questions:')}: warning: the right answer is the longest choice in 3 of 5 "
        f"questions in 'en'; picking the longest scores better than chance [deck-length-tell]"
    ]
    assert status == 0


def test_a_choice_that_repeats_another_but_for_punctuation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = plant(tmp_path, ('en: "Ethernet"', 'en: "nvlink."'))
    first = at(path, '"NVLink"}').split(":")[1]
    assert warnings(validate(capsys, path)[1]) == [
        f"{at(path, Q + 'nvlink.')}: warning: this choice repeats the one on line {first} in 'en' "
        f"(only case, spacing or punctuation differ) [duplicate-choice]"
    ]


def test_a_choice_the_same_in_nfc_is_a_repeat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "é" written as e + combining accent, and precomposed.
    path = plant(
        tmp_path, ('en: "InfiniBand"', 'en: "Café"'), ('en: "Ethernet"', 'en: "Cafe\u0301"')
    )
    assert [w.rsplit(" ", 1)[1] for w in warnings(validate(capsys, path)[1])] == [
        "[duplicate-choice]"
    ]


@pytest.mark.parametrize(
    ("bn", "en", "name", "kind"),
    [
        ("উপরের সবগুলো", "All of the above", "all-of-the-above", "all"),
        ("উপরের কোনোটিই নয়।", "None of these.", "none-of-the-above", "none"),
    ],
)
def test_all_or_none_of_the_above_in_each_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bn: str, en: str, name: str, kind: str
) -> None:
    path = plant(
        tmp_path, ('{bn: "মেমরি বাঁচাতে", en: "To save memory"}', f'{{bn: "{bn}", en: "{en}"}}')
    )
    assert warnings(validate(capsys, path)[1]) == [
        f"{at(path, Q + bn)}: warning: \"{kind} of the above\" as a choice in 'bn': it tests "
        f"reading the other choices, not the subject; write a specific choice [{name}]"
    ]
    # Only the English is a catch-all: the warning names English.
    path = plant(tmp_path, ('en: "To save memory"', f'en: "{en}"'))
    assert [w.split(" as a choice ")[1][:7] for w in warnings(validate(capsys, path)[1])] == [
        "in 'en'"
    ]


@pytest.mark.parametrize(
    ("locale", "phrase"),
    [
        ("es", "Ninguna de las anteriores"),
        ("fr", "Toutes les réponses ci-dessus"),
        ("de", "Keine der oben genannten"),
        ("hi", "उपरोक्त सभी"),
        ("ru", "Все вышеперечисленное"),
    ],
)
def test_catch_alls_of_other_languages(tmp_path: Path, locale: str, phrase: str) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(
        f"title: t\nlocales: [{locale}]\nquestions:\n  - id: q\n    text: q\n"
        f'    choices: [a, b, "{phrase}"]\n    answer: 0\n    explanation: because\n',
        encoding="utf-8",
    )
    report = load_decks([path])
    (deck,) = report.decks
    (warning,) = lint(deck, report.places[deck.id])
    assert warning.name.endswith("-of-the-above") and (warning.line, warning.column) == (6, 21)
    assert " in '" not in warning.message  # one locale: nothing to say which


def test_two_choices_outside_true_false(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = plant(
        tmp_path,
        (
            '      - {bn: "4", en: "4"}\n      - {bn: "8", en: "8"}\n    answer: 1\n',
            "    answer: 1\n",
        ),
    )
    assert warnings(validate(capsys, path)[1]) == [
        f"{at(path, 'choices:')}: warning: only 2 choices: a guess is right half the time; add a "
        f"near-miss, or make it a true/false question [few-choices]"
    ]
    true_false = plant(
        tmp_path,
        (
            '      - {bn: "3", en: "3"}\n      - {bn: "6", en: "6"}\n'
            '      - {bn: "4", en: "4"}\n      - {bn: "8", en: "8"}\n',
            '      - {bn: "সত্য", en: "True"}\n      - {bn: "মিথ্যা", en: "false."}\n',
        ),
    )
    assert validate(capsys, true_false, "--strict")[0] == 0


def test_an_explanation_that_gives_another_answer_away(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    told = (
        "The 8 GPUs of a node are joined by NVLink through NVSwitch; fp16 training scales "
        "the loss so that small gradients do not underflow to zero."
    )
    path = plant(
        tmp_path,
        (
            'en: "The 8 GPUs of a node are joined by NVLink through NVSwitch; InfiniBand joins '
            'nodes."',
            f'en: "{told}"',
        ),
    )
    given = at(path, "- id: loss-scaling").split(":")[1]
    assert warnings(validate(capsys, path)[1]) == [
        f"{at(path, Q + told)}: warning: this explanation gives away the answer of question "
        f"'loss-scaling' (line {given}) in 'en': it says \"gradient underflow\", "
        f'"small gradient", "underflow zero" [gives-away]'
    ]


def test_a_text_on_the_same_subject_that_does_not_answer_is_no_leak(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Names the subject and even the right answer's words, but also the wrong choices': a
    # comparison, not an answer.
    told = (
        "The 8 GPUs of a node are joined by NVLink; loss scaling is not about making the "
        "optimizer step faster or the learning rate larger, nor about small gradients."
    )
    path = plant(
        tmp_path,
        (
            'en: "The 8 GPUs of a node are joined by NVLink through NVSwitch; InfiniBand joins '
            'nodes."',
            f'en: "{told}"',
        ),
    )
    assert validate(capsys, path, "--strict")[0] == 0


def test_a_question_whose_stem_holds_the_number_gives_nothing_away(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # bf16-bits' answer 8 is in node-link's explanation ("The 8 GPUs"), and ring-steps'
    # 6 in its own: numbers of one digit, or in the asking question's stem, tell nothing.
    assert validate(capsys, CLEAN, "--strict")[0] == 0


def test_an_explanation_copied_from_another_locale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    english = "bf16 keeps the 8 exponent bits of float32 and cuts the mantissa to 7."
    path = plant(
        tmp_path,
        ('bn: "bf16 float32-এর 8টি exponent bit রাখে, mantissa কমিয়ে 7 করে।"', f'bn: "{english}"'),
    )
    assert warnings(validate(capsys, path)[1]) == [
        f"{at(path, Q + english, key='en: ')}: warning: the explanation is the same text in "
        f"'bn' and 'en': write it in each language [missing-explanation]"
    ]


def test_a_why_copied_from_another_locale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    english = "Sharding the optimizer state is ZeRO, not plain data parallelism."
    path = plant(
        tmp_path, ('bn: "অপটিমাইজার স্টেট ভাগ করে ZeRO, সাধারণ ডেটা প্যারালেলিজম নয়।"', f'bn: "{english}"')
    )
    assert warnings(validate(capsys, path)[1]) == [
        f"{at(path, Q + english, key='en: ')}: warning: this why is the same text in 'bn' "
        f"and 'en': write it in each language [missing-why]"
    ]


def test_an_explanation_that_only_names_the_answer(tmp_path: Path) -> None:
    path = tmp_path / "imported.yaml"
    path.write_text(
        "title: t\nlocales: [en]\nquestions:\n  - id: q\n    text: Which?\n"
        "    choices: [Paris, Rome, Oslo]\n    answer: 0\n"
        '    explanation: "The answer is Paris."\n',
        encoding="utf-8",
    )
    report = load_decks([path])
    (deck,) = report.decks
    assert [str(w) for w in lint(deck, report.places[deck.id])] == [
        f"{path}:8:18: warning: the explanation only names the answer; say why it is right "
        f"[missing-explanation]"
    ]


def test_lint_ignore_silences_exactly_that_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "A full copy of the model, with all of its weights"
    swaps = [
        ('en: "A full copy of the model"', f'en: "{long}"'),
        ('en: "Only the embeddings"', 'en: "None of the above"'),
    ]
    both = warnings(validate(capsys, plant(tmp_path, *swaps))[1])
    assert [w.rsplit(" ", 1)[1] for w in both] == ["[length-tell]", "[none-of-the-above]"]
    ignoring = (
        '    answer: 0\n    explanation:\n      bn: "প্রতিটি GPU পুরো',
        "    answer: 0\n    lint: {ignore: [length-tell]}\n    explanation:\n"
        '      bn: "প্রতিটি GPU পুরো',
    )
    status, lines = validate(capsys, plant(tmp_path, *swaps, ignoring), "--strict")
    assert [w.rsplit(" ", 1)[1] for w in warnings(lines)] == ["[none-of-the-above]"]
    assert status == 1


def test_an_unknown_name_in_lint_ignore_is_a_warning_with_a_guess(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = plant(
        tmp_path,
        (
            '    answer: 1\n    explanation:\n      bn: "bf16',
            '    answer: 1\n    lint: {ignore: [lenght-tell]}\n    explanation:\n      bn: "bf16',
        ),
    )
    status, lines = validate(capsys, path)
    assert warnings(lines) == [
        f"{at(path, 'lenght-tell')}: warning: lint ignores 'lenght-tell', no warning's name "
        f"(did you mean 'length-tell'?) [unknown-warning]"
    ]
    assert status == 0


@pytest.mark.parametrize(
    ("lint_value", "message"),
    [
        ("5", "lint must be a mapping, such as {ignore: [length-tell]}"),
        ("{ignore: length-tell}", "lint ignore must be a list, such as [length-tell]"),
        ("{ignroe: [length-tell]}", "unknown key 'ignroe' (did you mean 'ignore'?)"),
    ],
)
def test_a_lint_key_of_the_wrong_shape_is_a_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lint_value: str, message: str
) -> None:
    path = plant(
        tmp_path,
        (
            '    answer: 1\n    explanation:\n      bn: "bf16',
            f'    answer: 1\n    lint: {lint_value}\n    explanation:\n      bn: "bf16',
        ),
    )
    status, lines = validate(capsys, path)
    assert status == 1
    assert [line.split(": ", 1)[1] for line in lines] == [message]


def test_the_schema_publishes_lint_ignore_with_every_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    ignore = schema["$defs"]["question"]["properties"]["lint"]["properties"]["ignore"]
    assert ignore["items"]["enum"] == list(NAMES)


def test_the_shipped_decks_pass_strict_together(capsys: pytest.CaptureFixture[str]) -> None:
    """Every check, the ones across decks included (gives-away and duplicate-question between
    decks, form-cues, reading-time), as the bot loads the shipped decks together."""
    status, lines = validate(capsys, SHIPPED, "--strict")
    assert (status, warnings(lines)) == (0, [])
    assert lines[-1].endswith("all valid")
    for deck in sorted(SHIPPED.glob("*.yaml")):  # each deck alone has no leak of its own
        assert not [w for w in warnings(validate(capsys, deck)[1]) if "[gives-away]" in w]


KNOWN_LEAKS = {
    # The review's T3/T4 (content-2026-12): true leaks of the decks as they were; the rewrite
    # removes them. Anything else gives-away finds in the shipped decks is a false positive.
    ("zero-stage2-memory", "mixed-precision-adam-bytes"),
    ("fsdp-collectives", "zero3-communication"),
    ("pipeline-bubble", "reducing-the-bubble"),
    ("tensor-parallel-split", "tensor-parallel-framework"),
}


def test_gives_away_finds_in_the_shipped_decks_only_real_leaks() -> None:
    report = load_decks([SHIPPED])
    found = {
        (w.question, w.message.split("question '")[1].split("'")[0])
        for deck in report.decks
        for w in lint(deck, report.places[deck.id])
        if w.name == "gives-away"
    }
    assert found <= KNOWN_LEAKS


def _gives_away(tmp_path: Path, questions: str) -> list[str]:
    path = tmp_path / "pair.yaml"
    path.write_text(f"title: t\nlocales: [en]\nquestions:\n{questions}", encoding="utf-8")
    report = load_decks([path])
    assert [str(p) for p in report.problems] == []
    (deck,) = report.decks
    return [w.message for w in lint(deck, report.places[deck.id]) if w.name == "gives-away"]


def test_legit_mentions_from_the_shipped_decks_are_no_leak(tmp_path: Path) -> None:
    """Texts of the rewritten distributed-training deck that share a citation, a lone digit
    or a phrase with another question's answer without answering it."""
    questions = """\
  - id: activation-checkpointing
    text: "Chen et al. (2016) store activations only at every √n-th layer of an n-layer
      network and recompute the rest during the backward pass. What is the trade-off?"
    choices:
      - "Memory grows as O(√n) instead of O(n), for about one extra forward pass"
      - "Memory grows as O(log n) instead of O(n), with no extra compute"
      - "Activations are copied to CPU memory and brought back for the backward pass"
    answer: 0
    explanation: "Each segment's forward pass runs twice."
  - id: fp32-master-weights
    text: "Why keep an fp32 master copy of the weights in mixed-precision training?"
    choices: ["Small updates vanish in 16-bit", "fp32 is faster", "To save memory"]
    answer: 0
    explanation: "Micikevicius et al. (2018) keep an fp32 master copy, apply the update
      there, and cast it to 16-bit for the next forward pass."
  - id: ring-allreduce-cost
    text: "In a ring all-reduce of a buffer of S bytes across N GPUs, how much data does
      each GPU send?"
    choices: ["2(N-1)/N × S, just under 2S", "(N-1) × S", "S/N", "S × log2(N)"]
    answer: 0
    explanation: "Reduce-scatter and all-gather each take N-1 steps of S/N."
  - id: zero-stages
    text: "What do DeepSpeed ZeRO stages 1, 2 and 3 shard across the data-parallel GPUs?"
    choices: ["optimizer state; plus gradients; plus parameters", "activations", "nothing",
      "the batch"]
    answer: 0
    explanation: "Each stage shards one more kind of model state."
"""
    assert _gives_away(tmp_path, questions) == []
