"""/quiz (everyone) and /quizadmin (Manage Server): each callback is one core call.

Two top-level groups because Discord applies `default_permissions` to top-level commands
only. The admin group's default only hides it from members; every admin callback checks
Manage Server itself (`_admin`), and the core checks again where it decides.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import discord
from discord import app_commands

from bot.discord import buttons
from bot.discord import embeds as render
from bot.discord.clicks import PLATFORM, outcome
from bot.discord.context import client_of
from bot.discord.deck_default import HOW, DeckCommands
from bot.discord.games import GameCommands
from bot.discord.identity import NotInGuild, actor, mention
from bot.discord.options import (
    admin,
    deck_choices,
    deck_option,
    here,
    question_choices,
    topic_choices,
    topic_option,
)
from bot.discord.permissions import EDITS, warn_permissions
from bot.discord.posts import message_ref
from bot.discord.replies import in_time, report, send
from bot.discord.review import send_review, topic_view
from bot.discord.schedules import ScheduleCommands
from bot.discord.translator import catalog_string as _
from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.leaderboard import Period
from bot.domain.post import PostView
from bot.domain.run import RunSummary
from bot.observability.metrics import Metrics
from bot.presentation.deck_messages import decks_message
from bot.presentation.locales import LOCALES, language_name, text
from bot.presentation.messages import (
    BoardMessage,
    leaderboard_message,
    post_message,
    reveal_message,
    stats_message,
    step_message,
    summary_message,
)
from bot.presentation.report_messages import health_lines
from bot.presentation.review_messages import weakest_button

log = logging.getLogger("quizbot.discord")

LANGUAGES = [app_commands.Choice(name=language_name(loc), value=loc) for loc in LOCALES]
MASTERY = "mastery"
"""The leaderboard's other ranking: questions mastered, not points."""
PERIODS = [
    *(app_commands.Choice(name=_(f"discord.choice.{p.value}"), value=p.value) for p in Period),
    app_commands.Choice(name=_(f"discord.choice.{MASTERY}"), value=MASTERY),
]


async def _post(interaction: discord.Interaction, deck: str | None, question: str | None) -> None:
    services = client_of(interaction).services
    channel_id = here(interaction)
    work = services.answering.post(actor(interaction), str(channel_id), deck_option(deck), question)

    async def reply_with_it(view: PostView) -> str | None:
        message_id = await send(
            interaction,
            embeds=[render.question(post_message(view))],
            view=buttons.post_view(view),
            ephemeral=False,
        )
        return None if message_id is None else message_ref(channel_id, message_id)

    await services.publishing.publish(
        await in_time(interaction, work, ephemeral=False), reply_with_it
    )
    await warn_permissions(interaction, EDITS, "discord.cannot_edit")


async def _close(interaction: discord.Interaction, who: Actor) -> None:
    bot = client_of(interaction)
    reveal = await in_time(interaction, bot.services.answering.close(who, str(here(interaction))))
    locale = await in_time(interaction, bot.services.catalog.ui_locale(who))
    failure = await in_time(interaction, bot.posts.reveal(reveal, bot.messages))  # may wait
    if failure is None:  # on rate limits
        await send(interaction, content=text(locale, "close.done"))
    else:  # its message was never stored, is gone, or is out of reach: the reveal is the reply
        await send(
            interaction,
            embeds=[render.reveal(reveal_message(reveal))],
            view=buttons.reveal_view(reveal.view),
            ephemeral=False,
        )


async def _language(interaction: discord.Interaction, locale: str, *, server: bool) -> None:
    services = client_of(interaction).services
    who = admin(interaction) if server else actor(interaction)
    chosen = await in_time(
        interaction, services.membership.set_language(who, locale, server=server)
    )
    key = "language.set_server" if server else "language.set_user"
    await send(interaction, content=text(chosen, key, language=language_name(chosen)))


