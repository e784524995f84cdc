"""Red-DiscordBot trivia lists: YAML mapping each question to the answers a player may type.

    AUTHOR: Someone
    CONFIG: {delay: 20}
    Which planet is known as the Red Planet?:
    - Mars

A deck question needs choices, so the first answer is the right choice and the wrong ones are
drawn from the other questions' first answers in the same list, as kotoba's `-mc` mode does:
answers of the same kind (numbers with numbers), of questions that share words with this one
("...of what country?"), of similar length and shape, picked with a seed from the question's
text so an import is repeatable. The question's other answers are
spellings of the right one and are never offered as wrong choices. Answers are read as YAML
wrote them, so `- yes` stays "yes" (Red turns a YAML true into True/Yes/On).

A yes/no (or true/false) answer gets its opposite as the one wrong choice, Yes first and not
shuffled. A question that lists its own lettered options (`A - Prevents evasion` on lines of
its own) whose answer is one of their letters gets those options as its choices. Candidates for
wrong choices are bounded per question (the answers whose questions share its rarer words, and
the nearest in length or value of each kind), so a list of 50,000 questions takes seconds.
"""

from __future__ import annotations

import bisect
import heapq
import math
import random
import re
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import yaml

from bot.decks.formats.draft import DraftChoice, DraftDeck, DraftQuestion, FormatError
from bot.decks.problem import Refused
from bot.decks.reading import compose_text

FORMAT_NAME = "Red-DiscordBot trivia list"
CHOICES = 4
"""The right answer and up to three wrong ones, as Red's players see in kotoba's -mc mode."""
_NEAREST = 8
"""Wrong choices are picked at random among at most this many of the closest answers..."""
_MARGIN = 0.25
"""...those no further than this from the third closest."""
_RELATED = 256
"""At most this many answers are weighed for sharing words with a question, rarer words first:
a word that half the list shares says little, and weighing it for each question is quadratic."""
_NEIGHBOURS = 12
"""And this many on each side of the right answer's length (or value), for each kind."""
_SETTINGS = ("AUTHOR", "DESCRIPTION", "CONFIG", "$schema")
_OPPOSITES = {"yes": "no", "no": "yes", "true": "false", "false": "true"}
_OPTION = re.compile(r"^\s*\(?([A-Ea-e])\s*(?:[-).:]|\s-)\s*(\S.*)$")
_NUMBER = re.compile(r"[-+]?\d[\d,]*(\.\d+)?")
_ARTICLE = re.compile(r"^(the|a|an)\s+")
_NOT_WORD = re.compile(r"[\W_]+")
_WORD = re.compile(r"\w{3,}")
_COMMON = frozenset(
    {
        "the",
        "and",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "why",
        "how",
        "this",
        "that",
        "these",
        "those",
        "was",
        "were",
        "are",
        "has",
        "have",
        "had",
        "does",
        "did",
        "for",
        "from",
        "with",
        "into",
        "its",
        "his",
        "her",
        "their",
        "about",
        "name",
        "called",
    }
)


@dataclass
class _Entry:
    line: int
    question: str
    """The question on one line: what Red compares, and the seed of its draw."""
    answers: list[str]
    words: frozenset[str] = field(default_factory=frozenset)
    text: str = ""
    """The question as shown: its own line breaks kept."""


class _Pool:
    """The list's first answers, once each, which questions' words lead to them, and each kind
    of answer (numbers, texts) sorted by value or length, for bounded look-ups."""

    def __init__(self, entries: list[_Entry]) -> None:
        firsts: dict[str, _Entry] = {}
        for entry in entries:
            firsts.setdefault(_fold(entry.answers[0]), entry)
        self.answers = [entry.answers[0] for entry in firsts.values()]
        self.shapes = [_Shape.of(answer) for answer in self.answers]
        self.folds = list(firsts)
        self.by_word: defaultdict[str, list[int]] = defaultdict(list)
        for index, entry in enumerate(firsts.values()):
            for word in entry.words:
                self.by_word[word].append(index)
        self.sorted: dict[bool, tuple[list[float], list[int]]] = {}
        for kind in (True, False):
            keyed = sorted(
                (_key(shape), index)
                for index, shape in enumerate(self.shapes)
                if shape.number is kind
            )
            self.sorted[kind] = ([key for key, _ in keyed], [index for _, index in keyed])

    def candidates(self, entry: _Entry) -> Counter[int]:
        """A bounded set of answers to weigh as wrong choices for `entry`, by index, with how
        many words their questions share with it."""
        shared: Counter[int] = Counter()
        budget = _RELATED
        for word in sorted(entry.words, key=lambda word: (len(self.by_word.get(word, ())), word)):
            postings = self.by_word.get(word, ())
            if len(postings) > budget:
                break
            shared.update(postings)
            budget -= len(postings)
        right = _Shape.of(entry.answers[0])
        for kind in (True, False):
            keys, order = self.sorted[kind]
            at = bisect.bisect_left(keys, _key(right) if right.number is kind else 0)
            for index in order[max(0, at - _NEIGHBOURS) : at + _NEIGHBOURS]:
                shared[index] += 0
        return shared


