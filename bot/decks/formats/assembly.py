"""A deck assembled from a draft: questions checked and given ids, stand-in explanations
written where the source had none, and the warnings about what the import wrote itself."""

from __future__ import annotations

from typing import Any

from bot.decks.format import MAX_EXPLANATION_CHARS, MAX_ID_LENGTH, MAX_TITLE_CHARS
from bot.decks.formats.draft import (
    DraftDeck,
    DraftQuestion,
    Note,
    Texts,
    settle_right_feedback,
    strip_choice_labels,
    unfit_reason,
)
from bot.decks.formats.phrasebook import STAND_IN_LOCALES, answer_is, has_stand_in, has_words
from bot.decks.formats.slug import IdMaker
from bot.decks.formats.writer import render_deck


def count(number: int, noun: str) -> str:
    """ "1 question", "2 questions"."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


class Assembly:
    """A draft deck made into a deck mapping: checks, ids, stand-in explanations, warnings."""

    def __init__(self, draft: DraftDeck, locale: str) -> None:
        self.draft = draft
        self.locales = draft.locales or [locale]
        self.notes: list[Note] = list(draft.notes)
        self.questions: list[dict[str, Any]] = []
        self.filled = 0
        self.stand_ins: set[str] = set()
        ids = IdMaker()
        for question in draft.questions:
            self._add(question, ids)
        self.description = draft.description
        missing = [locale for locale in self.locales if not self.description.get(locale)]
        if self.description and missing:
            self.notes.append(
                Note(None, "warning", f"the description has no {', '.join(missing)}; left out")
            )
            self.description = {}

    def _add(self, question: DraftQuestion, ids: IdMaker) -> None:
        strip_choice_labels(question)
        settle_right_feedback(question)
        reason = unfit_reason(question, self.locales)
        if reason is not None:
            self.notes.append(Note(question.line, "skipped", reason))
            return
        first = self.locales[0]
        question_id = ids.make(
            question.name,
            question.text[first],
            [choice.text[first] for choice in question.choices if choice.generated is None],
        )
        right = question.choices[question.answer]
        missing = [locale for locale in self.locales if not question.explanation.get(locale)]
        for locale in missing:
            question.explanation[locale] = answer_is(locale, right.text[locale])
        self.filled += bool(missing)
        if missing:
            self.stand_ins.add(question_id)
        for kind in question.dropped:
            self.notes.append(
                Note(question.line, "warning", f"{kind} dropped from question {question_id}")
            )
        self._cite(question, question_id)
        entry: dict[str, Any] = {
            "id": question_id,
            "text": self._texts(question.text),
            "choices": [self._choice(choice.text, choice.why) for choice in question.choices],
            "answer": question.answer,
            "explanation": self._texts(question.explanation),
        }
        tags = list(dict.fromkeys(tag for tag in question.tags if tag.strip()))
        if tags:
            entry["tags"] = tags
        if question.shuffle is not None:
            entry["shuffle"] = question.shuffle
        if question.seconds is not None:
            entry["seconds"] = question.seconds
        self.questions.append(entry)

    def _cite(self, question: DraftQuestion, question_id: str) -> None:
        """The question's source after its explanation, where the deck has room for it."""
        source = " ".join(question.source.split())
        if not source:
            return
        cited = {locale: f"{text}\n\n{source}" for locale, text in question.explanation.items()}
        if any(len(text) > MAX_EXPLANATION_CHARS for text in cited.values()):
            self.notes.append(
                Note(
                    question.line,
                    "warning",
                    f"the source of question {question_id} is left out: with it the explanation "
                    f"would be over {MAX_EXPLANATION_CHARS} characters",
                )
            )
            return
        question.explanation.update(cited)

    @property
    def skipped(self) -> int:
        return sum(1 for note in self.notes if note.kind == "skipped")

    def report(self, shown: str) -> list[str]:
        """The notes in file order, then the warnings about words the import wrote itself."""
        notes = sorted(self.notes, key=lambda note: note.line or 0)
        lines = [note.render(shown) for note in notes]
        unknown = [locale for locale in self.locales if not has_words(locale)]
        if unknown and self._true_false_words():
            lines.append(
                f"{shown}: warning: quizbot has no words of its own in {', '.join(unknown)}, so "
                f"the True/False choices it wrote are in English; translate them in the deck"
            )
        if self.filled and self.questions:
            lines.append(self._stand_in_warning(shown))
        return lines

    def _stand_in_warning(self, shown: str) -> str:
        filled = f"{self.filled} of {count(len(self.questions), 'question')}"
        verb = "says" if self.filled == 1 else "say"
        spoken = [locale for locale in self.locales if has_stand_in(locale)]
        bare = [locale for locale in self.locales if not has_stand_in(locale)]
        if not bare:
            stand_in = answer_is(self.locales[0], "<right choice>")
            return (
                f"{shown}: warning: {filled} came without an explanation and now {verb} "
                f'only "{stand_in}"; write real ones before use'
            )
        said = f'"{answer_is(spoken[0], "<right choice>")}" in {spoken[0]} and ' if spoken else ""
        return (
            f"{shown}: warning: {filled} came without an explanation and now {verb} only "
            f"{said}the right choice in {', '.join(bare)} (quizbot writes stand-ins only "
            f"in {' and '.join(STAND_IN_LOCALES)}); write real ones before use"
        )

    def _true_false_words(self) -> bool:
        return any(
            choice.generated is not None
            for question in self.draft.questions
            for choice in question.choices
        )

    def comments(self, source: str, questions: list[dict[str, Any]] | None = None) -> list[str]:
        """The lines at the top of the deck file: where it came from, what still needs writing."""
        lines = [f"{source} by `quizbot import`."]
        held = self.questions if questions is None else questions
        filled = sum(1 for question in held if question["id"] in self.stand_ins)
        if filled:
            lines.append(
                f"{count(filled, 'question')} came without an explanation; theirs only "
                f"name the right answer: write real ones."
            )
        return lines

    def part_text(
        self,
        deck_id: str,
        title: Texts,
        source: str,
        start: int,
        end: int,
        place: tuple[int, int],
    ) -> str:
        """The deck file of questions[start:end], as part `place` (number, of how many)."""
        number, count = place
        ending = f"-{number}"
        part_id = deck_id[: MAX_ID_LENGTH - len(ending)].rstrip("-") + ending
        mark = f" ({number}/{count})"
        part_title = {
            locale: text[: MAX_TITLE_CHARS - len(mark)].rstrip() + mark
            for locale, text in title.items()
        }
        questions = self.questions[start:end]
        mapping = self.mapping(part_id, part_title, source)
        mapping["questions"] = questions
        return render_deck(mapping, self.comments(source, questions))

    def _texts(self, texts: Texts) -> str | dict[str, str]:
        if len(self.locales) == 1:
            return texts[self.locales[0]]
        return {locale: texts[locale] for locale in self.locales}

    def _choice(self, text: Texts, why: Texts) -> Any:
        if not any(why.get(locale) for locale in self.locales):
            return self._texts(text)
        return {
            "text": self._texts(text),
            "why": self._texts({locale: why.get(locale, "") for locale in self.locales}),
        }

    def mapping(self, deck_id: str, title: Texts, source: str) -> dict[str, Any]:
        deck: dict[str, Any] = {"id": deck_id, "title": self._texts(title)}
        if self.description:
            deck["description"] = self._texts(self.description)
        deck["locales"] = list(self.locales)
        if self.draft.shuffle is not None:
            deck["shuffle"] = self.draft.shuffle
        deck["source"] = self.draft.origin or source
        if self.draft.license:
            deck["license"] = self.draft.license
        deck["questions"] = self.questions
        return deck
