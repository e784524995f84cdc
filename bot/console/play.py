"""`quizbot play`: a run through a deck in the terminal, on the server "local"; with
`--review`, the questions missed there that are due for review.

Reads one letter per question from standard input, so it works piped as well as on a TTY.
`q` or end of input stops; the run is kept and the next `quizbot play` resumes it.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, replace
from typing import TextIO

from bot.decks.model import Deck, pick
from bot.decks.numerals import number
from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.leaderboard import Period
from bot.domain.review import ReviewStep
from bot.domain.run import RunStep, RunSummary
from bot.presentation.locales import text
from bot.presentation.messages import (
    AnswerMessage,
    QuestionMessage,
    error_text,
    feedback_message,
    leaderboard_message,
    step_message,
    summary_message,
)
from bot.presentation.review_messages import review_answer, review_done, review_question
from bot.service.quiz import Quiz

LOCAL_SERVER = "local"
WIDTH = 78


@dataclass
class Terminal:
    stdin: TextIO
    stdout: TextIO
    stderr: TextIO
    interactive: bool

    def say(self, line: str = "") -> None:
        self.stdout.write(line + "\n")

    def wrapped(self, body: str, indent: str = "", hang: str | None = None) -> None:
        """Prints `body` wrapped to the terminal width; `hang` indents continuation lines."""
        rest = indent if hang is None else hang
        for para in body.splitlines() or [""]:
            filled = textwrap.fill(
                para, WIDTH, initial_indent=indent, subsequent_indent=rest, break_on_hyphens=False
            )
            self.say(filled or indent)

    def ask(self, prompt: str) -> str | None:
        """One line of input; None at end of input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if line == "":
            if self.interactive:
                self.say()
            return None
        if not self.interactive:
            self.say(line.rstrip("\n"))  # echo piped answers so the transcript reads well
        return line.strip()


def choose_deck(quiz: Quiz, term: Terminal, deck_id: str | None, locale: str) -> Deck | None:
    """--deck, else the only deck; several decks: ask on a TTY, the first by id when piped."""
    if deck_id:
        return quiz.deck(deck_id)
    decks = list(quiz.decks)
    if len(decks) <= 1 or not term.interactive:
        return quiz.deck(None)
    for i, d in enumerate(decks, 1):
        term.say(f"{i}. {d.id}: {pick(d.title, locale)} ({len(d)})")
    while True:
        answer = term.ask(text(locale, "play.choose_deck"))
        if answer is None or answer.lower() == "q":
            return None
        chosen = number(answer)
        if chosen is not None and 1 <= chosen <= len(decks):
            return decks[chosen - 1]
        if quiz.decks.get(answer):
            return quiz.deck(answer)


def show_question(term: Terminal, msg: QuestionMessage) -> None:
    term.say()
    term.say(msg.header)
    if msg.footer:
        term.say(msg.footer)
    term.wrapped(msg.question)
    for c in msg.choices:
        term.wrapped(f"{c.letter}. {c.text}", "   ", "      ")


def show_feedback(term: Terminal, msg: AnswerMessage) -> None:
    term.say(msg.headline)
    term.wrapped(msg.answer)
    if msg.why:
        term.wrapped(msg.why)
    term.wrapped(msg.explanation)
    if msg.review:
        term.wrapped(msg.review)


def read_letter(term: Terminal, letters: str, locale: str) -> int | None:
    """The index of the letter typed; None to stop. Anything else is asked again."""
    shown = ", ".join(letters)
    while True:
        answer = term.ask(text(locale, "play.prompt", letters=shown))
        if answer is None or answer.lower() in ("q", "quit", "exit"):
            return None
        if len(answer) == 1 and answer.upper() in letters:
            return letters.index(answer.upper())
        term.say(text(locale, "play.invalid", letters=shown))


async def show_summary(quiz: Quiz, actor: Actor, term: Terminal, summary: RunSummary) -> None:
    msg = summary_message(summary)
    term.say()
    term.say(msg.header)
    term.say(msg.score)
    term.say(msg.points)
    for line in msg.review:
        term.wrapped(line)
    board = await quiz.leaderboard(actor, Period.ALL)
    shown = leaderboard_message(board, lambda user: user, {d.id: d for d in quiz.decks})
    term.say()
    term.say(text(summary.locale, "play.local_board"))
    for line in shown.lines:
        term.say(f"  {line}")
    if shown.you:
        term.say(f"  {shown.you}")


async def play(
    quiz: Quiz,
    term: Terminal,
    user: str,
    deck_id: str | None = None,
    locale: str | None = None,
    *,
    review: bool = False,
    topic: str | None = None,
) -> int:
    """Plays one run (or, with `review`, the review); returns the exit status. Refusals (an
    unknown deck) print a message."""
    actor = Actor(server_id=LOCAL_SERVER, user_id=user, is_admin=True, locale=locale)
    ui = await quiz.ui_locale(actor)
    try:
        if review:
            return await _review(quiz, term, actor, locale, topic)
        return await _play(quiz, term, actor, deck_id, locale, ui)
    except QuizError as e:
        term.stderr.write(error_text(e, ui) + "\n")
        return 1


async def _play(
    quiz: Quiz, term: Terminal, actor: Actor, deck_id: str | None, locale: str | None, ui: str
) -> int:
    deck = choose_deck(quiz, term, deck_id, ui)
    if deck is None:
        return 0
    loc = deck.locale_or_default(locale) if locale else await quiz.reply_locale(actor, deck)
    term.say(pick(deck.title, loc))
    if deck.description:
        term.wrapped(pick(deck.description, loc))
    step: RunStep | RunSummary | None = await quiz.start_run(actor, deck.id)
    while isinstance(step, RunStep):
        show_question(term, step_message(step))
        letters = "".join(c.letter for c in step.choices)
        index = read_letter(term, letters, loc)
        if index is None:
            term.say()
            term.say(text(loc, "play.stopped"))
            return 0
        fb = await quiz.run_answer(actor, step.run.id, step.question.id, index)
        show_feedback(term, feedback_message(fb))
        step = fb.next if fb.next is not None else fb.summary
    if isinstance(step, RunSummary):
        await show_summary(quiz, actor, term, step)
    return 0


def _in(step: ReviewStep, locale: str | None) -> ReviewStep:
    """The step in `--locale`, when its deck has that language."""
    return replace(step, locale=step.deck.locale_or_default(locale)) if locale else step


async def _review(
    quiz: Quiz, term: Terminal, actor: Actor, locale: str | None, topic: str | None
) -> int:
    """The due questions one at a time, each with its feedback and when it comes back."""
    step = await quiz.start_review(actor, topic)
    while isinstance(step, ReviewStep):
        step = _in(step, locale)
        msg = review_question(step)
        term.say()
        term.say(msg.header)
        term.wrapped(msg.question)
        for letter, choice in msg.choices:
            term.wrapped(f"{letter}. {choice}", "   ", "      ")
        index = read_letter(term, "".join(letter for letter, _ in msg.choices), step.locale)
        if index is None:
            term.say()
            return 0
        fb = await quiz.review_answer(actor, step.card.key, step.number, index, topic)
        said = review_answer(fb, step.locale)
        term.say(said.headline)
        term.wrapped(said.answer)
        if said.why:
            term.wrapped(said.why)
        term.wrapped(said.explanation)
        term.wrapped(said.when)
        step = fb.next
    term.say()
    term.wrapped(review_done(step))
    return 0
