"""Moodle GIFT, read as Moodle's own importer reads it, and written so Moodle reads it back.

A blank line ends a question; lines starting with // are comments ([tag:x] in one tags the
question); `::title::` names it; the answers sit between the first '{' and the first '}' (text
after the '}' makes a fill-in-the-blank with "_____"); `=right`, `~wrong`, `#feedback`,
`####general feedback`; `{T}`/`{FALSE}` for true/false, whose feedback is `#wrong#right`;
`[html]`, `[moodle]`, `[markdown]`, `[plain]` set the text format; `\\` escapes `:#={}~` and
writes a newline as `\\n`. Weights `~%50%` give partial credit, which a deck question cannot
hold, so such questions are skipped, as are those with no or several right answers.
"""

from __future__ import annotations

import re

from bot.decks.formats.category import Categories, category_path
from bot.decks.formats.draft import (
    DraftChoice,
    DraftDeck,
    DraftQuestion,
    generated_true_false,
    settle_true_false,
)
from bot.decks.formats.htmltext import html_to_text
from bot.decks.model import Deck, Question

FORMAT_NAME = "Moodle GIFT"

_ESCAPES = ("\\:", "\\#", "\\=", "\\{", "\\}", "\\~", "\\n")
_PLACEHOLDERS = tuple(chr(0xE000 + index) for index in range(len(_ESCAPES)))
_RESTORED = (":", "#", "=", "{", "}", "~", "\n")
_BACKSLASH = chr(0xE00F)
_RESTORE = str.maketrans(dict(zip(_PLACEHOLDERS, _RESTORED, strict=True)))
_WEIGHT = re.compile(r"^%(-*[0-9]{1,2}\.?[0-9]*)%")
_FORMATS = ("html", "moodle", "plain", "markdown")
_TAG = re.compile(r"\[tag:([^\]]*)\]")
r"""`[tag:x]` in a comment. No lazy `*?` before `\s*\]`: on `[tag:` and a megabyte of spaces
without `]` that tried every split of the spaces, quadratic."""
_INNER_EQUALS = re.compile(r"[^\s~]=")
_TILDE_EQUALS = re.compile(r"~\s*=")
_TRUE_FALSE = {"T": True, "TRUE": True, "F": False, "FALSE": False}


Lines = list[tuple[int, str]]
"""Lines of the file with their numbers."""


def read_gift(text: str, locale: str) -> DraftDeck:
    """Every question in a GIFT file, or the reason each one was skipped."""
    deck = DraftDeck(locales=[locale])
    categories = Categories()
    for block, joined in _blocks(text):
        for question in _questions_in(block):
            first, last = question[0][0], question[-1][0]
            inside = [number for number in joined if first < number < last]
            _read_block(question, locale, deck, categories, inside)
    if categories.title:
        deck.title = {locale: categories.title}
    return deck


def _braces(line: str, depth: int) -> tuple[int, bool]:
    """The depth of '{' after `line` (escaped braces do not count), and whether it opened one."""
    protected = _protect(line)
    return depth + protected.count("{") - protected.count("}"), "{" in protected


def _blocks(text: str) -> list[tuple[Lines, list[int]]]:
    """Numbered lines grouped by blank lines, as Moodle groups them, and the blank lines kept.

    Moodle ends a question at any blank line, even inside its '{ }', and then rejects both
    halves. Here a blank line inside braces that a later line closes (before anything that
    starts a question) is read as part of the question, and its number is kept for a warning.
    """
    lines = text.splitlines()
    blocks: list[tuple[Lines, list[int]]] = []
    current: Lines = []
    joined: list[int] = []
    depth = 0
    join_until = -1
    for index, line in enumerate(lines):
        if line.strip():
            current.append((index + 1, line))
            if not line.strip().startswith("//"):
                depth = max(0, _braces(line, depth)[0])
            continue
        if not current:
            continue
        if depth > 0 and index < join_until:
            joined.append(index + 1)
            continue
        if depth > 0:
            join_until = _closing_line(lines, index + 1)
            if join_until > index:
                joined.append(index + 1)
                continue
        blocks.append((current, joined))
        current, joined, depth = [], [], 0
    if current:
        blocks.append((current, joined))
    return blocks


def _closing_line(lines: list[str], start: int) -> int:
    """The index of the line from `start` whose '}' closes open braces, or -1 if a question
    starts (or the file ends) first."""
    for index in range(start, len(lines)):
        stripped = lines[index].strip()
        if not stripped or stripped.startswith("//"):
            continue
        if stripped.startswith(("::", "$CATEGORY:")):
            return -1
        protected = _protect(stripped)
        close, open_ = protected.find("}"), protected.find("{")
        if close >= 0 and (open_ < 0 or close < open_):
            return index
        if open_ >= 0:
            return -1
    return -1


