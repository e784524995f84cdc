"""The deck-level `form-cues` warning (each cue planted in a deck, and what chance allows) and
the `reading-time` warning (a question longer than a game's default time to read)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from bot.cli import main
from bot.decks import cues
from bot.decks.loading import load_decks
from bot.decks.reading_time import ReadingTime, reading_time

Question = tuple[str, list[str], int]


def deck_file(
    tmp_path: Path, questions: list[Question], extra: dict[int, str] | None = None
) -> Path:
    """A one-language deck; `extra` adds lines (such as a lint key) to a question by index."""
    lines = ["title: Cues", "locales: [en]", "questions:"]
    for index, (text, choices, answer) in enumerate(questions):
        lines += [f"  - id: q{index + 1}", f'    text: "{text}"', "    choices:"]
        lines += [f'      - "{choice}"' for choice in choices]
        lines += [f"    answer: {answer}", '    explanation: "Because it is so."']
        lines += [(extra or {}).get(index, "")]
    path = tmp_path / "cues.yaml"
    path.write_text("\n".join(line for line in lines if line) + "\n", encoding="utf-8")
    return path


def form_cues(capsys: pytest.CaptureFixture[str], path: Path) -> list[str]:
    main(["validate", str(path)])
    return [line for line in capsys.readouterr().out.splitlines() if "[form-cues]" in line]


def lines_of(path: Path) -> dict[str, int]:
    """Each question's line, by id."""
    text = path.read_text(encoding="utf-8").splitlines()
    return {
        line.split("id: ")[1]: number
        for number, line in enumerate(text, start=1)
        if line.startswith("  - id: ")
    }


LONGEST = [
    (
        "Which link joins the GPUs of one node?",
        ["NVLink, through the NVSwitch fabric", "PCIe", "Ethernet", "USB"],
        0,
    ),
    (
        "What does ZeRO stage 1 shard?",
        ["Optimizer state, across data-parallel ranks", "Weights", "Activations", "Nothing"],
        0,
    ),
    (
        "What hides DDP's communication?",
        ["Bucketed all-reduces during the backward pass", "Nothing", "Prefetch", "Offload"],
        0,
    ),
    (
        "What is a pipeline bubble?",
        ["Time stages sit idle, waiting for work", "Memory", "A kernel", "A bug"],
        0,
    ),
    (
        "What does tensor parallelism split?",
        ["Each layer's weight matrices, across GPUs", "Data", "Experts", "Copies"],
        0,
    ),
    (
        "What does FSDP shard?",
        ["Parameters, gradients and optimizer state", "Batches", "Tokens", "Heads"],
        0,
    ),
]


def test_the_right_answer_longest_in_every_question_is_a_form_cue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = deck_file(tmp_path, LONGEST)
    at = lines_of(path)
    named = ", ".join(f"'q{n}' (line {at[f'q{n}']})" for n in range(1, 7))
    assert form_cues(capsys, path) == [
        f"{path}:3:1: warning: the right answer is the longest choice in 6 of the 6 questions "
        f"with a single longest choice; chance would give 1.5 (p = 0.0002), so picking it "
        f"scores without knowing: {named} [form-cues]"
    ]


def test_a_small_deck_is_not_flagged_by_noise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 3 of 3 happens by chance once in 64 (1/4 cubed): not clearly above chance.
    assert form_cues(capsys, deck_file(tmp_path, LONGEST[:3])) == []
    # 4 of 4, once in 256, is.
    assert len(form_cues(capsys, deck_file(tmp_path, LONGEST[:4]))) == 1


def test_a_question_that_ignores_form_cues_is_left_out_of_the_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ignoring = {0: "    lint: {ignore: [form-cues]}"}
    assert form_cues(capsys, deck_file(tmp_path, LONGEST[:4], ignoring)) == []


def test_the_right_answer_shortest_is_a_form_cue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shortest = [
        (
            text,
            [right.split(",")[0][:2], *(f"{w} of a different and longer kind" for w in wrong)],
            0,
        )
        for text, (right, *wrong), _ in LONGEST
    ]
    (warning,) = form_cues(capsys, deck_file(tmp_path, shortest))
    assert "the right answer is the shortest choice in 6 of the 6 questions" in warning


