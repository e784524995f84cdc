"""Loading deck files: what a deck author sees from `quizbot validate`, position by position."""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.decks.format import CHOICE, DECK, QUESTION
from bot.decks.loading import DeckReport, load_decks
from bot.decks.model import Choice, Deck
from bot.decks.problem import Problem
from bot.decks.schema import deck_json_schema

DECKS = Path(__file__).resolve().parent / "decks"
GOOD = DECKS / "good"
BROKEN = DECKS / "broken"
SHIPPED = Path(__file__).resolve().parent.parent / "questions"


def load_one(path: Path) -> tuple[Deck | None, list[Problem]]:
    """One file through `load_decks`: its deck if valid, and its problems."""
    report = load_decks([path])
    return (report.decks[0] if report.decks else None), report.problems


def problems_in(path: Path) -> list[str]:
    """The problems of one file as `validate` prints them, with the path as given."""
    deck, problems = load_one(path)
    assert deck is None
    return [str(problem) for problem in problems]


def at(path: Path, *lines: str) -> list[str]:
    return [f"{path}:{line}" for line in lines]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# Problem and report


def test_a_problem_prints_as_path_line_column_message() -> None:
    problem = Problem("questions/a.yaml", 3, 7, "unknown key 'titel' (did you mean 'title'?)")
    assert str(problem) == "questions/a.yaml:3:7: unknown key 'titel' (did you mean 'title'?)"


def test_the_summary_counts_decks_questions_and_files() -> None:
    report = load_decks([GOOD])
    assert report.ok
    assert report.problems == []
    assert report.files == 2
    assert report.summary() == "2 decks, 4 questions in 2 files: all valid"


def test_the_summary_uses_singulars_and_counts_problems(tmp_path: Path) -> None:
    one = load_decks([GOOD / "one-language.yml", tmp_path / "missing.yaml"])
    assert not one.ok
    assert one.summary() == "1 deck, 2 questions in 1 file: 1 problem"
    assert DeckReport().summary() == "0 decks, 0 questions in 0 files: all valid"


# Good decks


def test_a_two_language_deck_loads_into_the_model() -> None:
    path = GOOD / "two-languages.yaml"
    deck, problems = load_one(path)
    assert problems == []
    assert deck is not None
    assert deck.id == "parallelism-basics"
    assert deck.locales == ("bn", "en")
    assert deck.title == {"bn": "সমান্তরালতার মূল কথা", "en": "Parallelism basics"}
    assert deck.description == {
        "bn": "মডেল ও পাইপলাইন সমান্তরালতা",
        "en": "Model and pipeline parallelism",
    }
    assert deck.source == str(path)
    first, second = deck.questions
    assert (first.id, first.position, second.id, second.position) == (
        "why-model-parallelism",
        1,
        "pipeline-bubble",
        2,
    )
    assert first.answer == 0
    assert first.right == Choice(
        {"bn": "মডেলটি একটি GPU-তে ধরে না", "en": "The model does not fit on one GPU"}
    )
    assert first.choices[1].why == {
        "bn": "এটি ডেটা লোডিংয়ের সমস্যা",
        "en": "That is a data-loading problem",
    }
    assert first.tags == ("memory", "basics")
    assert second.tags == ()
    assert second.answer == 1


def test_shuffle_comes_from_the_question_else_the_deck() -> None:
    deck, _ = load_one(GOOD / "two-languages.yaml")
    assert deck is not None
    assert [q.shuffle for q in deck] == [False, True]  # deck says false; the second overrides
    plain, _ = load_one(GOOD / "one-language.yml")
    assert plain is not None
    assert [q.shuffle for q in plain] == [True, True]  # the default