def _key(shape: _Shape) -> float:
    """Where an answer sorts among its kind: numbers by magnitude, texts by length."""
    return shape.magnitude if shape.number else float(shape.length)


def read_red(text: str, locale: str) -> DraftDeck:
    """Each question with its first answer right and wrong ones drawn from the list."""
    try:
        root = compose_text(text)
    except Refused as refused:
        raise FormatError(refused.message, refused.line) from None
    if not isinstance(root, yaml.MappingNode):
        raise FormatError(
            "not a Red-DiscordBot trivia list: a list maps each question to its answers"
        )
    deck = DraftDeck(locales=[locale])
    entries = _entries(root, deck)
    pool = _Pool(entries)
    for entry in entries:
        _add(entry, pool, locale, deck)
    if deck.questions:
        deck.warn(
            None,
            "a trivia list has only right answers: the wrong choices were drawn from other "
            "answers of the list; read them through before use",
        )
    return deck


def _entries(root: yaml.MappingNode, deck: DraftDeck) -> list[_Entry]:
    entries: list[_Entry] = []
    about: dict[str, str] = {}
    for key, value in root.value:
        line = key.start_mark.line + 1
        if not isinstance(key, yaml.ScalarNode) or not key.value.strip():
            deck.skip(line, "the question is not text")
            continue
        if key.value in _SETTINGS:
            if isinstance(value, yaml.ScalarNode):
                about[key.value] = value.value.strip()
            continue
        answers = _answers(value)
        if answers is None:
            deck.skip(line, "its answers are not a list of texts")
        elif not answers:
            deck.skip(line, "it has no answer")
        else:
            question = " ".join(key.value.split())
            words = frozenset(_WORD.findall(question.casefold())) - _COMMON
            text = "\n".join(" ".join(part.split()) for part in key.value.strip().splitlines())
            entries.append(_Entry(line, question, answers, words, text))
    _describe(deck, about)
    return _last_of_each(entries, deck)


def _last_of_each(entries: list[_Entry], deck: DraftDeck) -> list[_Entry]:
    """A question asked twice keeps its last answers, as Red's YAML loader does; said, not lost."""
    last = {entry.question: entry for entry in entries}
    for entry in entries:
        kept = last[entry.question]
        if kept is entry:
            continue
        if kept.answers[0] == entry.answers[0]:
            deck.skip(entry.line, f"the same question again at line {kept.line}; kept once")
        else:
            deck.skip(
                entry.line,
                f"the same question again at line {kept.line}, whose answers Red uses "
                f"({kept.answers[0]} instead of {entry.answers[0]})",
            )
    return [entry for entry in entries if last[entry.question] is entry]


def _describe(deck: DraftDeck, about: dict[str, str]) -> None:
    description = about.get("DESCRIPTION", "")
    if about.get("AUTHOR"):
        description = f"{description} (trivia list by {about['AUTHOR']})".strip()
    if description:
        deck.description = {deck.locales[0]: description}


def _answers(node: yaml.Node) -> list[str] | None:
    if isinstance(node, yaml.ScalarNode):
        return [node.value.strip()] if node.value.strip() else []
    if not isinstance(node, yaml.SequenceNode):
        return None
    if not all(isinstance(item, yaml.ScalarNode) for item in node.value):
        return None
    return [item.value.strip() for item in node.value if item.value.strip()]


def _add(entry: _Entry, pool: _Pool, locale: str, deck: DraftDeck) -> None:
    if _add_own_options(entry, locale, deck) or _add_opposite(entry, locale, deck):
        return
    right = entry.answers[0]
    spellings = {_fold(answer) for answer in entry.answers}
    shared = pool.candidates(entry)
    others = [
        (pool.shapes[index], count / max(len(entry.words), 1))
        for index, count in sorted(shared.items())
        if pool.folds[index] not in spellings
    ]
    seed = random.Random(zlib.crc32(entry.question.encode("utf-8")))
    wrong = _draw(_Shape.of(right), others, seed)
    if not wrong:
        deck.skip(entry.line, "no other answer in the list to offer as a wrong choice")
        return
    answer = seed.randrange(len(wrong) + 1)
    texts = [*wrong[:answer], right, *wrong[answer:]]
    deck.questions.append(
        DraftQuestion(
            line=entry.line,
            text={locale: entry.text},
            choices=[DraftChoice({locale: text}) for text in texts],
            answer=answer,
        )
    )