def test_the_right_answer_sharing_the_stems_words_is_a_form_cue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stem = [
        (
            "Which memory does activation checkpointing save?",
            ["Activation memory", "Disk space", "Bandwidth", "Cache lines"],
            0,
        ),
        (
            "Which state does ZeRO-1 shard across ranks?",
            ["The optimizer state", "Each layer", "Kernels", "Logs"],
            0,
        ),
        (
            "What does gradient accumulation add up?",
            ["Gradients of micro-batches", "Losses of epochs", "Weights", "Tokens"],
            0,
        ),
        (
            "What does a ring all-reduce pass around the ring?",
            ["Chunks around the ring", "Whole models", "Files", "Seeds"],
            0,
        ),
        (
            "Which parallelism splits the sequence?",
            ["Sequence parallelism", "Tensor slicing", "Data copies", "Expert routing"],
            0,
        ),
        (
            "What does loss scaling multiply?",
            ["The loss, by a scale", "Weights, by two", "The batch", "Learning rate"],
            0,
        ),
    ]
    found = [w for w in form_cues(capsys, deck_file(tmp_path, stem)) if "choice sharing" in w]
    assert len(found) == 1
    assert "the choice sharing the most words with the question in 6 of the 6" in found[0]


def test_the_right_answer_at_the_claims_centre_is_a_form_cue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The review's N2: the right answer combines the claims the others make most often."""
    subjects = ["bubble", "memory", "traffic", "latency", "throughput", "overlap"]
    centre = [
        (
            f"What does the change do to the {first} and the {second}?",
            [
                f"The {first} shrinks, and the {second} grows",
                f"The {first} shrinks, and the {second} stays the same",
                f"The {first} doubles, and the {second} grows",
                f"The {first} vanishes, at no cost at all",
            ],
            0,
        )
        for first, second in itertools.pairwise([*subjects, subjects[0]])
    ]
    (warning,) = form_cues(capsys, deck_file(tmp_path, centre))
    assert (
        "the right answer is the choice combining the other choices' most frequent claims in "
        "6 of the 6 questions with a single such choice; chance would give 1.5 (p = 0.0002)"
    ) in warning


@pytest.mark.parametrize(
    ("choices", "centre"),
    [
        # The review's four examples (dt/loss-scaling, dt/interleaved-pipeline-schedule,
        # dt/learning-rate-scaling, dj/barrier-rank-zero-first), and its anti-cue
        # (perf/overlap-from-trace, where the centre is a wrong choice) and a balanced 2x2.
        (
            [
                "It multiplies the gradients by a factor after backward, "
                "and divides them by it before the step",
                "It divides the loss by a factor before backward, "
                "so that large gradients cannot overflow fp16",
                "It multiplies the loss by a factor before backward, "
                "and divides the gradients by it before the step",
                "It clips the gradients to a maximum norm before the step, "
                "so that none of them overflow fp16",
            ],
            2,
        ),
        (
            [
                "Activation memory falls by a factor of v, and pipeline communication grows by v",
                "The bubble grows by a factor of v, and pipeline communication falls by v",
                "The bubble shrinks by a factor of v, and pipeline communication grows by v",
                "The bubble shrinks by a factor of v, at no extra communication cost",
            ],
            2,
        ),
        (
            [
                "They kept it at 0.1, the rate that worked for the small batch",
                "They divided it by 32, to 0.003125, as the gradient is less noisy",
                "They multiplied it by √32 ≈ 5.7, to 0.57, with a 5-epoch warm-up",
                "They multiplied it by 32, to 3.2, from the very first step",
                "They multiplied it by 32, to 3.2, with a 5-epoch warm-up",
            ],
            4,
        ),
        (
            [
                "The others call it before reading; rank 0, after downloading",
                "The others call it before reading; rank 0 skips it and carries on",
                "Only rank 0 calls it, after downloading, to release the others",
                "Every rank calls it once, before rank 0 starts downloading",
            ],
            0,
        ),
        (
            [
                "75%, adding about 120 ms to the step",
                "25%, adding about 90 ms to the step",
                "75%, adding about 30 ms to the step",
                "12%, adding about 120 ms to the step",
            ],
            0,
        ),
        (
            [
                "Strong scaling, at 80% efficiency",
                "Weak scaling, at 80% efficiency",
                "Weak scaling, at 10% efficiency",
                "Strong scaling, at 10% efficiency",
            ],
            None,
        ),
    ],
)
def test_the_convergence_centre_of_the_reviews_examples(
    tmp_path: Path, choices: list[str], centre: int | None
) -> None:
    report = load_decks([deck_file(tmp_path, [("Which?", choices, 0)])])
    (question,) = report.decks[0].questions
    assert cues.convergence(question, "en") == centre


def test_the_tail_is_the_exact_chance_of_as_many_or_more() -> None:
    assert cues.tail([0.25] * 4, 4) == pytest.approx(0.25**4)
    assert cues.tail([0.5, 0.5], 1) == pytest.approx(0.75)
    assert cues.tail([0.3], 0) == 1.0
    odds = [0.25, 0.2, 0.5, 1 / 3, 0.25]
    for hits in range(6):
        brute = sum(
            _chance(odds, outcome)
            for outcome in itertools.product([0, 1], repeat=len(odds))
            if sum(outcome) >= hits
        )
        assert cues.tail(odds, hits) == pytest.approx(brute)