def test_a_one_language_deck_writes_plain_strings() -> None:
    deck, problems = load_one(GOOD / "one-language.yml")
    assert problems == []
    assert deck is not None
    assert deck.id == "one-language"  # from the file name
    assert deck.title == {"en": "Tensor parallelism"}
    question = deck.questions[0]
    assert question.text == {"en": "How does tensor parallelism split the work?"}
    assert [c.text for c in question.choices] == [
        {"en": "It puts whole layers on different GPUs"},
        {"en": "It splits the math inside a layer across GPUs"},
        {"en": "It runs every layer twice"},
    ]
    assert question.choices[2].why == {"en": "That would be redundancy, not parallelism"}
    assert question.explanation == {
        "en": "Each GPU computes part of a layer's matrix multiply, "
        "and the partial results are combined."
    }
    numbers = deck.questions[1]
    assert [c.text for c in numbers.choices] == [{"en": "8"}, {"en": "1024"}]
    assert (question.seconds, numbers.seconds) == (None, 30)


def test_a_question_may_ask_for_its_own_time_within_limits(tmp_path: Path) -> None:
    base = (
        "title: t\nlocales: [en]\nquestions:\n"
        "  - id: q\n    text: Which?\n    choices: [a, b, c]\n    answer: 0\n"
        "    explanation: Because.\n    seconds: "
    )
    for fine in ("10", "300", "60"):
        deck, problems = load_one(write(tmp_path / "fine.yaml", base + fine + "\n"))
        assert problems == []
        assert deck is not None and deck.questions[0].seconds == int(fine)
    for value, message in [
        ("5", "seconds is 5; it must be a whole number of seconds from 10 to 300"),
        ("301", "seconds is 301; it must be a whole number of seconds from 10 to 300"),
        ("-20", "seconds is -20; it must be a whole number of seconds from 10 to 300"),
        ("45.5", "seconds must be a whole number of seconds from 10 to 300, such as 60"),
        ("true", "seconds must be a whole number of seconds from 10 to 300, such as 60"),
        ("'60'", "seconds must be a whole number of seconds from 10 to 300, such as 60"),
        ("[60]", "seconds must be a whole number of seconds from 10 to 300, such as 60"),
    ]:
        path = write(tmp_path / "bad.yaml", base + value + "\n")
        assert problems_in(path) == at(path, f"9:14: {message}"), value


def test_a_deck_version_changes_with_a_questions_time_but_not_without_one(
    tmp_path: Path,
) -> None:
    base = (
        "title: t\nlocales: [en]\nquestions:\n"
        "  - id: q\n    text: Which?\n    choices: [a, b, c]\n    answer: 0\n"
        "    explanation: Because.\n"
    )
    untimed = load_one(write(tmp_path / "a.yaml", base))[0]
    timed = load_one(write(tmp_path / "b.yaml", base + "    seconds: 60\n"))[0]
    longer = load_one(write(tmp_path / "c.yaml", base + "    seconds: 90\n"))[0]
    assert untimed is not None and timed is not None and longer is not None
    assert len({untimed.version, timed.version, longer.version}) == 3
    # A deck without any `seconds` keeps the version it had before the key existed.
    assert (
        untimed.version
        == hashlib.blake2s(repr(untimed.questions).encode(), digest_size=5).hexdigest()
    )


def test_texts_stay_as_written_even_when_yaml_would_read_them_as_other_types(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "norway.yaml",
        "title: {no: Norsk}\n"
        "locales: [no]\n"
        "questions:\n"
        "  - id: q\n"
        "    text: {no: '1.10'}\n"
        "    choices: [yes, no, 007, 2024-01-01]\n"
        "    answer: 2\n"
        "    explanation: {no: off}\n",
    )
    deck, problems = load_one(path)
    assert problems == []
    assert deck is not None
    assert deck.locales == ("no",)
    question = deck.questions[0]
    assert [c.text["no"] for c in question.choices] == ["yes", "no", "007", "2024-01-01"]
    assert question.explanation == {"no": "off"}


# Broken decks: every problem, exactly where it is


