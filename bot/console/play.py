"""`quizbot play`: a run through a deck in the terminal, on the server "local"; with
`--review`, the questions missed there that are due for review.

Reads one letter per question from standard input, so it works piped as well as on a TTY.
`q` or end of input stops; the run is kept and the next `quizbot play` resumes it. The
language is chosen as `bot.console.language` says; text wraps to the terminal's width.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TextIO

from bot.console.language import LOCAL_SERVER, help_words, normal, switch_hint, terminal_locale
from bot.console.layout import wrap
from bot.decks.model import Deck, pick
from bot.decks.numerals import number as number_of
from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.leaderboard import Period
from bot.domain.review import ReviewStep
from bot.domain.run import RunStep, RunSummary
from bot.presentation.locales import LOCALES, text
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
from bot.service.services import Services


def add_play_command(sub: Any, argv: Sequence[str], env: Mapping[str, str]) -> None:
    """`quizbot play`'s options, their help in the language the quiz would speak."""
    say = help_words(argv, env)
    play = sub.add_parser("play", help=say("play.help_play"), description=say("play.help_play"))
    play.add_argument("--deck", help=say("play.help_deck"))
    play.add_argument("--locale", help=say("play.help_locale"))
    play.add_argument("--user", help=say("play.help_user"))
    play.add_argument("--review", action="store_true", help=say("play.help_review"))
    play.add_argument("--topic", help=say("play.help_topic"))
    play.add_argument("--config", help=say("play.help_config"))


@dataclass
class Terminal:
    stdin: TextIO
    stdout: TextIO
    stderr: TextIO
    interactive: bool
    width: int = 78
    """Columns to wrap to: the terminal's (shutil.get_terminal_size), 80 when piped."""

    def say(self, line: str = "") -> None:
        self.stdout.write(line + "\n")

    def wrapped(self, body: str, indent: str = "", hang: str | None = None) -> None:
        """Prints `body` wrapped to the terminal width; `hang` indents continuation lines."""
        for line in wrap(body, self.width, indent, hang):
            self.say(line)

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


def choose_deck(
    services: Services, term: Terminal, deck_id: str | None, locale: str, default: str | None = None
) -> Deck | None:
    """--deck, else the only deck; several decks: ask on a TTY (Enter takes the default, the
    config's `[questions] default` or else the first by id), the default when piped."""
    if deck_id:
        return services.catalog.deck(deck_id)
    decks = list(services.catalog.decks)
    fallback = services.catalog.deck(default)
    if len(decks) <= 1 or not term.interactive:
        return fallback
    number = decks.index(fallback) + 1
    for i, d in enumerate(decks, 1):
        title = pick(d.title, locale)
        line = text(locale, "play.deck_line", number=i, deck=d.id, title=title, count=len(d))
        mark = text(locale, "play.default_mark") if d is fallback else ""
        term.wrapped(line + mark, "", "   ")
    while True:
        answer = term.ask(text(locale, "play.choose_deck", last=len(decks), default=number))
        if answer is None or answer.lower() == "q":
            return None
        if answer == "":
            return fallback
        chosen = number_of(answer)
        if chosen is not None and 1 <= chosen <= len(decks):
            return decks[chosen - 1]
        if services.catalog.decks.get(answer):
            return services.catalog.deck(answer)
        term.wrapped(text(locale, "play.not_a_deck", answer=answer, last=len(decks)))


def show_question(term: Terminal, msg: QuestionMessage) -> None:
    term.say()
    term.wrapped(msg.header)
    if msg.footer:
        term.wrapped(msg.footer)
    term.wrapped(msg.question)
    for c in msg.choices:
        term.wrapped(f"{c.letter}. {c.text}", "   ", "      ")


def show_feedback(term: Terminal, msg: AnswerMessage, locale: str) -> None:
    term.wrapped(msg.headline)
    term.wrapped(msg.answer)
    if msg.why:
        term.wrapped(msg.why)
    term.wrapped(msg.explanation)
    if msg.review:  # the chat's words name /quiz review; here the command is this terminal's
        term.wrapped(text(locale, "play.review_added"))


def read_letter(term: Terminal, letters: str, locale: str) -> int | None:
    """The index of the letter typed; None to stop. Anything else is asked again."""
    shown = ", ".join(letters)
    while True:
        answer = term.ask(text(locale, "play.prompt", letters=shown))
        if answer is None or answer.lower() in ("q", "quit", "exit"):
            return None
        if len(answer) == 1 and answer.upper() in letters:
            return letters.index(answer.upper())
        term.wrapped(text(locale, "play.invalid", letters=shown))


async def show_summary(
    services: Services, actor: Actor, term: Terminal, summary: RunSummary
) -> None:
    msg = summary_message(summary)
    term.say()
    term.wrapped(msg.header)
    term.wrapped(msg.score)
    term.wrapped(msg.points)
    for line in msg.review:
        term.wrapped(line)
    term.wrapped(text(summary.locale, "play.again"))
    board = await services.boards.leaderboard(actor, Period.ALL)
    shown = leaderboard_message(board, lambda user: user, {d.id: d for d in services.catalog.decks})
    term.say()
    term.wrapped(text(summary.locale, "play.local_board"))
    for line in shown.lines:
        term.say(f"  {line}")
    if shown.you:
        term.say(f"  {shown.you}")