def _chance(odds: list[float], outcome: tuple[int, ...]) -> float:
    product = 1.0
    for p, hit in zip(odds, outcome, strict=True):
        product *= p if hit else 1 - p
    return product


# Reading time


LONG_TEXT = " ".join(["word"] * 62) + "?"


def read_warning(capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: str = "") -> list[str]:
    path = deck_file(tmp_path, [(LONG_TEXT, ["one", "two", "three", "four"], 0)], {0: extra})
    main(["validate", str(path)])
    return [line for line in capsys.readouterr().out.splitlines() if "[reading-time]" in line]


def test_a_question_too_long_to_read_in_a_games_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 62 + 4 words = 66 at 200 a minute: 19.8 s, within 20.
    assert read_warning(capsys, tmp_path) == []
    path = deck_file(
        tmp_path, [(LONG_TEXT + " And more words?", ["one", "two", "three", "four"], 0)]
    )
    main(["validate", str(path)])
    assert [line for line in capsys.readouterr().out.splitlines() if "[reading-time]" in line] == [
        f"{path}:5:11: warning: the question and its choices take about 21 s to read "
        f"(69 words at 200 a minute), more than a game's 20 s; add seconds: 25 or more, or "
        f"shorten them [reading-time]"
    ]


def test_a_question_with_its_own_time_is_read_against_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = " ".join(["word"] * 120)  # 124 words with the choices: 37.2 s
    path = deck_file(tmp_path, [(text, ["one", "two", "three", "four"], 0)], {0: "    seconds: 40"})
    main(["validate", "--strict", str(path)])
    assert capsys.readouterr().out.splitlines() == ["1 deck, 1 question in 1 file: all valid"]
    path = deck_file(tmp_path, [(text, ["one", "two", "three", "four"], 0)], {0: "    seconds: 30"})
    main(["validate", str(path)])
    assert [line for line in capsys.readouterr().out.splitlines() if "[reading-time]" in line] == [
        f"{path}:5:11: warning: the question and its choices take about 38 s to read "
        f"(124 words at 200 a minute), more than its seconds: 30; make it 40 or more, or "
        f"shorten them [reading-time]"
    ]


def test_reading_time_can_be_ignored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(["word"] * 120)
    ignoring = {0: "    lint: {ignore: [reading-time]}"}
    path = deck_file(tmp_path, [(text, ["one", "two", "three", "four"], 0)], ignoring)
    assert main(["validate", "--strict", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == ["1 deck, 1 question in 1 file: all valid"]


def test_bengali_is_read_in_aksharas_and_its_latin_terms_as_words() -> None:
    assert reading_time("প্যারালেলিজম") == ReadingTime(words=0, aksharas=6)  # প্যা রা লে লি জ ম
    assert reading_time("ক্ষমতা") == ReadingTime(words=0, aksharas=3)  # a conjunct is one
    assert reading_time("উপরে") == ReadingTime(words=0, aksharas=3)  # উ পে রে: a vowel is one
    assert reading_time("GPU-তে NCCL 8টি") == ReadingTime(words=3, aksharas=2)
    assert ReadingTime(words=100, aksharas=400).seconds == pytest.approx(30 + 60)


def test_a_bilingual_question_is_warned_once_at_its_slowest_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bengali = " ".join(["প্যারালেলিজম"] * 22)  # 132 aksharas, and 11 in the choices: 21.5 s
    english = " ".join(["word"] * 66)  # 70 words with the choices: 21 s
    choices = {"ক্ষমতা": "power", "মেমরি": "memory", "লেয়ার": "layer", "নোড": "node"}
    path = tmp_path / "two.yaml"
    path.write_text(
        "title: {bn: t, en: t}\nlocales: [bn, en]\nquestions:\n  - id: q\n    text:\n"
        f'      bn: "{bengali}"\n      en: "{english}"\n    choices:\n'
        + "".join(f'      - {{bn: "{bn}", en: "{en}"}}\n' for bn, en in choices.items())
        + "    answer: 0\n    explanation: {bn: ব্যাখ্যা, en: Explanation}\n",
        encoding="utf-8",
    )
    main(["validate", str(path)])
    assert [line for line in capsys.readouterr().out.splitlines() if "[reading-time]" in line] == [
        f"{path}:6:11: warning: the question and its choices take about 22 s to read in 'bn' "
        f"(143 Bengali aksharas at 400 a minute) and 21 s in 'en', more than a game's 20 s; "
        f"add seconds: 25 or more, or shorten them [reading-time]"
    ]