@app_commands.guild_only()  # Discord's `contexts: [guild]`: scores belong to a server
class QuizCommands(app_commands.Group, name="quiz", description=_("discord.cmd.quiz")):
    game = GameCommands()

    @app_commands.command(name="post", description=_("discord.cmd.post"))
    @app_commands.describe(deck=_("discord.opt.deck"), question=_("discord.opt.question"))
    @app_commands.autocomplete(deck=deck_choices, question=question_choices)
    async def post(
        self, interaction: discord.Interaction, deck: str | None = None, question: str | None = None
    ) -> None:
        await _post(interaction, deck, question)

    @app_commands.command(name="start", description=_("discord.cmd.start"))
    @app_commands.describe(deck=_("discord.opt.deck"))
    @app_commands.autocomplete(deck=deck_choices)
    async def start(self, interaction: discord.Interaction, deck: str | None = None) -> None:
        services = client_of(interaction).services
        step = await in_time(
            interaction, services.runs.start_run(actor(interaction), deck_option(deck))
        )
        if isinstance(step, RunSummary):
            await send(interaction, embeds=[render.summary(summary_message(step))])
        else:
            await send(
                interaction,
                embeds=[render.question(step_message(step))],
                view=buttons.run_view(step),
            )

    @app_commands.command(name="leaderboard", description=_("discord.cmd.leaderboard"))
    @app_commands.describe(period=_("discord.opt.period"), deck=_("discord.opt.deck"))
    @app_commands.choices(period=PERIODS)
    @app_commands.autocomplete(deck=deck_choices)
    async def leaderboard(
        self, interaction: discord.Interaction, period: str | None = None, deck: str | None = None
    ) -> None:
        services = client_of(interaction).services
        if period == MASTERY:  # over every deck: `deck` does not narrow it
            board = await in_time(interaction, services.boards.mastery_board(actor(interaction)))
        else:
            chosen = Period.parse(period)
            if chosen is None:
                raise QuizError("unknown_period", period=period)
            work = services.boards.leaderboard(actor(interaction), chosen, deck_option(deck))
            board = await in_time(interaction, work)
        msg = leaderboard_message(board, mention, {d.id: d for d in services.catalog.decks})
        await send(interaction, embeds=[render.board(msg)])

    @app_commands.command(name="stats", description=_("discord.cmd.stats"))
    @app_commands.describe(user=_("discord.opt.user"))
    async def stats(
        self, interaction: discord.Interaction, user: discord.User | None = None
    ) -> None:
        services = client_of(interaction).services
        whose = str(user.id) if user is not None else None
        who = actor(interaction)
        stats = await in_time(interaction, services.boards.stats(who, whose))
        own = stats.user_id == who.user_id
        await send(
            interaction,
            embeds=[render.board(stats_message(stats, mention), title_in_body=True)],
            view=topic_view(weakest_button(stats.locale, stats.mastery, own)),
        )

    @app_commands.command(name="review", description=_("discord.cmd.review"))
    @app_commands.describe(topic=_("discord.opt.topic"))
    @app_commands.autocomplete(topic=topic_choices)
    async def review(self, interaction: discord.Interaction, topic: str | None = None) -> None:
        services = client_of(interaction).services
        work = services.review.start_review(actor(interaction), topic_option(interaction, topic))
        await send_review(interaction, await in_time(interaction, work))

    @app_commands.command(name="decks", description=_("discord.cmd.decks"))
    async def decks(self, interaction: discord.Interaction) -> None:
        services = client_of(interaction).services
        listing = await in_time(interaction, services.catalog.deck_list(actor(interaction)))
        await send(interaction, embeds=[render.board(decks_message(listing, HOW), literal=True)])

    @app_commands.command(name="language", description=_("discord.cmd.language"))
    @app_commands.describe(locale=_("discord.opt.locale"))
    @app_commands.choices(locale=LANGUAGES)
    async def language(self, interaction: discord.Interaction, locale: str) -> None:
        await _language(interaction, locale, server=False)

    @app_commands.command(name="close", description=_("discord.cmd.close"))
    async def close(self, interaction: discord.Interaction) -> None:
        await _close(interaction, actor(interaction))

    @app_commands.command(name="privacy", description=_("discord.cmd.privacy"))
    async def privacy(self, interaction: discord.Interaction) -> None:
        services = client_of(interaction).services
        who = actor(interaction)
        locale = await in_time(interaction, services.catalog.ui_locale(who))
        hidden = await in_time(interaction, services.membership.is_hidden(who))
        await send(
            interaction,
            content=text(locale, "privacy.confirm"),
            view=buttons.privacy_view(locale, hidden),
        )

    @app_commands.command(name="help", description=_("discord.cmd.help"))
    async def help(self, interaction: discord.Interaction) -> None:
        services = client_of(interaction).services
        locale = await in_time(interaction, services.catalog.ui_locale(actor(interaction)))
        card = render.help_card(text(locale, "help.title"), text(locale, "discord.help_body"))
        await send(interaction, embeds=[card])


