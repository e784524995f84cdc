"""Red-DiscordBot trivia lists: Red's own lists (fixtures/red, GPL-3.0) made into choices."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.decks.formats.red import read_red
from tests.unit.formats.conftest import FIXTURES, Importer, texts

RED = FIXTURES / "red"
NUMBER = re.compile(r"[-+]?\d[\d,]*(\.\d+)?")


def red_answers(path: Path) -> dict[str, list[str]]:
    """The list as Red's loader reads it (yaml.safe_load; a repeated question keeps its last)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {
        " ".join(question.split()): [str(answer) for answer in answers]
        for question, answers in data.items()
        if question not in ("AUTHOR", "DESCRIPTION", "CONFIG")
    }


def folded(text: str) -> str:
    return re.sub(r"[\W_]+", "", re.sub(r"^(the|a|an)\s+", "", text.casefold()))


def test_the_world_cup_list_becomes_choices_with_the_first_answer_right(
    run_import: Importer,
) -> None:
    source = RED / "worldcup.yaml"
    outcome, deck = run_import(source)
    assert deck is not None and outcome.status == 0
    expected = red_answers(source)
    questions = list(texts(deck).values())
    assert len(questions) == len(expected) == 227
    for question in questions:
        answers = expected[" ".join(question["text"].split())]
        right = question["choices"][question["answer"]]
        assert right == answers[0]
        wrong = [c for i, c in enumerate(question["choices"]) if i != question["answer"]]
        assert len(wrong) == 3
        # another spelling of the right answer is never offered as a wrong one
        assert not {folded(c) for c in wrong} & {folded(a) for a in answers}, question
        # numbers with numbers: the list has enough numeric answers for every such question
        if NUMBER.fullmatch(right):
            assert all(NUMBER.fullmatch(c) for c in wrong), question
    assert deck.description == {
        "en": "A trivia about the FIFA World Cup. (trivia list by Kreusada)"
    }


def test_a_question_asked_twice_keeps_the_answers_red_uses_and_says_so(
    run_import: Importer,
) -> None:
    source = RED / "worldcup.yaml"
    outcome, _ = run_import(source)
    assert [line for line in outcome.lines if ": skipped: " in line] == [
        f"{source}:656: skipped: the same question again at line 667, whose answers Red uses "
        "(Enzo Fernández instead of Thomas Müller)"
    ]
    assert outcome.lines[-1].endswith(
        "227 questions from " + f"{source} (Red-DiscordBot trivia list), 1 skipped"
    )


def test_wrong_choices_are_repeatable_and_come_from_related_questions(
    run_import: Importer, tmp_path: Path
) -> None:
    source = RED / "general.head.yaml"
    first = run_import(source, out=tmp_path / "a.yaml")[0].written
    second = run_import(source, out=tmp_path / "b.yaml")[0].written
    assert first is not None and second is not None
    assert first.read_text(encoding="utf-8") == second.read_text(encoding="utf-8")
    deck = yaml.safe_load(first.read_text(encoding="utf-8"))
    by_text = {question["text"]: question for question in deck["questions"]}
    movie = by_text['"I soiled my armor I was so scared!" is from which movie?']
    assert movie["choices"][movie["answer"]] == "Monty Python and the Holy Grail"
    assert "Monty Python" not in movie["choices"]


def test_wrong_choices_come_from_questions_that_share_words() -> None:
    countries = ["Chile", "Japan", "Kenya", "Nepal", "Spain"]
    others = ["Piano", "Tiger", "Mango", "Opera", "Delta", "Rugby"]
    text = "".join(
        f"Among Santiago, Tokyo, Nairobi, Kathmandu or Madrid, capital {n} is in which country?:\n"
        f"- {country}\n"
        for n, country in enumerate(countries)
    ) + "".join(f"Riddle number {n} of the evening?:\n- {word}\n" for n, word in enumerate(others))
    deck = read_red(text, "en")
    for question in deck.questions[: len(countries)]:
        choices = {choice.text["en"] for choice in question.choices}
        assert choices <= set(countries), choices