def test_unknown_missing_and_duplicate_keys() -> None:
    path = BROKEN / "keys.yaml"
    assert problems_in(path) == at(
        path,
        "1:1: unknown key 'titel' (did you mean 'title'?)",
        "3:1: unknown key 'colour'; a deck has id, title, description, locales, shuffle, "
        "questions, source, license",
        "8:5: unknown key 'anwser' (did you mean 'answer'?)",
        "10:5: missing required key 'explanation'",
        "14:9: unknown key 'wy' (did you mean 'why'?)",
        "17:5: duplicate key 'text' (first on line 11)",
    )


def test_texts_need_every_locale_and_no_others() -> None:
    path = BROKEN / "texts.yaml"
    assert problems_in(path) == at(
        path,
        "2:13: title in 'en' is empty",
        "4:14: description must be a string or a mapping of locale to string",
        "7:11: text is missing locale 'en'",
        "10:9: choice is a plain string, but the deck has locales bn, en: write {bn: ..., en: ...}",
        "12:23: explanation in 'en' is empty",
        "14:12: text has locale 'eng', which is not one of the deck's locales (bn, en); "
        "did you mean 'en'?",
        "17:28: choice has locale 'fr', which is not one of the deck's locales (bn, en)",
        "19:23: explanation in 'en' must be a string",
    )


def test_question_ids_choices_answers_and_types() -> None:
    path = BROKEN / "questions.yaml"
    assert problems_in(path) == at(
        path,
        "4:10: shuffle must be true or false",
        "6:9: question id 'Bad_Id' must use only a-z, 0-9 and '-', and not start with '-'",
        "8:14: a question needs 2 to 5 choices; this one has 1",
        "9:13: answer must be a whole number: the index of the right choice, counting from 0",
        "11:11: tags must be a list, such as [pipeline, memory]",
        "14:14: a question needs 2 to 5 choices; this one has 6",
        "15:13: answer 7 is out of range: the 6 choices are numbered 0 to 5",
        "17:14: shuffle must be true or false",
        "18:9: duplicate question id 'dup' (first on line 12)",
        "22:9: duplicate choice: the same as the choice on line 21 in 'en'",
        "29:9: the right choice has a why; a why says why a wrong choice is wrong",
        "33:16: a tag must be a word, such as pipeline",
        "34:9: question id '42' is only digits, which `post` would read as a position; "
        "use a word such as why-pipelines",
        "37:13: answer must be a whole number: the index of the right choice, counting from 0",
        "38:18: explanation is empty",
        "39:5: a question must be a mapping with id, text, choices, answer and explanation",
    )


def test_locales_must_be_distinct_language_codes() -> None:
    path = BROKEN / "locales.yaml"
    assert problems_in(path) == at(
        path,
        "2:15: locale 'EN_us' is not a language code like en, bn or pt-BR",
        "2:22: locale 'en' is listed twice",
        "2:26: a locale must be a language code such as en, bn or pt-BR",
        "3:12: questions is empty; a deck needs at least one question",
    )


def test_a_deck_id_from_the_file_name_is_checked_too() -> None:
    path = BROKEN / "Bad_Name.yaml"
    assert problems_in(path) == at(
        path,
        "1:1: deck id 'Bad_Name' (from the file name) must use only a-z, 0-9 and '-', "
        "and not start with '-'",
        "2:10: locales is empty; list at least one, such as [en]",
        "3:11: questions is empty; a deck needs at least one question",
    )


def test_reserved_deck_ids_are_refused() -> None:
    path = BROKEN / "reserved.yaml"
    assert problems_in(path) == at(
        path, "1:5: deck id 'weekdays' is reserved (a word of the schedule command)"
    )


def test_a_yaml_syntax_error_has_pyyamls_position() -> None:
    path = BROKEN / "syntax.yaml"
    assert problems_in(path) == at(
        path,
        "6:1: YAML syntax error: while scanning a quoted scalar, found unexpected end of stream",
    )


def test_a_file_that_is_not_a_mapping() -> None:
    path = BROKEN / "list.yaml"
    assert problems_in(path) == at(
        path, "1:1: a deck file must be a mapping with title, locales and questions, not a list"
    )