@app_commands.guild_only()
class AdminCommands(
    app_commands.Group,
    name="quizadmin",
    description=_("discord.cmd.quizadmin"),
    default_permissions=discord.Permissions(manage_guild=True),
):
    schedule = ScheduleCommands()
    deck = DeckCommands()

    @app_commands.command(name="language", description=_("discord.cmd.admin_language"))
    @app_commands.describe(locale=_("discord.opt.locale"))
    @app_commands.choices(locale=LANGUAGES)
    async def language(self, interaction: discord.Interaction, locale: str) -> None:
        await _language(interaction, locale, server=True)

    @app_commands.command(name="close", description=_("discord.cmd.admin_close"))
    async def close(self, interaction: discord.Interaction) -> None:
        await _close(interaction, admin(interaction))

    @app_commands.command(name="report", description=_("discord.cmd.admin_report"))
    @app_commands.describe(deck=_("discord.opt.deck"))
    @app_commands.autocomplete(deck=deck_choices)
    async def report(self, interaction: discord.Interaction, deck: str | None = None) -> None:
        """Question health of a deck in this server, and players' problem reports."""
        services = client_of(interaction).services
        work = services.authoring.question_health(admin(interaction), deck_option(deck))
        title, lines = health_lines(await in_time(interaction, work), render.held_mention)
        await send(
            interaction, embeds=[render.board(BoardMessage(title, lines, None), players=True)]
        )

    @app_commands.command(name="reset", description=_("discord.cmd.reset"))
    async def reset(self, interaction: discord.Interaction) -> None:
        services = client_of(interaction).services
        who = admin(interaction)
        locale = await in_time(interaction, services.catalog.ui_locale(who))
        server = await in_time(interaction, services.membership.server(who))
        await send(
            interaction,
            content=text(locale, "reset.confirm"),
            view=buttons.reset_view(locale, server.season),
        )


class QuizTree(app_commands.CommandTree):
    """The command tree; a failed command is answered like a failed click. Every command is
    counted in `metrics`, and so is one that failed unexpectedly."""

    def __init__(self, client: discord.Client, metrics: Metrics) -> None:
        super().__init__(client)
        self._metrics = metrics
        self.add_command(QuizCommands())
        self.add_command(AdminCommands())

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """Counts the command, then checks its options. Options the command does not have,
        or of another type, come from a version of it Discord still shows (a sync is due):
        the callback would get values of the wrong type. A command is refused like any
        signature mismatch; autocomplete offers nothing."""
        if interaction.type is discord.InteractionType.application_command:
            self._metrics.command(PLATFORM, metric_name(interaction))
        command = interaction.command
        if not isinstance(command, app_commands.Command):
            return True
        types = {p.display_name: p.type.value for p in command.parameters}
        data: Any = interaction.data or {}
        if all(types.get(str(o.get("name"))) == o.get("type") for o in _given_options(data)):
            return True
        if interaction.type is discord.InteractionType.autocomplete:
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.autocomplete([])
            return False
        raise app_commands.CommandSignatureMismatch(command)

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        failure = _failure(error)
        if outcome(failure) == "error":
            self._metrics.error(PLATFORM, "command")
        await report(interaction, failure)


def metric_name(interaction: discord.Interaction) -> str:
    """The subcommand as a metrics label, the word Slack's `/quiz` uses: `post` for /quiz
    post, `schedule` for /quizadmin schedule add. A command this version does not have (a
    sync is due) is "unknown"."""
    command = interaction.command
    names = command.qualified_name.split() if isinstance(command, app_commands.Command) else []
    return names[1] if len(names) > 1 else "unknown"


def _failure(error: app_commands.AppCommandError) -> BaseException:
    """What the caller is told about: the callback's own exception, or a refusal."""
    if isinstance(error, app_commands.CommandInvokeError):
        return error.original
    if isinstance(error, app_commands.NoPrivateMessage):
        return NotInGuild()
    if isinstance(error, app_commands.CommandNotFound):
        # Discord still shows a command this version no longer has (a sync is due).
        name = " ".join([*error.parents, error.name])
        return QuizError("unknown_command", command=f"/{name}")
    if isinstance(error, app_commands.CommandSignatureMismatch):
        return QuizError("unknown_command", command=f"/{error.command.qualified_name}")
    return error


def _given_options(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The options given to the subcommand itself, below its group and subgroup."""
    options: list[dict[str, Any]] = data.get("options", [])
    while options and options[0].get("type") in (1, 2):
        options = options[0].get("options", [])
    return options
