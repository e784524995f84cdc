"""Drafts: what every importer produces, before ids, checks and YAML.

Each draft question keeps the line it starts on in its source file, so that whatever happens to
it later (skipped, an image dropped) is reported where the author can find it. The checks the
deck format makes are made here, once for all formats, so a question the format cannot hold is
skipped with its reason instead of failing validation after the conversion.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field

from bot.decks.format import (
    MAX_CHOICES,
    MAX_EXPLANATION_CHARS,
    MAX_QUESTION_CHARS,
    MAX_WHY_CHARS,
    MIN_CHOICES,
)
from bot.decks.formats.phrasebook import true_false

Texts = dict[str, str]
"""A text by locale; single-language formats fill one locale."""

UNDETERMINED = "und"
"""The locale a file is read in when the user named none (BCP 47's "undetermined"): the
importer finds the language from the text afterwards and relabels the draft
(`DraftDeck.relabel`), so the file is read and parsed once."""


class FormatError(Exception):
    """The file as a whole cannot be read: one message, at a line when there is one."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class Note:
    """One line of an import's report: a skipped question, a warning or an error."""

    line: int | None
    kind: str
    message: str

    def render(self, source: str) -> str:
        where = source if self.line is None else f"{source}:{self.line}"
        return f"{where}: {self.kind}: {self.message}"


@dataclass
class DraftChoice:
    text: Texts
    why: Texts = field(default_factory=dict)
    generated: bool | None = None
    """True or False when the import wrote this choice itself (a true/false question's words),
    so that it can be written again in the language found later."""


@dataclass
class DraftQuestion:
    """A question as read; `name` is the source's own title for it, which the id comes from."""

    line: int
    text: Texts
    choices: list[DraftChoice]
    answer: int
    explanation: Texts = field(default_factory=dict)
    name: str = ""
    tags: list[str] = field(default_factory=list)
    shuffle: bool | None = None
    seconds: int | None = None
    """The least time the question needs in a game (a deck's `seconds:`), when the source says."""
    dropped: list[str] = field(default_factory=list)
    """Kinds of media left out of its texts ("image", "audio"...), for warnings."""
    source: str = ""
    """Where the question comes from (a book, a URL), added after its explanation."""

    def drop(self, kinds: list[str] | set[str]) -> None:
        for kind in sorted(kinds):
            if kind not in self.dropped:
                self.dropped.append(kind)


@dataclass
class DraftDeck:
    """The questions read from one file, what was skipped, and deck-level fields if it has any."""

    questions: list[DraftQuestion] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    locales: list[str] = field(default_factory=list)
    title: Texts = field(default_factory=dict)
    description: Texts = field(default_factory=dict)
    deck_id: str | None = None
    shuffle: bool | None = None
    origin: str | None = None
    """Where the questions first came from, when the file says (a CSV export's deck_source)."""
    license: str | None = None

    def skip(self, line: int, reason: str) -> None:
        self.notes.append(Note(line, "skipped", reason))

    def warn(self, line: int | None, message: str) -> None:
        self.notes.append(Note(line, "warning", message))

    def relabel(self, locale: str) -> None:
        """Moves the texts read in UNDETERMINED to `locale`, writing the import's own words
        (True/False) in it, and settling true/false questions as a read in `locale` would."""
        for question in self.questions:
            for texts in (question.text, question.explanation):
                _move(texts, locale)
            for choice in question.choices:
                _move(choice.text, locale)
                _move(choice.why, locale)
                if choice.generated is not None:
                    choice.text[locale] = true_false(locale)[0 if choice.generated else 1]
            settle_true_false(question, locale)
        _move(self.title, locale)
        _move(self.description, locale)
        self.locales = [locale if found == UNDETERMINED else found for found in self.locales]


def _move(texts: Texts, locale: str) -> None:
    if UNDETERMINED in texts:
        texts[locale] = texts.pop(UNDETERMINED)


def settle_right_feedback(question: DraftQuestion) -> None:
    """Moves feedback on the right choice into the explanation, where the deck format keeps it.

    A `why` says why a wrong choice is wrong; what Moodle shows for the right one ("Yes, well
    done!" or a real reason) goes before the general feedback.
    """
    if not 0 <= question.answer < len(question.choices):
        return
    right = question.choices[question.answer]
    for locale, why in right.why.items():
        general = question.explanation.get(locale, "")
        question.explanation[locale] = f"{why}\n\n{general}" if general else why
    right.why = {}


_LABEL = re.compile(r"^(\(?)(\w)([).:])\s+(?=\S)")
_LABEL_RUNS = ("ABCDEFGHIJ", "abcdefghij", "কখগঘঙচছজ")
"""Letters that label choices in order: Latin capitals, small letters, and Bengali ক খ গ ঘ."""


def strip_choice_labels(question: DraftQuestion) -> None:
    """Drops "A) ", "a. ", "(a) " or "ক) " from choices when all carry them, in order from A.

    A source that writes its own labels would otherwise show "A. C) Paris" once the choices are
    lettered and shuffled. A single labelled choice, or letters out of order, are left alone:
    then the label is more likely part of the text.
    """
    locales = {locale for choice in question.choices for locale in choice.text}
    for locale in locales:
        texts = [choice.text.get(locale, "") for choice in question.choices]
        matches = [_LABEL.match(text) for text in texts]
        if len(texts) < MIN_CHOICES or any(match is None for match in matches):
            continue
        found = [match for match in matches if match is not None]
        styles = {(match.group(1), match.group(3)) for match in found}
        letters = "".join(match.group(2) for match in found)
        if len(styles) != 1 or not any(run.startswith(letters) for run in _LABEL_RUNS):
            continue
        opening, closing = styles.pop()
        if opening and closing != ")":
            continue
        for choice, match in zip(question.choices, found, strict=True):
            choice.text[locale] = choice.text[locale][match.end() :]


def generated_true_false(locale: str) -> list[DraftChoice]:
    """The two choices of a true/false question in `locale`'s words, marked as the import's."""
    true, false = true_false(locale)
    return [
        DraftChoice({locale: true}, generated=True),
        DraftChoice({locale: false}, generated=False),
    ]


def settle_true_false(question: DraftQuestion, locale: str) -> None:
    """A true/false question keeps True first and is never shuffled ("A. False / B. True").

    It is recognised by its two choices: the locale's words or English ones, in either order.
    """
    if len(question.choices) != 2 or question.shuffle is not None:
        return
    texts = [choice.text.get(locale, "").strip().casefold() for choice in question.choices]
    for pair in {true_false(locale), true_false("en")}:
        words = [word.casefold() for word in pair]
        if sorted(texts) != sorted(words):
            continue
        if texts[0] != words[0]:
            question.choices.reverse()
            question.answer = 1 - question.answer if question.answer in (0, 1) else -1
        question.shuffle = False
        return


def unfit_reason(question: DraftQuestion, locales: list[str]) -> str | None:
    """Why the deck format cannot hold `question`, or None if it can."""
    count = len(question.choices)
    if not MIN_CHOICES <= count <= MAX_CHOICES:
        counted = "1 choice" if count == 1 else f"{count} choices"
        return f"it has {counted}; a deck question has {MIN_CHOICES} to {MAX_CHOICES}"
    if not 0 <= question.answer < count:
        return "its answer names no choice"
    for locale in locales:
        reason = _unfit_in(question, locale, len(locales) > 1)
        if reason is not None:
            return reason
    return None


def _unfit_in(question: DraftQuestion, locale: str, several: bool) -> str | None:
    where = f" in '{locale}'" if several else ""
    if not question.text.get(locale, "").strip():
        return f"its text is empty{where}"
    seen: dict[str, int] = {}
    for number, choice in enumerate(question.choices, start=1):
        text = choice.text.get(locale, "").strip()
        if not text:
            return f"choice {number} is empty{where}"
        key = " ".join(text.split()).casefold()
        if key in seen:
            return f"choices {seen[key]} and {number} read the same{where}: {_short(text)}"
        seen[key] = number
        why = choice.why.get(locale, "")
        if choice.why and not why:
            return f"choice {number} has a why in '{next(iter(choice.why))}' but not in '{locale}'"
        if len(why) > MAX_WHY_CHARS:
            return f"the why of choice {number} is {len(why)} characters (at most {MAX_WHY_CHARS})"
    shown = "\n".join(
        [question.text[locale]]
        + [
            f"{letter}. {choice.text[locale]}"
            for letter, choice in zip(string.ascii_uppercase, question.choices, strict=False)
        ]
    )
    if len(shown) > MAX_QUESTION_CHARS:
        size = len(shown)
        return f"its text and choices are {size} characters{where} (at most {MAX_QUESTION_CHARS})"
    explanation = question.explanation.get(locale, "")
    if len(explanation) > MAX_EXPLANATION_CHARS:
        size = len(explanation)
        return f"its explanation is {size} characters{where} (at most {MAX_EXPLANATION_CHARS})"
    return None


def _short(text: str) -> str:
    """`text` in quotes as written: repr() would double every backslash of its LaTeX."""
    return f"'{text if len(text) <= 40 else text[:37] + '...'}'"