def test_non_standard_tags_are_refused() -> None:
    path = BROKEN / "python-tag.yaml"
    assert problems_in(path) == at(
        path, "3:12: YAML tag '!!python/object/apply:os.system' is not allowed in a deck file"
    )


def test_the_broken_folder_reports_every_file() -> None:
    report = load_decks([BROKEN])
    assert report.files == 9
    assert report.decks == []
    assert len(report.problems) == sum(len(load_one(p)[1]) for p in BROKEN.glob("*.yaml"))


def test_length_limits_per_locale(tmp_path: Path) -> None:
    path = write(
        tmp_path / "long.yaml",
        f"title: {'T' * 201}\n"
        "locales: [en]\n"
        "questions:\n"
        "  - id: long\n"
        f"    text: {'q' * 2891}\n"  # + "\nA. a\nB. b" = 2901
        "    choices:\n"
        "      - a\n"
        "      - text: b\n"
        f"        why: {'w' * 1001}\n"
        "    answer: 0\n"
        f"    explanation: {'e' * 2001}\n",
    )
    assert problems_in(path) == at(
        path,
        "1:8: title in 'en' is 201 characters; at most 200",
        "5:11: text and choices in 'en' are 2901 characters, longer than a Slack section or "
        "a Discord embed can show (at most 2900)",
        "9:14: why in 'en' is 1001 characters; at most 1000",
        "11:18: explanation in 'en' is 2001 characters; at most 2000",
    )


def test_texts_exactly_at_the_limits_are_fine(tmp_path: Path) -> None:
    path = write(
        tmp_path / "limits.yaml",
        f"title: {'T' * 200}\n"
        "locales: [en]\n"
        "questions:\n"
        "  - id: limits\n"
        f"    text: {'q' * 2890}\n"
        "    choices: [a, {text: b, why: " + "w" * 1000 + "}]\n"
        "    answer: 0\n"
        f"    explanation: {'e' * 2000}\n",
    )
    deck, problems = load_one(path)
    assert problems == []
    assert deck is not None


def test_the_question_length_counts_each_locale(tmp_path: Path) -> None:
    long_bn = "প" * 2900
    path = write(
        tmp_path / "bn.yaml",
        "title: {bn: ক, en: T}\n"
        "locales: [bn, en]\n"
        "questions:\n"
        "  - id: q\n"
        f"    text: {{en: short, bn: {long_bn}}}\n"
        "    choices: [{bn: ক, en: a}, {bn: খ, en: b}]\n"
        "    answer: 0\n"
        "    explanation: {bn: ক, en: e}\n",
    )
    assert problems_in(path) == at(
        path,
        "5:11: text and choices in 'bn' are 2910 characters, longer than a Slack section or "
        "a Discord embed can show (at most 2900)",
    )


# Where the questions came from, and their license


ONE_QUESTION = (
    "locales: [en]\nquestions: [{id: q, text: Q, choices: [a, b], answer: 0, explanation: x}]\n"
)


def test_source_and_license_are_kept_in_the_model(tmp_path: Path) -> None:
    path = write(
        tmp_path / "imported.yaml",
        "title: Imported\n"
        "source: Imported from quiz.gift (Moodle GIFT) on 2026-12-03\n"
        "license: CC BY-SA 4.0\n" + ONE_QUESTION,
    )
    deck, problems = load_one(path)
    assert problems == []
    assert deck is not None
    assert deck.origin == "Imported from quiz.gift (Moodle GIFT) on 2026-12-03"
    assert deck.license == "CC BY-SA 4.0"
    assert deck.source == str(path)  # still the file it was loaded from
    plain, _ = load_one(GOOD / "one-language.yml")
    assert plain is not None
    assert (plain.origin, plain.license) == (None, None)


