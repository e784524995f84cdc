"""Quiz JSON: the arrays of question objects most quiz apps keep (`questions.json`, `quiz.json`).

There is no standard, so keys are matched by meaning (`question`/`prompt`/`q`; `options`/
`choices`/`answers`; `answer`/`correctAnswer`/`answerIndex`...) after folding case, `_` and
`-`. A text may be a string, an object holding it (`{"text": ...}`) or one text per language
(`{"en": ..., "de": ...}`, which makes a deck in those languages). A Bengali exam question's
statements (i, ii, iii) and shared passage (`context`) become part of its text; per-choice
feedback (`wrong_answers`: choice -> why) the choices' whys; `source` follows the explanation.
How answers are given is `answerkey.py`'s; where each object starts, `jsondoc.py`'s. Keys no
rule reads are named in one warning, so nothing is dropped without a word.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from typing import Any

from bot.decks.foreign import (
    ANSWER_KEYS,
    CHOICE_KEYS,
    FLAT_CHOICE,
    QUESTION_KEYS,
    WRONG_KEYS,
    fold_key,
    is_opentdb,
    localized,
    question_arrays,
    question_key,
)
from bot.decks.formats import opentdb
from bot.decks.formats.answerkey import Pending, index_base, matches_text, plain, resolve
from bot.decks.formats.draft import (
    UNDETERMINED,
    DraftChoice,
    DraftDeck,
    DraftQuestion,
    FormatError,
    Texts,
)
from bot.decks.formats.jsondoc import item_lines, not_questions, parse_document
from bot.decks.formats.slug import slugify

FORMAT_NAME = "quiz JSON"

_TEXT_KEYS = ("text", "option", "value", "answer", "body", "label", "title", "content", "choice")
_FLAG_KEYS = ("iscorrect", "correct", "isright", "right", "rightans", "isanswer", "istrue")
_WHY_KEYS = ("explanation", "why", "feedback", "reason")
_EXPLANATION_KEYS = (
    "explanation",
    "explain",
    "answerexplanation",
    "rationale",
    "reason",
    "solution",
    "feedback",
    "why",
)
_TAG_KEYS = ("category", "topic", "theme", "subject", "chapter", "difficulty", "level")
_CONTEXT_KEYS = ("context", "passage", "stimulus", "scenario", "casestudy", "uddipok")
"""A passage several questions share (a Bengali exam's উদ্দীপক), shown before the question."""
_STATEMENT_KEYS = ("statements", "statement")
_FEEDBACK_KEYS = ("wronganswers", "feedback", "optionfeedback", "choicefeedback", "explanations")
"""Per-choice feedback: a map from a choice (its text or letter) to why it is right or wrong."""
_SOURCE_KEYS = ("source", "reference", "citation", "ref")
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
_STATEMENT_LABEL = re.compile(r"^\(?(?:[ivxIVX]{1,4}|[0-9০-৯]{1,2})[.)।]\s")
_KNOWN = frozenset(
    {
        *QUESTION_KEYS,
        *CHOICE_KEYS,
        *WRONG_KEYS,
        *ANSWER_KEYS,
        *_EXPLANATION_KEYS,
        *_TAG_KEYS,
        *_CONTEXT_KEYS,
        *_STATEMENT_KEYS,
        *_FEEDBACK_KEYS,
        *_SOURCE_KEYS,
        "tags",
        "id",
    }
)


def read_quiz_json(text: str, locale: str) -> DraftDeck:
    """Every object of the file's question arrays, or one line saying what the JSON is instead."""
    document, body_at = parse_document(text)
    if is_opentdb(document):
        return opentdb.read_opentdb(text, locale)
    arrays = question_arrays(document)
    if not arrays:
        raise FormatError(not_questions(document))
    deck = DraftDeck(locales=[locale])
    title, description = "", ""
    if isinstance(document, dict):
        about = _folded(document)
        title = _first_text(about, ("title", "quiztitle", "quizname", "name"))
        description = _first_text(about, ("description",))
    pending: list[Pending] = []
    unread: Counter[str] = Counter()
    for path, items in arrays:
        lines = item_lines(text, body_at, path, len(items))
        tag = slugify(str(path[-1])) if len(arrays) > 1 and path else ""
        for number, (item, line) in enumerate(zip(items, lines, strict=True), start=1):
            read = _read_item(item, number, line, deck, unread)
            if read is not None:
                read.tags = [tag, *read.tags] if tag else read.tags
                pending.append(read)
    locales = _locales(pending, locale, deck)
    deck.locales = locales
    deck.title = {locales[0]: title} if title else {}
    deck.description = {locales[0]: description} if description else {}
    base = index_base(pending, deck)
    for question in pending:
        _settle(question, base, locales, deck)
    _warn_unread(unread, deck)
    return deck


def _locales(pending: list[Pending], locale: str, deck: DraftDeck) -> list[str]:
    """The deck's languages: `locale`, or those every question of a file written in several
    languages has (`--locale` picks one of them)."""
    found = [[key for key in question.text if key] for question in pending]
    found = [keys for keys in found if keys]
    if not found:
        return [locale]
    every = [key for key in found[0] if all(key in keys for keys in found)]
    some = list(dict.fromkeys(key for keys in found for key in keys))
    if locale != UNDETERMINED:
        if locale not in some:
            raise FormatError(
                f"the questions are written in {', '.join(some)}; --locale {locale} names none "
                f"of them"
            )
        return [locale]
    if not every:
        raise FormatError(
            f"the questions are written in {', '.join(some)}, but in no one language all of "
            f"them; pass --locale to import those of one language"
        )
    left = [key for key in some if key not in every]
    if left:
        deck.warn(
            None,
            f"{', '.join(left)} left out: not every question has a text in it; the deck is in "
            f"{', '.join(every)}",
        )
    return every


def _folded(item: dict[str, Any]) -> dict[str, Any]:
    folded: dict[str, Any] = {}
    for key, value in item.items():
        folded.setdefault(fold_key(str(key)), value)
    return folded


def _read_item(
    item: Any, number: int, line: int, deck: DraftDeck, unread: Counter[str]
) -> Pending | None:
    if not isinstance(item, dict):
        deck.skip(line, f"item {number} is not an object")
        return None
    key = question_key(item)
    if key is None:
        keys = ", ".join(str(name) for name in item) or "none"
        deck.skip(line, f"object {number} has no question (its keys: {keys})")
        return None
    fields = _folded(item)
    text = localized(item[key]) or {}
    pending = Pending(line=line, text=_with_context(text, fields), choices=[])
    reason = _choices(fields, fold_key(key), pending)
    if reason is not None:
        deck.skip(line, reason)
        return None
    _feedback(fields, pending, deck, {fold_key(str(name)): str(name) for name in item})
    pending.explanation = _first_texts(fields, _EXPLANATION_KEYS)
    pending.tags = [slugify(text) for text in _tags(fields) if slugify(text)]
    pending.source = _first_text(fields, _SOURCE_KEYS)
    name = fields.get("id")
    if isinstance(name, str | int) and not isinstance(name, bool):
        pending.name = str(name)
    unread.update(
        str(original)
        for original in item
        if fold_key(str(original)) not in _KNOWN and not FLAT_CHOICE.match(fold_key(str(original)))
    )
    return pending


def _with_context(text: Texts, fields: dict[str, Any]) -> Texts:
    """The question with its shared passage before it and its statements (i, ii, iii) after:
    without them "which of these is right: i and ii, or ii and iii?" cannot be answered."""
    context = next(
        (found for key in _CONTEXT_KEYS if (found := localized(fields.get(key))) is not None), {}
    )
    statements = next(
        (value for key in _STATEMENT_KEYS if isinstance(value := fields.get(key), list)), []
    )
    lines = [plain(entry) for entry in statements if isinstance(entry, str | int | float)]
    if len(lines) <= len(_ROMAN) and not any(_labelled(entry) for entry in lines):
        lines = [f"{_ROMAN[index]}. {entry}" for index, entry in enumerate(lines) if entry]
    joined: Texts = {}
    for locale, question in text.items():
        before = context.get(locale, context.get("", ""))
        body = "\n".join([question, *lines])
        joined[locale] = f"{before}\n\n{body}" if before else body
    return joined


def _labelled(statement: str) -> bool:
    """Whether a statement carries its own label ("i. ...", "(ii) ...", "3) ...")."""
    return _STATEMENT_LABEL.match(statement) is not None


def _choices(fields: dict[str, Any], question: str, pending: Pending) -> str | None:
    """Fills the choices (and the answer when the choices carry it); a reason to skip if none."""
    for key in CHOICE_KEYS:
        value = fields.get(key)
        if isinstance(value, list | dict) and key != question:
            return _listed(value, fields, key, pending)
    answer = fields.get("answer")
    if isinstance(answer, list) and any(isinstance(entry, dict) for entry in answer):
        return _listed(answer, fields, "answer", pending)
    for key in WRONG_KEYS:
        wrong = fields.get(key)
        if isinstance(wrong, list):
            return _wrong_and_right(wrong, fields, pending)
    flat = sorted(
        (match.group(1), value)
        for key, value in fields.items()
        if (match := FLAT_CHOICE.match(key)) and isinstance(value, str | int | float)
    )
    if len(flat) >= 2:
        pending.labels = {label: index for index, (label, _) in enumerate(flat)}
        pending.choices = [DraftChoice({"": plain(value)}) for _, value in flat]
        pending.raw = _answer_value(fields)
        return None
    return "it has no choices (options, choices, answers, or optionA, optionB...)"


def _listed(
    value: list[Any] | dict[str, Any], fields: dict[str, Any], key: str, pending: Pending
) -> str | None:
    entries = list(value.values()) if isinstance(value, dict) else value
    if isinstance(value, dict):
        pending.labels = {_label(str(label)): index for index, label in enumerate(value)}
    flagged: list[int] = []
    flag_names: set[str] = set()
    for index, entry in enumerate(entries):
        texts = localized(entry) if isinstance(entry, dict) else None
        if isinstance(entry, dict) and (texts is None or "" in texts):
            inner = _folded(entry)
            text = _first_text(inner, _TEXT_KEYS) or _ending_in_text(inner)
            why = _first_text(inner, _WHY_KEYS)
            flags = {name: inner[name] for name in _FLAG_KEYS if isinstance(inner.get(name), bool)}
            flag_names.update(original for original in entry if fold_key(str(original)) in flags)
            if any(flags.values()):
                flagged.append(index)
            pending.choices.append(DraftChoice({"": text}, {"": why} if why else {}))
        elif texts is not None:
            pending.choices.append(DraftChoice(texts))
        elif isinstance(entry, str | int | float) and not isinstance(entry, bool):
            pending.choices.append(DraftChoice({"": plain(entry)}))
        else:
            return f"choice {index + 1} is not text"
    if len(flagged) > 1:
        return f"it has {len(flagged)} right answers; a deck question has one"
    if flagged:
        pending.answer = flagged[0]
        return None
    pending.raw = _answer_value(fields, skip=key)
    if pending.raw is None and flag_names:
        names = "/".join(sorted(flag_names))
        return f"none of its choices is marked right ({names} is false for every one)"
    if pending.raw is None:
        return "it has no answer (answer, correctAnswer, answerIndex...)"
    return None


def _label(key: str) -> str:
    """The label of a choice key: "optionB", "option_b" and "B" are all "b"."""
    match = FLAT_CHOICE.match(fold_key(key))
    return match.group(1) if match else fold_key(key)


def _wrong_and_right(wrong: list[Any], fields: dict[str, Any], pending: Pending) -> str | None:
    right = _answer_value(fields)
    if not isinstance(right, str | int | float) or isinstance(right, bool):
        return "it lists wrong answers but no right one as text"
    texts = [plain(entry) for entry in wrong if isinstance(entry, str | int | float)]
    seed = next(iter(pending.text.values()), "")
    place = zlib.crc32(seed.encode()) % (len(texts) + 1)
    texts.insert(place, plain(right))
    pending.choices = [DraftChoice({"": text}) for text in texts]
    pending.answer = place
    return None


def _feedback(
    fields: dict[str, Any], pending: Pending, deck: DraftDeck, names: dict[str, str]
) -> None:
    """A map from choices (their text, or their letter) to feedback: each becomes its why."""
    for key in _FEEDBACK_KEYS:
        value = fields.get(key)
        if not isinstance(value, dict):
            continue
        for choice, why in value.items():
            index = matches_text(str(choice), pending)
            if index is None and len(str(choice)) == 1 and str(choice).upper() in "ABCDE":
                index = "ABCDE".index(str(choice).upper())
            texts = localized(why)
            if index is None or index >= len(pending.choices) or texts is None:
                deck.warn(
                    pending.line,
                    f"{names.get(key, key)} names '{choice}', which is none of its choices; that "
                    f"feedback is "
                    f"left out",
                )
                continue
            pending.choices[index].why = texts
        return


def _answer_value(fields: dict[str, Any], skip: str = "") -> Any:
    for key in ANSWER_KEYS:
        if key in fields and key != skip:
            return fields[key]
    return None


def _first_text(fields: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = fields.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _first_texts(fields: dict[str, Any], keys: tuple[str, ...]) -> Texts:
    for key in keys:
        found = localized(fields.get(key))
        if found is not None:
            return found
    return {}


def _ending_in_text(fields: dict[str, Any]) -> str:
    """A choice's text under an unusual key ("ansterText", "optionText")."""
    for key, value in fields.items():
        if key.endswith("text") and isinstance(value, str):
            return value.strip()
    return ""


def _tags(fields: dict[str, Any]) -> list[str]:
    found = [fields[key] for key in _TAG_KEYS if isinstance(fields.get(key), str)]
    listed = fields.get("tags")
    if isinstance(listed, list):
        found.extend(tag for tag in listed if isinstance(tag, str))
    return found


def _settle(question: Pending, base: int, locales: list[str], deck: DraftDeck) -> None:
    answer = question.answer
    if answer is None:
        answer, reason = resolve(question, base)
        if answer is None:
            deck.skip(question.line, reason)
            return
    first = locales[0]
    deck.questions.append(
        DraftQuestion(
            line=question.line,
            text={first: question.text[""]}
            if "" in question.text
            else _spread(question.text, locales),
            choices=[
                DraftChoice(_spread(choice.text, locales), _spread(choice.why, locales))
                for choice in question.choices
            ],
            answer=answer,
            explanation=_spread(question.explanation, locales),
            name=question.name,
            tags=question.tags,
            source=question.source,
        )
    )


def _spread(texts: Texts, locales: list[str]) -> Texts:
    """A text given once ("") holds for every language of the deck; one per language stays."""
    if "" in texts:
        return dict.fromkeys(locales, texts[""]) if texts[""] else {}
    return {locale: text for locale, text in texts.items() if locale in locales}


def _warn_unread(unread: Counter[str], deck: DraftDeck) -> None:
    if not unread:
        return
    named = ", ".join(
        f"{key} ({count} question{'s' if count > 1 else ''})"
        for key, count in unread.most_common(8)
    )
    more = f" and {len(unread) - 8} more" if len(unread) > 8 else ""
    deck.warn(None, f"keys not imported, since a deck has no place for them: {named}{more}")