def _questions_in(block: Lines) -> list[Lines]:
    """A block cut where a new question starts without a blank line before it.

    A `$CATEGORY:` line is one line; a `::title::` line starts a question; so does a line with
    a '{' after a question whose answers are closed (lines without one continue a missing-word
    question's text). Comment lines go with the question after them.
    """
    questions: list[Lines] = []
    current: Lines = []
    pending: Lines = []
    depth, opened, category, content = 0, False, False, False
    for number, line in block:
        stripped = line.strip()
        if stripped.startswith("//"):
            pending.append((number, line))
            continue
        closed = opened and depth <= 0
        starts = content and (
            category
            or stripped.startswith(("$CATEGORY:", "::"))
            or (closed and "{" in _protect(stripped))
        )
        if starts:
            questions.append(current)
            current, depth, opened = [], 0, False
        if not content or starts:
            category = stripped.startswith("$CATEGORY:")
        current.extend(pending)
        pending = []
        current.append((number, line))
        content = True
        depth, brace = _braces(line, depth)
        opened = opened or brace
    current.extend(pending)
    if current:
        questions.append(current)
    return questions


def _protect(text: str) -> str:
    if "\\" not in text:  # every escape starts with a backslash
        return text
    text = text.replace("\\\\", _BACKSLASH)
    for escape, placeholder in zip(_ESCAPES, _PLACEHOLDERS, strict=True):
        text = text.replace(escape, placeholder)
    return text.replace(_BACKSLASH, "\\")


def _restore(text: str) -> str:
    return text.translate(_RESTORE)


def _with_format(raw: str, default: str) -> tuple[str, str]:
    """The format a text names with a [format] prefix (or `default`), and the text after it."""
    raw = raw.strip()
    if raw.startswith("["):
        end = raw.find("]")
        if end > 0 and raw[1:end] in _FORMATS:
            return raw[1:end], _restore(raw[end + 1 :]).strip()
    return default, _restore(raw).strip()


def _plain(raw: str, default: str, dropped: set[str]) -> str:
    text_format, text = _with_format(raw, default)
    if text_format in ("html", "moodle"):
        text, media = html_to_text(text, keep_newlines=text_format == "moodle")
        dropped |= media
    return text


def _read_block(
    block: Lines, locale: str, deck: DraftDeck, categories: Categories, blank_inside: list[int]
) -> None:
    comments = [line for _, line in block if line.strip().startswith("//")]
    body = [(number, line) for number, line in block if not line.strip().startswith("//")]
    if not body:
        return
    line = body[0][0]
    text = _protect("\n".join(content for _, content in body).strip())
    if text.startswith("$CATEGORY:"):
        categories.enter(_restore(text[len("$CATEGORY:") :]))
        return
    name = ""
    if text.startswith("::"):
        end = text.find("::", 2)
        if end >= 0:
            name = _restore(text[2:end]).strip()
            text = text[end + 2 :].strip()
    start, finish = text.find("{"), text.find("}")
    if start < 0 and finish < 0:
        deck.skip(line, "a description (no answers in braces), not a question")
        return
    if finish < 0:
        deck.skip(
            line,
            "its '{' is never closed: end its answers with '}' (or write \\{ for a literal brace)",
        )
        return
    if start < 0 or finish < start:
        deck.skip(line, "its '}' comes before any '{' (write \\} for a literal brace)")
        return
    answers = text[start + 1 : finish].strip()
    if text.endswith("}"):
        question_text = text[:start] + text[finish + 1 :]
    else:
        question_text = text[:start] + "_____" + text[finish + 1 :]
    general = ""
    if "####" in answers:
        cut = answers.rfind("####")
        answers, general = answers[:cut].strip(), answers[cut + 4 :]
    text_format, _ = _with_format(question_text, "moodle")
    dropped: set[str] = set()
    draft = DraftQuestion(
        line=line,
        text={locale: _plain(question_text, "moodle", dropped)},
        choices=[],
        answer=-1,
        name=name,
        tags=[
            *categories.tags,
            *(tag.strip() for comment in comments for tag in _TAG.findall(comment)),
        ],
    )
    explanation = _plain(general, text_format, dropped)
    if explanation:
        draft.explanation[locale] = explanation
    reason = _read_answers(answers, text_format, locale, draft, dropped)
    if reason is not None:
        deck.skip(line, reason)
        return
    draft.drop(dropped)
    deck.questions.append(draft)
    if blank_inside:
        deck.warn(
            line,
            f"blank line {blank_inside[0]} inside its {{ }} was read as part of the question; "
            f"Moodle would reject it there: remove the blank line",
        )