def test_source_and_license_have_length_limits(tmp_path: Path) -> None:
    at_limit = write(
        tmp_path / "at-limit.yaml",
        f"title: T\nsource: {'s' * 500}\nlicense: {'l' * 200}\n" + ONE_QUESTION,
    )
    assert load_one(at_limit)[1] == []
    too_long = write(
        tmp_path / "too-long.yaml",
        f"title: T\nsource: {'s' * 501}\nlicense: {'l' * 201}\n" + ONE_QUESTION,
    )
    assert problems_in(too_long) == at(
        too_long,
        "2:9: source is 501 characters; at most 500",
        "3:10: license is 201 characters; at most 200",
    )


def test_source_and_license_must_be_strings(tmp_path: Path) -> None:
    path = write(
        tmp_path / "not-strings.yaml",
        "title: T\nsource: [quiz.gift]\nlicense: {en: CC BY-SA 4.0}\n" + ONE_QUESTION,
    )
    assert problems_in(path) == at(
        path, "2:9: source must be a string", "3:10: license must be a string"
    )
    blank = write(tmp_path / "blank.yaml", "title: T\nsource:\nlicense: ' '\n" + ONE_QUESTION)
    assert problems_in(blank) == at(blank, "2:8: source is empty", "3:10: license is empty")


# Across files


def test_duplicate_deck_ids_are_reported_at_the_second_file(tmp_path: Path) -> None:
    body = (
        "locales: [en]\nquestions: [{id: q, text: Q, choices: [a, b], answer: 0, explanation: x}]\n"
    )
    first = write(tmp_path / "a.yaml", "id: same\ntitle: A\n" + body)
    second = write(tmp_path / "b.yaml", "title: B\nid: same\n" + body)
    report = load_decks([first, second])
    assert [str(p) for p in report.problems] == [
        f"{second}:2:5: deck id 'same' is already used by {first}"
    ]
    assert [deck.source for deck in report.decks] == [str(first)]
    assert report.files == 2


def test_a_deck_id_from_a_file_name_can_clash_too(tmp_path: Path) -> None:
    body = (
        "locales: [en]\nquestions: [{id: q, text: Q, choices: [a, b], answer: 0, explanation: x}]\n"
    )
    first = write(tmp_path / "x.yaml", "title: X\n" + body)
    second = write(tmp_path / "y.yaml", "id: x\ntitle: Y\n" + body)
    report = load_decks([tmp_path])
    assert [str(p) for p in report.problems] == [
        f"{second}:1:5: deck id 'x' is already used by {first}"
    ]


def test_folders_give_their_yaml_files_sorted_and_not_nested(tmp_path: Path) -> None:
    body = (
        "locales: [en]\nquestions: [{id: q, text: Q, choices: [a, b], answer: 0, explanation: x}]\n"
    )
    write(tmp_path / "b.yml", "title: B\n" + body)
    write(tmp_path / "a.yaml", "title: A\n" + body)
    write(tmp_path / "notes.txt", "not a deck")
    (tmp_path / "nested").mkdir()
    write(tmp_path / "nested" / "c.yaml", "not: loaded")
    report = load_decks([tmp_path, tmp_path / "a.yaml"])  # the same file twice counts once
    assert report.problems == []
    assert [deck.id for deck in report.decks] == ["a", "b"]
    assert report.files == 2


def test_missing_paths_and_empty_folders_are_problems(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    report = load_decks([tmp_path / "nope.yaml", tmp_path / "empty"])
    assert [str(p) for p in report.problems] == [
        f"{tmp_path / 'nope.yaml'}:1:1: no such file or folder",
        f"{tmp_path / 'empty'}:1:1: no deck files (*.yaml, *.yml) here",
    ]
    assert report.files == 0
    assert load_one(tmp_path / "nope.yaml")[1] == [
        Problem(str(tmp_path / "nope.yaml"), 1, 1, "no such file or folder")
    ]


# Hostile and odd input: refused quickly, never raised


def test_an_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]")  # 9**9 in the end
    path = write(tmp_path / "bomb.yaml", "\n".join(lines) + "\n")
    started = time.monotonic()
    deck, problems = load_one(path)
    assert time.monotonic() - started < 5
    assert deck is None
    assert [p.message for p in problems] == [
        "more than 100,000 YAML values, counting each use of an alias; refusing the file"
    ]