def test_settings_are_not_questions_and_broken_entries_are_reported() -> None:
    text = (
        "AUTHOR: Someone\n"
        "CONFIG:\n"
        "  delay: 20\n"
        "  reveal_answer: true\n"
        "Is the sky blue?:\n"
        "- yes\n"
        "What colour is grass?:\n"
        "- Green\n"
        "What has no answer?: []\n"
        "What is nested?:\n"
        "- [a, b]\n"
        "What is 6 times 7?: 42\n"
        "What is 2 plus 2?:\n"
        "- 4\n"
        "- four\n"
    )
    deck = read_red(text, "en")
    assert [(note.line, note.message) for note in deck.notes if note.kind == "skipped"] == [
        (9, "it has no answer"),
        (10, "its answers are not a list of texts"),
    ]
    questions = {q.text["en"]: q for q in deck.questions}
    assert list(questions) == [
        "Is the sky blue?",
        "What colour is grass?",
        "What is 6 times 7?",
        "What is 2 plus 2?",
    ]
    sky = questions["Is the sky blue?"]
    assert sky.choices[sky.answer].text == {"en": "yes"}  # YAML's true is not "True" here
    sums = questions["What is 2 plus 2?"]
    wrong = [c.text["en"] for i, c in enumerate(sums.choices) if i != sums.answer]
    # the one other number first, then the nearest answers of other kinds; never "four"
    assert wrong[0] == "42" and sorted(wrong[1:]) == ["Green", "yes"]
    assert deck.description == {"en": "(trivia list by Someone)"}


def test_a_list_with_one_question_has_nothing_to_draw_from() -> None:
    deck = read_red("Only question?:\n- Only answer\n", "en")
    assert deck.questions == []
    assert [note.message for note in deck.notes] == [
        "no other answer in the list to offer as a wrong choice"
    ]


def test_a_question_repeated_with_the_same_answer_is_kept_once() -> None:
    deck = read_red(
        "Who sang Don't You Want Me?:\n- The Human League\nWho?:\n- Me\n"
        "Who sang Don't You Want Me?:\n- The Human League\n",
        "en",
    )
    assert [(note.line, note.message) for note in deck.notes if note.kind == "skipped"] == [
        (1, "the same question again at line 5; kept once")
    ]
    assert [question.line for question in deck.questions] == [3, 5]


def test_a_yes_no_answer_is_offered_with_its_opposite_and_lettered_options_are_its_choices(
    run_import: Importer,
) -> None:
    # Issue 36 finding 6 (d7): "No" got No / SP3 / Dorm / B, and a question listing its own
    # options A, B, C was flattened onto one line with distractors drawn from other answers.
    source = FIXTURES / "repros" / "d7-red-yesno-and-lettered.yaml"
    outcome, deck = run_import(source, fmt="red")
    assert deck is not None, outcome.lines
    found = texts(deck)
    void = found["can-adrenaline-healing-be-mitigated-by-void"]
    assert (void["choices"], void["answer"]) == (["Yes", "No"], 1)
    assert not deck.questions[1].shuffle
    incinerate = found["what-does-incinerate-do-in-addition-to-damage"]
    assert incinerate["text"] == "What does Incinerate do, in addition to damage?"
    assert incinerate["choices"] == [
        "Prevents evasion",
        "Removes perfect block chance, and lowers block proficiency",
        "Reverses healing",
    ]
    assert incinerate["answer"] == 1


def test_a_question_keeps_its_own_line_breaks() -> None:
    deck = read_red(
        '"What was the score?\\nFormat: `<home>-<away>`":\n- 2-1\nWho won?:\n- Spain\n'
        "Who lost?:\n- Italy\n",
        "en",
    )
    assert deck.questions[0].text["en"] == "What was the score?\nFormat: `<home>-<away>`"
