"""`/quiz ...`: the words after the command, parsed into one core call and its reply."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from slack_sdk.web.async_client import AsyncWebClient

from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.leaderboard import Period
from bot.domain.run import RunStep
from bot.presentation import messages
from bot.presentation.deck_messages import decks_message, default_deck_text
from bot.presentation.locales import language_name, text
from bot.presentation.report_messages import health_lines
from bot.service.games import Games
from bot.service.live_posts import LivePosts
from bot.service.publishing import Publishing
from bot.service.services import Services
from bot.slack import blocks, review_blocks
from bot.slack.mrkdwn import placeholder, user_of
from bot.slack.posts import UNCONFIRMED, CannotPost, Editor, send
from bot.slack.replies import ReplyTo, in_channel, private

log = logging.getLogger("quizbot.slack")


@dataclass(frozen=True)
class Command:
    name: str
    """The subcommand, lowercased (or whatever unknown word was typed first)."""
    args: tuple[str, ...] = ()

    @property
    def needs_admin_check(self) -> bool:
        """Whether the answer depends on the caller being an admin (users.info is asked)."""
        if self.name in ("close", "reset", "schedule", "report"):
            return True
        if self.name == "game":
            return _lower(self.arg(0)) == "stop"
        if self.name == "deck":  # `deck default DECK` sets it: only showing it is for all
            return len(self.args) > 1
        return self.name == "language" and any(a.lower() == "server" for a in self.args[1:])

    def arg(self, i: int) -> str | None:
        return self.args[i] if i < len(self.args) else None


def parse(text_after_command: str) -> Command:
    """`/quiz leaderboard month` -> Command("leaderboard", ("month",)); empty -> help."""
    words = text_after_command.split()
    if not words:
        return Command("help")
    return Command(words[0].lower(), tuple(words[1:]))


def _lower(word: str | None) -> str | None:
    return word.lower() if word else None


def is_direct(channel_id: str, channel_name: str = "") -> bool:
    """A DM or a group DM (Slack names those "directmessage" and "mpdm-...")."""
    return (
        channel_id.startswith("D")
        or channel_name == "directmessage"
        or channel_name.startswith("mpdm-")
    )


@dataclass(frozen=True)
class Request:
    """One slash command, as the handlers need it."""

    actor: Actor
    channel_id: str
    client: AsyncWebClient
    respond: ReplyTo | None
    channel_name: str = ""


Handler = Callable[[Request, Command], Awaitable[None]]


class Commands:
    """One method per subcommand; each makes one core call and sends its reply.

    `schedule` handles `/quiz schedule ...` (`bot.slack.schedules`)."""

    def __init__(
        self,
        services: Services,
        publishing: Publishing,
        posts: LivePosts,
        schedule: Handler,
        games: Games,
    ) -> None:
        self._services = services
        self._games = games
        self._publishing = publishing
        self._posts = posts
        self._handlers: dict[str, Handler] = {
            "post": self._post,
            "start": self._start,
            "leaderboard": self._leaderboard,
            "stats": self._stats,
            "decks": self._decks,
            "deck": self._deck,
            "language": self._language,
            "schedule": schedule,
            "close": self._close,
            "reset": self._reset,
            "privacy": self._privacy,
            "review": self._review,
            "report": self._report,
            "game": self._game,
            "help": self._help,
        }

    def metric_name(self, cmd: Command) -> str:
        """The subcommand as a metrics label: any word that is no subcommand is "unknown"
        (a label per typo would grow the metric's series without bound)."""
        return cmd.name if cmd.name in self._handlers else "unknown"

    async def run(self, req: Request, cmd: Command) -> None:
        await self._handlers.get(cmd.name, self._unknown)(req, cmd)

    async def _say(self, req: Request, message: str) -> None:
        await private(req.respond, blocks.text_reply(message))

    async def _locale(self, req: Request) -> str:
        return await self._services.catalog.ui_locale(req.actor)

    async def _post(self, req: Request, cmd: Command) -> None:
        view = await self._services.answering.post(
            req.actor, req.channel_id, _lower(cmd.arg(0)), _lower(cmd.arg(1))
        )
        try:
            await self._publishing.publish(view, lambda v: send(req.client, v))
        except CannotPost as error:
            if error.code != UNCONFIRMED and is_direct(req.channel_id, req.channel_name):
                raise CannotPost(error.code, hint="slack.not_in_dm") from error
            raise

    async def _close(self, req: Request, cmd: Command) -> None:
        """The reveal replaces the question; if Slack will not edit it (deleted, the bot
        was removed), the reveal is posted in the channel through the command's
        response_url instead, and if even that fails the closer is told so."""
        reveal = await self._services.answering.close(req.actor, channel_id=req.channel_id)
        locale = await self._locale(req)
        failure = await self._posts.reveal(
            reveal, Editor(req.client), lambda r: in_channel(req.respond, blocks.reveal_post(r))
        )
        if failure is not None:
            await self._say(req, text(locale, "slack.reveal_failed", error=failure))
            return
        await self._say(req, text(locale, "close.done"))

    async def _start(self, req: Request, cmd: Command) -> None:
        result = await self._services.runs.start_run(req.actor, _lower(cmd.arg(0)))
        if isinstance(result, RunStep):
            await private(req.respond, blocks.step_reply(result))
        else:
            await private(req.respond, blocks.summary_reply(result))

    async def _review(self, req: Request, cmd: Command) -> None:
        """`/quiz review [topic]`: the first question due, privately."""
        topic = " ".join(cmd.args) or None
        await private(
            req.respond,
            review_blocks.review_reply(await self._services.review.start_review(req.actor, topic)),
        )

    async def _report(self, req: Request, cmd: Command) -> None:
        """`/quiz report [deck]`: question health and players' reports (admins)."""
        view = await self._services.authoring.question_health(req.actor, _lower(cmd.arg(0)))
        title, lines = health_lines(view, placeholder)
        await private(req.respond, blocks.board_reply(messages.BoardMessage(title, lines, None)))

    async def _game(self, req: Request, cmd: Command) -> None:
        """`/quiz game [deck] [questions] [seconds]`, or `/quiz game stop`: the game itself
        is announced in the channel by the game loop; the caller is told privately."""
        if _lower(cmd.arg(0)) == "stop":
            await self._games.stop(req.actor, req.channel_id)
            await self._say(req, text(await self._locale(req), "game.stopping"))
            return
        words = list(cmd.args)
        # A first word of digits is a count (isdecimal, not isdigit: "²" is no number, so it
        # is read as a deck and refused as one); the game reads the numbers.
        deck = _lower(words.pop(0)) if words and not words[0].isdecimal() else None
        numbers = [*words, None, None]
        game = await self._games.start(req.actor, req.channel_id, deck, numbers[0], numbers[1])
        await self._say(req, text(game.locale, "game.starting"))

    async def _leaderboard(self, req: Request, cmd: Command) -> None:
        first, deck = _lower(cmd.arg(0)), _lower(cmd.arg(1))
        if first == "mastery":
            board = await self._services.boards.mastery_board(req.actor)
            reply = blocks.board_reply(messages.leaderboard_message(board, placeholder, {}))
            await private(req.respond, reply)
            return
        period = Period.parse(first)
        if (
            period is None
            and first is not None
            and self._services.catalog.decks.get(first) is not None
        ):
            period, deck = Period.WEEK, first  # `leaderboard DECK`: this week in that deck
        if period is None:
            raise QuizError("unknown_period", period=first)
        board = await self._services.boards.leaderboard(req.actor, period, deck)
        decks = {d.id: d for d in self._services.catalog.decks}
        reply = blocks.board_reply(messages.leaderboard_message(board, placeholder, decks))
        await private(req.respond, reply)

    async def _stats(self, req: Request, cmd: Command) -> None:
        word = cmd.arg(0)
        user = user_of(word) if word else None
        if word and user is None:
            await self._say(req, text(await self._locale(req), "slack.unknown_user"))
            return
        stats = await self._services.boards.stats(req.actor, user)
        reply = blocks.board_reply(messages.stats_message(stats, placeholder))
        own = stats.user_id == req.actor.user_id
        button = review_blocks.weakest_topic_button(stats.locale, stats.mastery, own)
        await private(req.respond, blocks.Reply(reply.text, [*reply.blocks, *button]))

    async def _decks(self, req: Request, cmd: Command) -> None:
        msg = decks_message(await self._services.catalog.deck_list(req.actor))
        await private(req.respond, blocks.board_reply(msg))

    async def _deck(self, req: Request, cmd: Command) -> None:
        """`/quiz deck default`: the server's default deck; `... DECK|none` (admins) sets or
        clears it."""
        if _lower(cmd.arg(0)) != "default" or len(cmd.args) > 2:
            raise QuizError("deck_usage")
        typed = cmd.arg(1)
        if typed is None:
            view = await self._services.catalog.default_view(req.actor)
        else:
            view = await self._services.catalog.set_default_deck(req.actor, typed)
        await self._say(req, default_deck_text(view))

    async def _language(self, req: Request, cmd: Command) -> None:
        if not cmd.args:
            await self._help(req, cmd)
            return
        server = _lower(cmd.arg(1)) == "server"
        chosen = await self._services.membership.set_language(req.actor, cmd.args[0], server=server)
        key = "language.set_server" if server else "language.set_user"
        await self._say(req, text(chosen, key, language=language_name(chosen)))

    async def _reset(self, req: Request, cmd: Command) -> None:
        if not req.actor.is_admin:
            raise QuizError("admin_only")
        season = (await self._services.membership.server(req.actor)).season
        await private(req.respond, blocks.reset_confirm(await self._locale(req), season))

    async def _privacy(self, req: Request, cmd: Command) -> None:
        hidden = await self._services.membership.is_hidden(req.actor)
        await private(req.respond, blocks.privacy_confirm(await self._locale(req), hidden))

    async def _help(self, req: Request, cmd: Command) -> None:
        await self._say(req, messages.help_text(await self._locale(req)))

    async def _unknown(self, req: Request, cmd: Command) -> None:
        locale = await self._locale(req)
        unknown = messages.error_text(QuizError("unknown_command", command=cmd.name), locale)
        await self._say(req, f"{unknown}\n\n{messages.help_text(locale)}")