def test_a_file_over_one_mib_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"# padding\n" * 104_858)  # 1,048,580 bytes
    started = time.monotonic()
    assert problems_in(path) == at(
        path, "1:1: the file is 1,048,580 bytes; a deck file may be at most 1 MiB"
    )
    assert time.monotonic() - started < 1


def test_deep_nesting_is_refused_without_recursion_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "deep.yaml", "[" * 200_000)
    assert problems_in(path) == at(path, "1:51: nested deeper than 50 levels; refusing the file")


def test_a_self_referencing_alias_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "loop.yaml", "title: &loop [*loop]\n")
    deck, problems = load_one(path)
    assert deck is None
    assert [p.message for p in problems] == ["nested deeper than 50 levels; refusing the file"]


def test_a_file_that_is_not_utf8_points_at_the_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("locales: [en]\ntitle: café\n".encode("latin-1"))
    assert problems_in(path) == at(path, "2:11: not UTF-8 (byte 0xe9); save the file as UTF-8")


def test_control_characters_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "bell.yaml", "locales: [en]\ntitle: a\x07\n")
    assert problems_in(path) == at(path, "2:9: character U+0007 is not allowed in YAML")


def test_empty_and_multi_document_files(tmp_path: Path) -> None:
    empty = write(tmp_path / "empty.yaml", "# only a comment\n")
    assert problems_in(empty) == at(
        empty, "1:1: the file is empty; a deck needs title, locales and questions"
    )
    two = write(tmp_path / "two.yaml", "title: A\n---\ntitle: B\n")
    assert problems_in(two) == at(
        two,
        "2:1: YAML syntax error: expected a single document in the stream, "
        "but found another document",
    )


def test_merge_keys_and_invalid_explicit_values_are_refused(tmp_path: Path) -> None:
    merge = write(tmp_path / "merge.yaml", "base: &b {title: T}\ndeck:\n  <<: *b\n")
    assert problems_in(merge) == at(merge, "3:3: merge keys (<<) are not supported")
    bad_int = write(tmp_path / "int.yaml", "title: T\nshuffle: !!int nope\n")
    assert problems_in(bad_int) == at(bad_int, "2:10: 'nope' is not a valid !!int")