def _add_opposite(entry: _Entry, locale: str, deck: DraftDeck) -> bool:
    """A yes/no (true/false) question: its opposite is the only wrong choice, Yes first."""
    right = entry.answers[0]
    opposite = _OPPOSITES.get(right.casefold())
    if opposite is None:
        return False
    if right[:1].isupper():
        opposite = opposite.upper() if right.isupper() and len(right) > 1 else opposite.title()
    first, second = (right, opposite) if right.casefold() in ("yes", "true") else (opposite, right)
    deck.questions.append(
        DraftQuestion(
            line=entry.line,
            text={locale: entry.text},
            choices=[DraftChoice({locale: first}), DraftChoice({locale: second})],
            answer=0 if first == right else 1,
            shuffle=False,
        )
    )
    return True


def _add_own_options(entry: _Entry, locale: str, deck: DraftDeck) -> bool:
    """A question whose last lines are its options, lettered from A, answered by a letter (or
    an option's text): those options are its choices."""
    lines = entry.text.split("\n")
    options: list[str] = []
    while lines and (match := _OPTION.match(lines[-1])) is not None:
        options.insert(0, match.group(1).upper() + match.group(2))
        lines.pop()
    letters = "".join(option[0] for option in options)
    if len(options) < 2 or letters != "ABCDE"[: len(options)] or not lines:
        return False
    texts = [option[1:].strip() for option in options]
    answer = _option_answer(entry.answers, letters, texts)
    if answer is None:
        return False
    deck.questions.append(
        DraftQuestion(
            line=entry.line,
            text={locale: "\n".join(lines)},
            choices=[DraftChoice({locale: text}) for text in texts],
            answer=answer,
        )
    )
    return True


def _option_answer(answers: list[str], letters: str, texts: list[str]) -> int | None:
    folded = [_fold(text) for text in texts]
    for answer in answers:
        if len(answer) == 1 and answer.upper() in letters:
            return letters.index(answer.upper())
        if _fold(answer) in folded:
            return folded.index(_fold(answer))
    return None


def _draw(right: _Shape, others: list[tuple[_Shape, float]], seed: random.Random) -> list[str]:
    """Up to CHOICES - 1 wrong answers: the same kind first, then the nearest of any kind.

    Each candidate comes with how much its question shares with this one (0 to 1), which
    counts for more than length: the answers to "...of what country?" are countries.
    """
    wanted = CHOICES - 1

    def unlike(candidate: tuple[_Shape, float]) -> float:
        return _distance(right, candidate[0]) - 2 * candidate[1]

    same = [other for other in others if other[0].number == right.number]
    nearest = heapq.nsmallest(_NEAREST, same, key=unlike)
    if nearest:  # a draw among the about equally near, so relatedness is not diluted
        bar = unlike(nearest[min(wanted, len(nearest)) - 1]) + _MARGIN
        nearest = [candidate for candidate in nearest if unlike(candidate) <= bar]
    chosen = [shape.text for shape, _ in seed.sample(nearest, min(wanted, len(nearest)))]
    if len(chosen) < wanted:
        rest = [other for other in others if other[0].number != right.number]
        nearest_rest = heapq.nsmallest(wanted - len(chosen), rest, key=unlike)
        chosen.extend(shape.text for shape, _ in nearest_rest)
    return chosen


@dataclass(frozen=True, slots=True)
class _Shape:
    """What an answer's distance to another is measured on, worked out once per answer."""

    text: str
    number: bool
    magnitude: float
    length: int
    words: int
    upper: bool

    @classmethod
    def of(cls, answer: str) -> _Shape:
        number = _is_number(answer)
        magnitude = math.log1p(abs(float(answer.replace(",", "")))) if number else 0.0
        return cls(
            answer, number, magnitude, len(answer), len(answer.split()), answer[:1].isupper()
        )


def _fold(answer: str) -> str:
    """What two spellings share: "The Beatles", "beatles" and "Beatles!" fold alike."""
    return _NOT_WORD.sub("", _ARTICLE.sub("", answer.casefold()))


def _is_number(answer: str) -> bool:
    return bool(_NUMBER.fullmatch(answer.strip()))


def _distance(right: _Shape, other: _Shape) -> float:
    """How unlike a wrong choice looks beside the right one (0 is alike)."""
    if right.number and other.number:
        return abs(right.magnitude - other.magnitude) + abs(right.length - other.length)
    length = abs(right.length - other.length) / max(right.length, other.length, 1)
    words = abs(right.words - other.words)
    case = 0.5 if right.upper != other.upper else 0.0
    return length + 0.5 * words + case
