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
"""

from __future__ import annotations

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
_SETTINGS = ("AUTHOR", "DESCRIPTION", "CONFIG", "$schema")
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
    answers: list[str]
    words: frozenset[str] = field(default_factory=frozenset)


class _Pool:
    """The list's first answers, once each, and which questions' words lead to them."""

    def __init__(self, entries: list[_Entry]) -> None:
        firsts: dict[str, _Entry] = {}
        for entry in entries:
            firsts.setdefault(_fold(entry.answers[0]), entry)
        self.answers = [entry.answers[0] for entry in firsts.values()]
        self.by_word: defaultdict[str, list[int]] = defaultdict(list)
        for index, entry in enumerate(firsts.values()):
            for word in entry.words:
                self.by_word[word].append(index)

    def related(self, entry: _Entry) -> Counter[int]:
        """How many words each answer's question shares with `entry`'s, by answer index."""
        shared: Counter[int] = Counter()
        for word in entry.words:
            shared.update(self.by_word.get(word, ()))
        return shared


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
            entries.append(_Entry(line, question, answers, words))
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
    right = entry.answers[0]
    spellings = {_fold(answer) for answer in entry.answers}
    shared = pool.related(entry)
    others = [
        (answer, shared[index] / max(len(entry.words), 1))
        for index, answer in enumerate(pool.answers)
        if _fold(answer) not in spellings
    ]
    seed = random.Random(zlib.crc32(entry.question.encode("utf-8")))
    wrong = _draw(right, others, seed)
    if not wrong:
        deck.skip(entry.line, "no other answer in the list to offer as a wrong choice")
        return
    answer = seed.randrange(len(wrong) + 1)
    texts = [*wrong[:answer], right, *wrong[answer:]]
    deck.questions.append(
        DraftQuestion(
            line=entry.line,
            text={locale: entry.question},
            choices=[DraftChoice({locale: text}) for text in texts],
            answer=answer,
        )
    )


def _draw(right: str, others: list[tuple[str, float]], seed: random.Random) -> list[str]:
    """Up to CHOICES - 1 wrong answers: the same kind first, then the nearest of any kind.

    Each candidate comes with how much its question shares with this one (0 to 1), which
    counts for more than length: the answers to "...of what country?" are countries.
    """
    wanted = CHOICES - 1

    def unlike(candidate: tuple[str, float]) -> float:
        return _distance(right, candidate[0]) - 2 * candidate[1]

    number = _is_number(right)
    same = [other for other in others if _is_number(other[0]) == number]
    nearest = heapq.nsmallest(_NEAREST, same, key=unlike)
    if nearest:  # a draw among the about equally near, so relatedness is not diluted
        bar = unlike(nearest[min(wanted, len(nearest)) - 1]) + _MARGIN
        nearest = [candidate for candidate in nearest if unlike(candidate) <= bar]
    chosen = [text for text, _ in seed.sample(nearest, min(wanted, len(nearest)))]
    if len(chosen) < wanted:
        rest = [other for other in others if _is_number(other[0]) != number]
        chosen.extend(text for text, _ in heapq.nsmallest(wanted - len(chosen), rest, key=unlike))
    return chosen


def _fold(answer: str) -> str:
    """What two spellings share: "The Beatles", "beatles" and "Beatles!" fold alike."""
    return _NOT_WORD.sub("", _ARTICLE.sub("", answer.casefold()))


def _is_number(answer: str) -> bool:
    return bool(_NUMBER.fullmatch(answer.strip()))


def _distance(right: str, other: str) -> float:
    """How unlike a wrong choice looks beside the right one (0 is alike)."""
    if _is_number(right) and _is_number(other):
        a, b = (float(text.replace(",", "")) for text in (right, other))
        return abs(math.log1p(abs(a)) - math.log1p(abs(b))) + abs(len(right) - len(other))
    length = abs(len(right) - len(other)) / max(len(right), len(other), 1)
    words = abs(len(right.split()) - len(other.split()))
    case = 0.5 if right[:1].isupper() != other[:1].isupper() else 0.0
    return length + 0.5 * words + case