@dataclass(frozen=True)
class Languages:
    """What decides the language: `--locale`, the player's saved one, the system's."""

    asked: str | None
    saved: str | None
    system: str | None

    def for_deck(self, deck: Deck) -> str:
        """A deck's questions: the first asked, saved or system language the deck has, else
        English, else (a deck without English) the deck's first."""
        return terminal_locale(deck.locales, asked=self.asked, saved=self.saved, system=self.system)

    def ui(self, offered: Sequence[str]) -> str:
        """For words that belong to no deck (choosing a deck, errors): as `for_deck`, among
        the languages the decks are written in that the catalogs have."""
        return terminal_locale(
            [loc for loc in LOCALES if loc in offered] or LOCALES,
            asked=self.asked,
            saved=self.saved,
            system=self.system,
        )


async def play(
    services: Services,
    term: Terminal,
    user: str,
    deck_id: str | None = None,
    locale: str | None = None,
    *,
    review: bool = False,
    topic: str | None = None,
    system_locale: str | None = None,
    default_deck: str | None = None,
) -> int:
    """Plays one run (or, with `review`, the review); returns the exit status. Refusals (an
    unknown deck or language) print one line. Unless `--locale` chose it, the first line
    says, in English, which language this is and how to switch."""
    actor = Actor(server_id=LOCAL_SERVER, user_id=user, is_admin=True)
    saved = await services.membership.saved_language(actor)
    langs = Languages(normal(locale), saved, system_locale)
    try:
        offered = _offered(services, deck_id)
        ui = langs.ui(offered)
        if langs.asked is not None:
            if langs.asked not in offered:
                without = replace(langs, asked=None).ui(offered)
                term.stderr.write(
                    text(
                        without,
                        "play.unknown_locale",
                        locale=locale.strip() if locale else langs.asked,
                        locales=", ".join(offered),
                    )
                    + "\n"
                )
                return 2
            await services.membership.keep_language(actor, langs.asked)  # next time too
        else:
            hint = switch_hint(ui, offered)
            if hint:
                term.wrapped(hint)
        if review:
            return await _review(services, term, actor, langs, topic, ui)
        return await _play(services, term, actor, deck_id, langs, ui, default_deck)
    except QuizError as e:
        term.stderr.write(error_text(e, langs.ui(LOCALES)) + "\n")
        return 1


def _offered(services: Services, deck_id: str | None) -> list[str]:
    """The languages `--locale` may name: the deck's (or every deck's when none is named)."""
    decks = [services.catalog.deck(deck_id)] if deck_id else list(services.catalog.decks)
    return list(dict.fromkeys(loc for deck in decks for loc in deck.locales))


async def _play(
    services: Services,
    term: Terminal,
    actor: Actor,
    deck_id: str | None,
    langs: Languages,
    ui: str,
    default_deck: str | None,
) -> int:
    deck = choose_deck(services, term, deck_id, ui, default_deck)
    if deck is None:
        return 0
    loc = langs.for_deck(deck)
    actor = replace(actor, locale=loc)
    term.wrapped(pick(deck.title, loc))
    if deck.description:
        term.wrapped(pick(deck.description, loc))
    step: RunStep | RunSummary | None = await services.runs.start_run(actor, deck.id)
    while isinstance(step, RunStep):
        show_question(term, step_message(step))
        letters = "".join(c.letter for c in step.choices)
        index = read_letter(term, letters, loc)
        if index is None:
            term.say()
            term.wrapped(text(loc, "play.stopped"))
            return 0
        fb = await services.runs.run_answer(actor, step.run.id, step.question.id, index)
        show_feedback(term, feedback_message(fb), loc)
        step = fb.next if fb.next is not None else fb.summary
    if isinstance(step, RunSummary):
        await show_summary(services, actor, term, step)
    return 0


async def _review(
    services: Services, term: Terminal, actor: Actor, langs: Languages, topic: str | None, ui: str
) -> int:
    """The due questions one at a time, each with its feedback and when it comes back."""
    step = await services.review.start_review(actor, topic)
    while isinstance(step, ReviewStep):
        step = replace(step, locale=langs.for_deck(step.deck))
        msg = review_question(step)
        term.say()
        term.wrapped(msg.header)
        term.wrapped(msg.question)
        for letter, choice in msg.choices:
            term.wrapped(f"{letter}. {choice}", "   ", "      ")
        index = read_letter(term, "".join(letter for letter, _ in msg.choices), step.locale)
        if index is None:
            term.say()
            return 0
        fb = await services.review.review_answer(actor, step.card.key, step.number, index, topic)
        said = review_answer(fb, step.locale)
        term.wrapped(said.headline)
        term.wrapped(said.answer)
        if said.why:
            term.wrapped(said.why)
        term.wrapped(said.explanation)
        term.wrapped(said.when)
        step = fb.next
    term.say()
    term.wrapped(review_done(replace(step, locale=ui)))
    return 0