def _read_answers(
    answers: str, text_format: str, locale: str, draft: DraftQuestion, dropped: set[str]
) -> str | None:
    """Fills in the choices and the answer, or says why the question cannot be a deck question."""
    if not answers:
        return "an essay question (no answers to choose from)"
    if answers.startswith("#"):
        return "a numerical question (no choices to pick from)"
    if "~" in answers:
        return _read_multichoice(answers, text_format, locale, draft, dropped)
    if "=" in answers and "->" in answers:
        return "a matching question"
    head = answers.split("#", 1)[0].strip()
    if head in _TRUE_FALSE:
        bits = answers.split("#", 2)
        right = 0 if _TRUE_FALSE[head] else 1
        feedback = [_plain(bit, text_format, dropped) for bit in bits[1:]] + ["", ""]
        draft.choices = generated_true_false(locale)
        draft.answer = right
        if feedback[0]:
            draft.choices[1 - right].why[locale] = feedback[0]
        if feedback[1]:
            draft.choices[right].why[locale] = feedback[1]
        settle_true_false(draft, locale)
        return None
    return "a short-answer question (typed answers, no choices)"


def _read_multichoice(
    answers: str, text_format: str, locale: str, draft: DraftQuestion, dropped: set[str]
) -> str | None:
    # `~=X` is how many teachers write the right answer; Moodle reads it as `=X` (the empty
    # answer its split leaves is dropped when the question is saved), and so does this.
    parts = _TILDE_EQUALS.sub("=", answers).replace("=", "~=").split("~")
    if not parts[0].strip():
        parts = parts[1:]
    weights: list[float] = []
    for part in parts:
        answer = part.strip()
        if answer.startswith("="):
            weight, answer = 100.0, answer[1:]
        elif match := _WEIGHT.match(answer):
            digits = match.group(1)
            weight = float(digits.lstrip("-") or 0) * (-1 if digits.startswith("-") else 1)
            answer = answer[match.end() :]
        else:
            weight = 0.0
        text, _, feedback = answer.partition("#")
        choice = DraftChoice({locale: _plain(text, text_format, dropped)})
        why = _plain(feedback, text_format, dropped)
        if why:
            choice.why[locale] = why
        draft.choices.append(choice)
        weights.append(weight)
    partial = [(n, w) for n, w in enumerate(weights, start=1) if 0 < w < 100]
    if partial:
        number, weight = partial[0]
        return f"choice {number} gives partial credit ({weight:g}%); a deck question has one answer"
    right = [index for index, weight in enumerate(weights) if weight >= 100]
    if not right:
        return "no choice is marked right (with = or ~%100%)"
    inner = _INNER_EQUALS.search(answers)
    if len(right) > 1 and inner is not None:
        around = _restore(answers[max(0, inner.start() - 15) : inner.end() + 15])
        shown = " ".join(around.split())
        return (
            f"an '=' inside a choice ('...{shown}...') starts another right answer; write it "
            f"as \\= to keep it in the choice's text"
        )
    if len(right) > 1:
        return f"{len(right)} choices are marked right; a deck question has exactly one"
    draft.answer = right[0]
    return None


# Writing ---------------------------------------------------------------------------------------


def _escape(text: str) -> str:
    """GIFT's escapes, as Moodle's exporter writes them."""
    escaped = text.replace("\\", "\\\\")
    for char in "#=~{}:":
        escaped = escaped.replace(char, "\\" + char)
    return escaped.replace("\r", "").replace("\n", "\\n")


def _literal(text: str) -> str:
    """An answer or feedback: escaped, and marked [plain] if it would read as a format or weight."""
    escaped = _escape(text)
    return f"[plain]{escaped}" if escaped.startswith(("[", "%")) else escaped


def write_gift(deck: Deck, locale: str) -> str:
    """The deck in one locale as GIFT: plain-text questions, every why and explanation kept."""
    title = deck.title[locale]
    lines = [
        f"// {deck.id}: {title}",
        f"// Exported from quizbot in '{locale}'. Plain text, one question per block.",
        "",
        f"$CATEGORY: {category_path(title)}",
        "",
    ]
    for question in deck.questions:
        lines.extend(_question_lines(question, locale))
        lines.append("")
    return "\n".join(lines)


def _question_lines(question: Question, locale: str) -> list[str]:
    lines = [f"// question: {question.id}"]
    if question.tags:
        lines.append("// " + " ".join(f"[tag:{tag.replace(']', '')}]" for tag in question.tags))
    lines.append(f"::{_escape(question.id)}::[plain]{_escape(question.text[locale])}{{")
    for index, choice in enumerate(question.choices):
        mark = "=" if index == question.answer else "~"
        line = f"\t{mark}{_literal(choice.text[locale])}"
        if choice.why is not None and locale in choice.why:
            line += f"#{_literal(choice.why[locale])}"
        lines.append(line)
    lines.append(f"\t####{_literal(question.explanation[locale])}")
    lines.append("}")
    return lines
