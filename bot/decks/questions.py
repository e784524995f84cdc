"""Checking a deck's questions and their choices: the part of a deck file players see.

Split from `checker.py`, which checks the deck around them and the texts they share.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Protocol

from bot.decks.format import (
    CHOICE,
    LINT,
    MAX_CHOICES,
    MAX_QUESTION_CHARS,
    MAX_SECONDS,
    MIN_CHOICES,
    MIN_SECONDS,
    QUESTION,
    Field,
    Level,
)
from bot.decks.model import Choice, Question
from bot.decks.places import ChoicePlace, QuestionPlace, TextPlace, text_place
from bot.decks.problem import Problem
from bot.decks.tree import At, Map, Node, Scalar, is_blank


class DeckReporter(Protocol):
    """What the question checker needs of the deck's checker (`DeckChecker`)."""

    @property
    def problems(self) -> list[Problem]: ...

    def add(self, at: At, message: str) -> None: ...

    def check_keys(self, node: Map, level: Level) -> None: ...

    def identifier(self, value: str, at: At, label: str, origin: str = "") -> str | None: ...

    def items(self, node: Node, message: str) -> tuple[Node, ...] | None: ...

    def flag(self, node: Node | None, key: str, default: bool) -> bool: ...

    def field_text(self, mapping: Map, field: Field, label: str = "") -> dict[str, str] | None: ...

    def text(self, node: Node, label: str, limit: int | None = None) -> dict[str, str] | None: ...


@dataclass
class _DraftChoice:
    """A choice while checking: its node for positions, its texts, and where its `why` key is."""

    at: Node
    text: dict[str, str] | None
    why: dict[str, str] | None = None
    why_key: Scalar | None = None
    place: ChoicePlace | None = None