def test_mangled_decks_give_problems_never_exceptions(tmp_path: Path) -> None:
    """Each line dropped, or cut in half, in every fixture: only Problems come back."""
    sources = [*GOOD.iterdir(), *BROKEN.iterdir()]
    for source in sources:
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
        for index, line in enumerate(lines):
            for variant in ("", line[: len(line) // 2]):
                path = write(
                    tmp_path / source.name, "".join([*lines[:index], variant, *lines[index + 1 :]])
                )
                deck, problems = load_one(path)
                assert (deck is None) == bool(problems), (source.name, index, variant)
                assert all(
                    isinstance(p, Problem) and p.line >= 1 and p.column >= 1 for p in problems
                )


# The JSON schema, checked with a tiny validator for the keywords it uses


def schema_errors(
    schema: dict[str, Any], value: Any, root: dict[str, Any], where: str = "$"
) -> list[str]:
    """Errors of `value` against `schema`; knows only the keywords deck_json_schema uses."""
    errors: list[str] = []
    for keyword, rule in schema.items():
        errors += _keyword_errors(keyword, rule, schema, value, root, where)
    return errors


_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}


def _keyword_errors(
    keyword: str, rule: Any, schema: dict[str, Any], value: Any, root: dict[str, Any], where: str
) -> list[str]:
    if keyword in ("$schema", "title", "description", "$defs"):
        return []
    if keyword == "$ref":
        return schema_errors(root["$defs"][rule.removeprefix("#/$defs/")], value, root, where)
    if keyword == "type":
        kinds = rule if isinstance(rule, list) else [rule]
        return [] if any(_TYPES[k](value) for k in kinds) else [f"{where}: not {rule}"]
    if keyword == "anyOf":
        return (
            []
            if any(not schema_errors(s, value, root, where) for s in rule)
            else [f"{where}: no anyOf"]
        )
    if keyword == "not":
        return [f"{where}: matches not"] if not schema_errors(rule, value, root, where) else []
    if keyword == "enum":
        return [] if value in rule else [f"{where}: not in {rule}"]
    if isinstance(value, dict):
        return _object_errors(keyword, rule, schema, value, root, where)
    if isinstance(value, list):
        return _array_errors(keyword, rule, value, root, where)
    if isinstance(value, str) and keyword in ("pattern", "minLength", "maxLength"):
        if keyword == "pattern":
            ok = re.search(rule, value) is not None
        else:
            ok = len(value) >= rule if keyword == "minLength" else len(value) <= rule
        return [] if ok else [f"{where}: {keyword} {rule}"]
    if isinstance(value, int | float) and keyword in ("minimum", "maximum"):
        ok = value >= rule if keyword == "minimum" else value <= rule
        return [] if ok else [f"{where}: {keyword} {rule}"]
    assert keyword in _APPLIES_ELSEWHERE, f"the test validator does not know {keyword!r}"
    return []


_APPLIES_ELSEWHERE = {
    "required", "properties", "additionalProperties", "propertyNames", "minProperties",
    "items", "minItems", "maxItems", "uniqueItems", "pattern", "minLength", "maxLength",
    "minimum", "maximum",
}  # fmt: skip


def _object_errors(
    keyword: str,
    rule: Any,
    schema: dict[str, Any],
    value: dict[Any, Any],
    root: dict[str, Any],
    where: str,
) -> list[str]:
    errors: list[str] = []
    if keyword == "required":
        errors += [f"{where}: missing {k}" for k in rule if k not in value]
    elif keyword == "properties":
        for key, sub in rule.items():
            if key in value:
                errors += schema_errors(sub, value[key], root, f"{where}.{key}")
    elif keyword == "additionalProperties":
        for key in value:
            if key not in schema.get("properties", {}):
                sub = {"not": {}} if rule is False else rule
                errors += schema_errors(sub, value[key], root, f"{where}.{key}")
    elif keyword == "propertyNames":
        for key in value:
            errors += schema_errors(rule, key, root, f"{where}[{key!r}]")
    elif keyword == "minProperties" and len(value) < rule:
        errors.append(f"{where}: fewer than {rule} properties")
    return errors


def _array_errors(
    keyword: str, rule: Any, value: list[Any], root: dict[str, Any], where: str
) -> list[str]:
    if keyword == "items":
        return [
            e
            for i, item in enumerate(value)
            for e in schema_errors(rule, item, root, f"{where}[{i}]")
        ]
    if keyword == "minItems" and len(value) < rule:
        return [f"{where}: fewer than {rule} items"]
    if keyword == "maxItems" and len(value) > rule:
        return [f"{where}: more than {rule} items"]
    if keyword == "uniqueItems" and len({json.dumps(v) for v in value}) < len(value):
        return [f"{where}: items repeat"]
    return []


def raw(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_the_schema_is_draft_2020_12_json() -> None:
    schema = deck_json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert json.loads(json.dumps(schema, indent=2)) == schema
    assert schema["required"] == ["title", "locales", "questions"]


def test_the_schema_accepts_every_shipped_and_good_deck() -> None:
    schema = deck_json_schema()
    paths = [*sorted(SHIPPED.glob("*.y*ml")), *sorted(GOOD.iterdir())]
    for path in paths:
        assert schema_errors(schema, raw(path), schema) == [], path
    try:
        import jsonschema  # type: ignore[import-untyped]  # optional: not a dependency
    except ImportError:
        return
    for path in paths:
        jsonschema.Draft202012Validator(schema).validate(raw(path))


def test_the_schema_rejects_what_an_editor_should_flag() -> None:
    schema = deck_json_schema()
    assert schema_errors(schema, raw(BROKEN / "keys.yaml"), schema) != []
    assert schema_errors(schema, raw(BROKEN / "reserved.yaml"), schema) == ["$.id: matches not"]
    deck = raw(GOOD / "one-language.yml")
    deck["questions"][0]["choices"] = ["only one"]
    assert schema_errors(schema, deck, schema) == ["$.questions[0].choices: fewer than 2 items"]


def test_the_schema_bounds_a_questions_seconds() -> None:
    schema = deck_json_schema()
    deck = raw(GOOD / "one-language.yml")
    assert deck["questions"][1]["seconds"] == 30
    assert schema_errors(schema, deck, schema) == []
    for wrong, error in [(5, "minimum 10"), (301, "maximum 300")]:
        deck["questions"][1]["seconds"] = wrong
        assert schema_errors(schema, deck, schema) == [f"$.questions[1].seconds: {error}"]
    deck["questions"][1]["seconds"] = "60"
    assert schema_errors(schema, deck, schema) == ["$.questions[1].seconds: not integer"]


def test_the_schema_accepts_source_and_license_within_their_limits() -> None:
    schema = deck_json_schema()
    deck = raw(GOOD / "one-language.yml")
    deck |= {"source": "Imported from quiz.gift (Moodle GIFT) on 2026-12-03", "license": "CC0"}
    assert schema_errors(schema, deck, schema) == []
    deck["license"] = "l" * 201
    assert schema_errors(schema, deck, schema) == ["$.license: maxLength 200"]


# The format, the checker and the schema: one description, so they cannot drift

LEVELS = {"deck": DECK, "question": QUESTION, "choice": CHOICE}


def schema_object(schema: dict[str, Any], level: str) -> dict[str, Any]:
    """The schema of one level's mapping."""
    if level == "deck":
        return schema
    if level == "question":
        return schema["$defs"]["question"]  # type: ignore[no-any-return]
    (mapping,) = [s for s in schema["$defs"]["choice"]["anyOf"] if s.get("type") == "object"]
    return mapping  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", LEVELS)
def test_the_schema_has_exactly_the_keys_of_the_format(name: str) -> None:
    level = LEVELS[name]
    mapping = schema_object(deck_json_schema(), name)
    assert list(mapping["properties"]) == list(level.keys)
    assert mapping["required"] == list(level.required)
    assert mapping["additionalProperties"] is False
    for field in level.fields:
        shown = mapping["properties"][field.name]
        if field.max_chars is None:
            assert "maxLength" not in shown, field.name
        elif field.kind == "text":
            assert shown["description"].endswith(
                f"At most {field.max_chars} characters per locale."
            )
        else:
            assert shown["maxLength"] == field.max_chars, field.name
        if field.description:
            assert shown["description"].startswith(field.description), field.name


def test_the_checker_has_exactly_the_keys_of_the_format(tmp_path: Path) -> None:
    """An unknown key at each level lists the format's keys; missing keys are its required ones."""
    path = write(
        tmp_path / "unknown.yaml",
        "zzzz: 1\nquestions:\n  - zzzz: 1\n    choices: [{zzzz: 1, why: w}]\n",
    )
    problems = load_one(path)[1]
    lines = {"deck": 1, "question": 3, "choice": 4}
    for name, level in LEVELS.items():
        here = [p.message for p in problems if p.line == lines[name]]
        assert f"unknown key 'zzzz'; {level.noun} has {', '.join(level.keys)}" in here
        missing = {m.split("'")[1] for m in here if m.startswith("missing required key")}
        written = {"deck": {"questions"}, "question": {"choices"}, "choice": set()}[name]
        assert missing == set(level.required) - written, name
