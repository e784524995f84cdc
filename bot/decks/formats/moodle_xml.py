"""Moodle XML, parsed through defusedxml and written with ElementTree so Moodle reads it back.

Multiple-choice questions with one right answer (`fraction="100"`) and true/false questions
become deck questions: `<name>` gives the id, `<answer><feedback>` each choice's why,
`<generalfeedback>` the explanation, `<shuffleanswers>` the question's shuffle, `<tags>` and the
levels of `<question type="category">` its tags. Every other type is skipped with its name.
Entity declarations are refused (billion laughs), as are external entities, before they expand.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import AttributesImpl, Locator

import defusedxml.sax
from defusedxml import DefusedXmlException, EntitiesForbidden

from bot.decks.formats.category import Categories, category_path
from bot.decks.formats.draft import (
    DraftChoice,
    DraftDeck,
    DraftQuestion,
    FormatError,
    settle_true_false,
)
from bot.decks.formats.htmltext import html_to_text
from bot.decks.formats.phrasebook import true_false
from bot.decks.model import Deck, Question

FORMAT_NAME = "Moodle XML"

_SKIPPED_TYPES = {
    "essay": "an essay question",
    "matching": "a matching question",
    "numerical": "a numerical question",
    "shortanswer": "a short-answer question",
    "description": "a description, not a question",
    "cloze": "an embedded-answers (cloze) question",
    "multianswer": "an embedded-answers (cloze) question",
    "calculated": "a calculated question",
    "calculatedsimple": "a calculated question",
    "calculatedmulti": "a calculated multiple-choice question",
    "ddwtos": "a drag-and-drop question",
    "ddimageortext": "a drag-and-drop question",
    "ddmarker": "a drag-and-drop question",
    "gapselect": "a select-missing-words question",
    "randomsamatch": "a random short-answer matching question",
    "ordering": "an ordering question",
}
_UNREAD = frozenset({"file", "image_base64"})
"""Elements holding base64 payloads, which are never kept."""

MAX_DEPTH = 64
"""How deep elements may nest. Moodle's exports nest six deep (quiz, question, answer,
feedback, text); 10 MiB of `<a>` nest 3.5 million deep, a tree that took 1.7 GB and
20 s to build only to be refused at its end."""


class _TooDeep(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[_Element] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    def find(self, tag: str) -> _Element | None:
        return next((child for child in self.children if child.tag == tag), None)

    def findall(self, tag: str) -> list[_Element]:
        return [child for child in self.children if child.tag == tag]

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def text_of(self, tag: str) -> str:
        """The <text> inside child `tag` (or the child's own text), stripped."""
        child = self.find(tag)
        if child is None:
            return ""
        inner = child.find("text")
        return (inner.text if inner is not None else child.text).strip()


class _TreeBuilder(ContentHandler):
    """A small element tree that remembers the line each element starts on."""

    def __init__(self) -> None:
        super().__init__()
        self.root: _Element | None = None
        self._stack: list[_Element] = []
        self._locator: Locator | None = None

    def setDocumentLocator(self, locator: Locator) -> None:
        self._locator = locator

    def startElement(self, name: str, attrs: AttributesImpl) -> None:
        found = self._locator.getLineNumber() if self._locator is not None else None
        line = found if found is not None else 1
        if len(self._stack) >= MAX_DEPTH:
            raise _TooDeep(line)
        element = _Element(name, {key: attrs[key] for key in attrs.getNames()}, line)
        if self._stack:
            self._stack[-1].children.append(element)
        else:
            self.root = element
        self._stack.append(element)

    def endElement(self, name: str) -> None:
        self._stack.pop()

    def characters(self, content: str) -> None:
        if self._stack and self._stack[-1].tag not in _UNREAD:
            self._stack[-1].parts.append(content)


def _parse(data: bytes) -> _Element:
    builder = _TreeBuilder()
    try:
        defusedxml.sax.parseString(data, builder, forbid_dtd=False, forbid_entities=True)
    except EntitiesForbidden as refused:
        raise FormatError(
            f"the XML declares an entity ('{refused.name}'); entities can expand to gigabytes "
            f"(an XML bomb), so the file is refused"
        ) from None
    except DefusedXmlException as refused:
        raise FormatError(f"the XML uses a forbidden construct ({refused}); refusing it") from None
    except SAXParseException as error:
        raise FormatError(
            f"not well-formed XML: {error.getMessage()}", error.getLineNumber()
        ) from None
    except _TooDeep as deep:
        raise FormatError(
            f"elements nest more than {MAX_DEPTH} deep (a Moodle export nests six); refusing it",
            deep.line,
        ) from None
    if builder.root is None:
        raise FormatError("the file has no XML elements")
    return builder.root


def read_moodle_xml(data: bytes, locale: str) -> DraftDeck:
    """Every multiple-choice and true/false question in a Moodle XML export."""
    root = _parse(data)
    if root.tag != "quiz":
        raise FormatError(
            f"the root element is <{root.tag}>, not <quiz>: not a Moodle XML export", root.line
        )
    deck = DraftDeck(locales=[locale])
    categories = Categories()
    for element in root.findall("question"):
        kind = element.attrs.get("type", "")
        if kind == "category":
            categories.enter(element.text_of("category"))
        elif kind in ("multichoice", "truefalse"):
            _read_question(element, kind, locale, categories.tags, deck)
        else:
            reason = _SKIPPED_TYPES.get(
                kind, f"a question of type '{kind}', which a deck cannot hold"
            )
            deck.skip(element.line, reason)
    if categories.title:
        deck.title = {locale: categories.title}
    return deck


def _text(element: _Element | None, default_format: str, dropped: set[str]) -> str:
    if element is None:
        return ""
    inner = element.find("text")
    raw = (inner.text if inner is not None else "").strip()
    text_format = element.attrs.get("format", default_format)
    if text_format in ("html", "moodle_auto_format"):
        raw, media = html_to_text(raw, keep_newlines=text_format == "moodle_auto_format")
        dropped |= media
    return raw.strip()


def _read_question(
    element: _Element, kind: str, locale: str, tags: list[str], deck: DraftDeck
) -> None:
    dropped: set[str] = set()
    if element.text_of("image") or element.find("image_base64") is not None:
        dropped.add("image")
    draft = DraftQuestion(
        line=element.line,
        text={locale: _text(element.find("questiontext"), "moodle_auto_format", dropped)},
        choices=[],
        answer=-1,
        name=element.text_of("name"),
        tags=[*tags, *(tag.text_of("text") for tag in _tags(element))],
    )
    explanation = _text(element.find("generalfeedback"), "moodle_auto_format", dropped)
    if explanation:
        draft.explanation[locale] = explanation
    if element.text_of("shuffleanswers").lower() in ("0", "false"):
        draft.shuffle = False
    fractions: list[float] = []
    for answer in element.findall("answer"):
        raw = answer.attrs.get("fraction", "0")
        try:
            fractions.append(float(raw))
        except ValueError:
            deck.skip(element.line, f"an answer's fraction '{raw}' is not a number")
            return
        choice = DraftChoice({locale: _text(answer, "moodle_auto_format", dropped)})
        why = _text(answer.find("feedback"), "moodle_auto_format", dropped)
        if why:
            choice.why[locale] = why
        draft.choices.append(choice)
    reason = _settle_answer(draft, fractions, kind, locale)
    if reason is not None:
        deck.skip(element.line, reason)
        return
    draft.drop(dropped)
    deck.questions.append(draft)


def _tags(element: _Element) -> list[_Element]:
    holder = element.find("tags")
    if holder is None:
        return []
    return [tag for tag in holder.findall("tag") if tag.text_of("text")]


def _settle_answer(
    draft: DraftQuestion, fractions: list[float], kind: str, locale: str
) -> str | None:
    partial = [(n, f) for n, f in enumerate(fractions, start=1) if 0 < f < 100]
    if partial:
        number, fraction = partial[0]
        return (
            f"answer {number} gives partial credit ({fraction:g}%); a deck question has one answer"
        )
    right = [index for index, fraction in enumerate(fractions) if fraction >= 100]
    if not right:
        return 'no answer has fraction="100"'
    if len(right) > 1:
        return f'{len(right)} answers have fraction="100"; a deck question has exactly one'
    draft.answer = right[0]
    if kind == "truefalse":
        _true_first(draft, locale)
        draft.shuffle = None  # Moodle has no shuffle for true/false; here it is never shuffled
        settle_true_false(draft, locale)
    return None


def _true_first(draft: DraftQuestion, locale: str) -> None:
    """True/false choices in the deck's words, True first, whatever order the file had."""
    keys = [choice.text[locale].strip().lower() for choice in draft.choices]
    if sorted(keys) != ["false", "true"]:
        return
    words = dict(zip(("true", "false"), true_false(locale), strict=True))
    right_key = keys[draft.answer]
    ordered = sorted(
        draft.choices, key=lambda choice: choice.text[locale].strip().lower() != "true"
    )
    for choice in ordered:
        key = choice.text[locale].strip().lower()
        choice.text[locale] = words[key]
        choice.generated = key == "true"
    draft.choices = ordered
    draft.answer = 0 if right_key == "true" else 1


# Writing ---------------------------------------------------------------------------------------


def _text_element(parent: ET.Element, tag: str, text: str) -> ET.Element:
    element = ET.SubElement(parent, tag, {"format": "plain_text"})
    ET.SubElement(element, "text").text = text
    return element


def write_moodle_xml(deck: Deck, locale: str) -> str:
    """The deck in one locale as Moodle XML: a category, then one multichoice per question."""
    quiz = ET.Element("quiz")
    category = ET.SubElement(quiz, "question", {"type": "category"})
    ET.SubElement(ET.SubElement(category, "category"), "text").text = category_path(
        deck.title[locale]
    )
    for question in deck.questions:
        _write_question(quiz, question, locale)
    ET.indent(quiz, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(quiz, encoding="unicode") + "\n"


def _write_question(quiz: ET.Element, question: Question, locale: str) -> None:
    element = ET.SubElement(quiz, "question", {"type": "multichoice"})
    ET.SubElement(ET.SubElement(element, "name"), "text").text = question.id
    _text_element(element, "questiontext", question.text[locale])
    _text_element(element, "generalfeedback", question.explanation[locale])
    ET.SubElement(element, "defaultgrade").text = "1"
    ET.SubElement(element, "penalty").text = "0.3333333"
    ET.SubElement(element, "hidden").text = "0"
    ET.SubElement(element, "single").text = "true"
    ET.SubElement(element, "shuffleanswers").text = "true" if question.shuffle else "false"
    ET.SubElement(element, "answernumbering").text = "ABCD"
    for index, choice in enumerate(question.choices):
        fraction = "100" if index == question.answer else "0"
        answer = ET.SubElement(element, "answer", {"fraction": fraction, "format": "plain_text"})
        ET.SubElement(answer, "text").text = choice.text[locale]
        why = choice.why.get(locale, "") if choice.why is not None else ""
        _text_element(answer, "feedback", why)
    if question.tags:
        tags = ET.SubElement(element, "tags")
        for tag in question.tags:
            ET.SubElement(ET.SubElement(tags, "tag"), "text").text = tag