class QuestionChecker:
    """Checks the questions of one deck, reporting through the deck's checker."""

    def __init__(self, deck: DeckReporter) -> None:
        self.deck = deck
        self.places: dict[str, QuestionPlace] = {}
        """Where each question built sits in the file, by id, for the lint."""

    def questions(self, node: Node | None, shuffle: bool) -> tuple[Question, ...] | None:
        if node is None:
            return None
        items = self.deck.items(node, "questions must be a list of questions")
        if items is None:
            return None
        if not items:
            self.deck.add(node, "questions is empty; a deck needs at least one question")
            return None
        seen: dict[str, int] = {}
        built = [self.question(item, index, shuffle, seen) for index, item in enumerate(items)]
        questions = tuple(question for question in built if question is not None)
        return questions if len(questions) == len(built) else None

    def question(
        self, node: Node, index: int, shuffle: bool, seen: dict[str, int]
    ) -> Question | None:
        deck = self.deck
        if not isinstance(node, Map):
            deck.add(node, f"a question must be a mapping with {QUESTION.needs}")
            return None
        before = len(deck.problems)
        deck.check_keys(node, QUESTION)
        question_id = self.question_id(node.get("id"), seen)
        text = deck.field_text(node, QUESTION.field("text"))
        choices = self.choices(node.get("choices"))
        answer = self.answer(node.get("answer"), choices)
        explanation = deck.field_text(node, QUESTION.field("explanation"))
        tags = self.tags(node.get("tags"))
        own_shuffle = deck.flag(node.get("shuffle"), "shuffle", default=shuffle)
        ignore = self.lint(node.get("lint"))
        seconds = self.seconds(node.get("seconds"))
        self.check_question_length(node.get("text"), text, choices)
        texts = [c.text for c in choices or ()]
        parts = (question_id, text, choices, answer, explanation, tags, *texts)
        if len(deck.problems) > before or None in parts:
            return None  # reported here, or (e.g. bad locales) at the deck
        assert question_id is not None and text is not None and choices is not None
        assert answer is not None and explanation is not None and tags is not None
        self.places[question_id] = self.place(node, choices, ignore)
        return Question(
            id=question_id,
            text=text,
            choices=tuple(Choice(c.text or {}, c.why) for c in choices),
            answer=answer,
            explanation=explanation,
            tags=tags,
            shuffle=own_shuffle,
            position=index + 1,
            seconds=seconds,
        )

    def place(
        self, node: Map, choices: list[_DraftChoice], ignore: tuple[tuple[str, At], ...]
    ) -> QuestionPlace:
        """Called once the question checked out, so its text, choices and explanation exist."""
        text, (choices_key, _), explanation = (
            node.entries["text"][1],
            node.entries["choices"],
            node.entries["explanation"][1],
        )
        return QuestionPlace(
            node,
            text_place(text),
            choices_key,
            tuple(c.place or ChoicePlace(TextPlace(c.at)) for c in choices),
            text_place(explanation),
            ignore,
        )

    def lint(self, node: Node | None) -> tuple[tuple[str, At], ...]:
        """The warning names of `lint: {ignore: [...]}`; which names exist is the lint's to say,
        so a name it does not know is its warning, not a problem that would drop the deck."""
        if node is None:
            return ()
        if not isinstance(node, Map):
            self.deck.add(node, "lint must be a mapping, such as {ignore: [length-tell]}")
            return ()
        self.deck.check_keys(node, LINT)
        names = node.get("ignore")
        if names is None:
            return ()
        items = self.deck.items(names, "lint ignore must be a list, such as [length-tell]")
        found: list[tuple[str, At]] = []
        for item in items or ():
            if isinstance(item, Scalar) and not is_blank(item):
                found.append((item.text.strip(), item))
            else:
                self.deck.add(item, "a name in lint ignore must be a word, such as length-tell")
        return tuple(found)

    def seconds(self, node: Node | None) -> int | None:
        """The least time the question needs in a game, in whole seconds within the limits."""
        if node is None:
            return None
        shape = f"a whole number of seconds from {MIN_SECONDS} to {MAX_SECONDS}"
        if not (isinstance(node, Scalar) and type(node.value) is int):
            self.deck.add(node, f"seconds must be {shape}, such as 60")
            return None
        if not MIN_SECONDS <= node.value <= MAX_SECONDS:
            self.deck.add(node, f"seconds is {node.value}; it must be {shape}")
            return None
        return node.value

    def question_id(self, node: Node | None, seen: dict[str, int]) -> str | None:
        """Ids are stable forever (answers are stored by them), so they must be unique and plain."""
        if node is None:
            return None
        if not isinstance(node, Scalar) or is_blank(node):
            self.deck.add(node, "question id must be a word such as why-pipelines")
            return None
        question_id = self.deck.identifier(node.text, node, "question id")
        if question_id is None:
            return None
        if question_id in seen:
            self.deck.add(
                node, f"duplicate question id '{question_id}' (first on line {seen[question_id]})"
            )
            return None
        seen[question_id] = node.line
        if question_id.isdigit():
            self.deck.add(
                node,
                f"question id '{question_id}' is only digits, which `post` would "
                f"read as a position; use a word such as why-pipelines",
            )
            return None
        return question_id

    def choices(self, node: Node | None) -> list[_DraftChoice] | None:
        if node is None:
            return None
        items = self.deck.items(
            node, f"choices must be a list of {MIN_CHOICES} to {MAX_CHOICES} choices"
        )
        if items is None:
            return None
        if not MIN_CHOICES <= len(items) <= MAX_CHOICES:
            self.deck.add(
                node,
                f"a question needs {MIN_CHOICES} to {MAX_CHOICES} choices; "
                f"this one has {len(items)}",
            )
        drafts = [self.choice(item) for item in items]
        self.check_duplicate_choices(drafts)
        return drafts

    def choice(self, node: Node) -> _DraftChoice:
        """A choice is a text, or {text, why}; a mapping with either key is the latter."""
        if not (isinstance(node, Map) and node.entries.keys() & set(CHOICE.keys)):
            text = self.deck.text(node, "choice")
            return _DraftChoice(node, text, place=ChoicePlace(text_place(node)))
        self.deck.check_keys(node, CHOICE)
        text = self.deck.field_text(node, CHOICE.field("text"), "choice")
        text_node = node.get("text")
        place = text_place(text_node) if text_node is not None else TextPlace(node)
        why_entry = node.entries.get("why")
        if why_entry is None:
            return _DraftChoice(node, text, place=ChoicePlace(place))
        why = self.deck.text(why_entry[1], "why", CHOICE.field("why").max_chars)
        return _DraftChoice(
            node, text, why, why_entry[0], ChoicePlace(place, text_place(why_entry[1]))
        )

    def check_duplicate_choices(self, drafts: list[_DraftChoice]) -> None:
        """Choices that read the same in any locale leave a clicker unable to tell them apart."""
        for index, draft in enumerate(drafts):
            for earlier in drafts[:index]:
                locale = _shared_locale(earlier.text, draft.text)
                if locale is not None:
                    self.deck.add(
                        draft.at,
                        f"duplicate choice: the same as the choice on line "
                        f"{earlier.at.line} in '{locale}'",
                    )
                    break

    def answer(self, node: Node | None, choices: list[_DraftChoice] | None) -> int | None:
        """The index of the right choice as written; its choice may not carry a `why`."""
        if node is None:
            return None
        if not (isinstance(node, Scalar) and type(node.value) is int):
            self.deck.add(
                node,
                "answer must be a whole number: the index of the right choice, counting from 0",
            )
            return None
        answer = node.value
        if choices and not 0 <= answer < len(choices):
            self.deck.add(
                node,
                f"answer {answer} is out of range: the {len(choices)} choices are "
                f"numbered 0 to {len(choices) - 1}",
            )
            return None
        right = choices[answer] if choices else None
        if right is not None and right.why_key is not None:
            self.deck.add(
                right.why_key, "the right choice has a why; a why says why a wrong choice is wrong"
            )
        return answer

    def tags(self, node: Node | None) -> tuple[str, ...] | None:
        if node is None:
            return ()
        items = self.deck.items(node, "tags must be a list, such as [pipeline, memory]")
        if items is None:
            return None
        tags: list[str] = []
        for item in items:
            if isinstance(item, Scalar) and not is_blank(item):
                tags.append(item.text.strip())
            else:
                self.deck.add(item, "a tag must be a word, such as pipeline")
        return tuple(tags)

    def check_question_length(
        self, at: Node | None, text: dict[str, str] | None, choices: list[_DraftChoice] | None
    ) -> None:
        """Text plus "A. choice" lines must fit one Slack section or Discord embed."""
        if at is None or text is None or not choices:
            return
        for locale, body in text.items():
            lines = [body]
            for letter, choice in zip(string.ascii_uppercase, choices, strict=False):
                lines.append(f"{letter}. {(choice.text or {}).get(locale, '')}")
            size = len("\n".join(lines))
            if size > MAX_QUESTION_CHARS:
                self.deck.add(
                    at,
                    f"text and choices in '{locale}' are {size} characters, longer "
                    f"than a Slack section or a Discord embed can show "
                    f"(at most {MAX_QUESTION_CHARS})",
                )


def _shared_locale(a: dict[str, str] | None, b: dict[str, str] | None) -> str | None:
    """The first locale in which two choices read the same, ignoring case and spacing."""
    if a is None or b is None:
        return None
    return next((locale for locale in a if locale in b and _same_text(a[locale], b[locale])), None)


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()
