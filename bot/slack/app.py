"""Builds the slack-bolt AsyncApp and registers its listeners.

A click goes through the click intake (`bot.service.intake`): admitted, its core call
committed before the ack (Slack is answered, over HTTP or the socket, as soon as `ack()` is
called: `bot.slack.fastpath.Acks`; Slack wants it within 3 s), its private reply sent right
after, then recorded. The listeners here only read the click (`bot.slack.clicks`) and hand
over the ack and the reply. A slash command acks first and then works, since posting a
question waits on Slack's Web API.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.domain.errors import QuizError
from bot.service.admission import Admission
from bot.service.clicks import Outcome, Stale
from bot.service.intake import Click, Intake
from bot.service.live_posts import LivePosts
from bot.service.services import Services
from bot.slack import actions, clicks
from bot.slack.client import configure
from bot.slack.commands import Commands, Handler, Request, parse
from bot.slack.dedup import SeenEvents
from bot.slack.delivery import SlackDelivery, Workspaces
from bot.slack.fastpath import NOT_ACKED, Acks
from bot.slack.gate import RequestGate
from bot.slack.home import publish_home
from bot.slack.identity import Admins, actor_of
from bot.slack.oauth import OAuth, oauth
from bot.slack.replies import BUG, Sessions, guarded
from bot.slack.reports import ReportListeners
from bot.slack.schedules import ScheduleCommands
from bot.slack.setup import SlackSetupError
from bot.slack.suggestions import SuggestionListeners

log = logging.getLogger("quizbot.slack")
BOLT_LOGGER = "quizbot.slack.bolt"
COMMAND = "/quiz"
CLOSE_SECONDS = 10.0
"""How long closing waits for admitted clicks to be answered."""


@dataclass
class SlackBot:
    bolt: AsyncApp
    posts: LivePosts
    oauth: OAuth | None
    signing_secret: str
    app: Services | None = None
    """The services it serves (HTTP mode's /healthz and /metrics ask them)."""
    delivery: SlackDelivery | None = None
    """The daily question's way onto Slack (`run_slack` registers it with the scheduler)."""
    admission: Admission | None = None
    """The clicks being answered (shared with every platform of the process)."""
    sessions: Sessions | None = None
    """The keep-alive session replies are posted over."""
    requests: RequestGate = field(default_factory=RequestGate)
    """Requests from Slack (HTTP or Socket Mode) being handled: stopping lets them finish (and be
    admitted, acknowledged and answered) before it admits no more clicks."""

    async def prepare(self) -> None:
        """Creates the OAuth tables when distributing (a no-op otherwise)."""
        if self.oauth is not None:
            await self.oauth.prepare()

    async def quiesce(self) -> None:
        """Takes no more requests, lets those being handled finish, then admits no more
        clicks and answers the ones admitted (up to CLOSE_SECONDS), while the connections
        their acks and replies go over are still open. In Socket Mode, a click that came in
        just before is refused (unacknowledged: Slack tells its clicker it failed)."""
        if not await self.requests.quiesce(CLOSE_SECONDS):
            log.warning("%d Slack requests still in flight at close", self.requests.pending)
        if self.admission is not None and not await self.admission.quiesce(CLOSE_SECONDS):
            log.warning("%d admitted clicks still unanswered at close", self.admission.pending)

    async def close(self) -> None:
        """Answers the clicks already admitted, draws the last counts, then closes the OAuth
        stores."""
        await self.quiesce()
        await self.posts.flush()
        if self.sessions is not None:
            await self.sessions.close()
        if self.oauth is not None:
            await self.oauth.close()


async def _refuse_unhandled(error: Exception) -> BoltResponse:
    """What bolt could not handle (a signed body whose fields have shapes Slack never sends,
    e.g. `view: null`): 400, logged once as a warning, never bolt's 500, which Slack would
    retry. The bot's own listeners answer their errors themselves (`replies.guarded`)."""
    log.warning(
        "a signed Slack request bolt could not handle was refused (%s)", type(error).__name__
    )
    return BoltResponse(status=400, body="")


def _bolt(app: Services, distribution: OAuth | None) -> AsyncApp:
    """bolt's app, answering at the ack, with the token or the installations to act with."""
    secrets = app.config.secrets
    # The token goes in as `token`, not inside a `client`: bolt reads SLACK_BOT_TOKEN from
    # os.environ whenever `token` is None, and warns that it is unused if a client came too.
    return AsyncApp(
        # Bolt sets the level and handlers of the logger named after the app from `logger`
        # on every request: named "quizbot", our own top-level logger would be reset.
        name=BOLT_LOGGER,
        logger=logging.getLogger(BOLT_LOGGER),
        # Slack is answered when a listener returns; `Acks.early` returns at its ack.
        process_before_response=True,
        # `bot.slack.http` checks the signature over the raw bytes before bolt sees them;
        # Socket Mode's envelopes come over the app token's own connection, unsigned.
        request_verification_enabled=False,
        signing_secret=secrets.slack_signing_secret or "",
        token=None if distribution else secrets.slack_bot_token,
        oauth_settings=distribution.settings if distribution else None,
        # bolt takes an AsyncAuthorize instance here too (its annotation says callable only)
        authorize=distribution.authorize if distribution else None,  # type: ignore[arg-type]
    )


def build_slack(app: Services, *, refresh_interval: float = 3.0) -> SlackBot:
    """The Slack bot for `app`: one workspace with SLACK_BOT_TOKEN, or OAuth distribution
    with SLACK_CLIENT_ID and SLACK_CLIENT_SECRET (installations in the project's database)."""
    settings = app.config.file.slack
    secrets = app.config.secrets
    distribution: OAuth | None = None
    if secrets.slack_client_id and secrets.slack_client_secret:
        if app.installations is None:
            raise SlackSetupError("OAuth distribution needs the project's database")
        engine = app.installations()
        distribution = oauth(
            secrets.slack_client_id, secrets.slack_client_secret, engine, secrets.token_key
        )
    elif not secrets.slack_bot_token:
        raise SlackSetupError(
            "Slack needs SLACK_BOT_TOKEN (one workspace), or SLACK_CLIENT_ID and "
            "SLACK_CLIENT_SECRET (OAuth distribution) in the environment"
        )
    bolt = _bolt(app, distribution)
    configure(bolt.client, settings.api_url)
    bolt.error(_refuse_unhandled)
    posts = app.live_posts(refresh_interval)
    token = None if distribution else secrets.slack_bot_token
    admins = Admins(settings.admins)
    delivery = SlackDelivery(
        posts, Workspaces(settings.api_url, token, distribution), app.catalog, admins
    )
    schedule = ScheduleCommands(app.schedules, delivery).run
    sessions = Sessions()
    acks = Acks()
    intake = Intake(app, app.admission, posts, app.metrics, "slack")
    _register(bolt, app, posts, intake, admins, schedule, sessions, acks)
    if distribution:
        bolt.enable_token_revocation_listeners()  # deletes the installation's tokens
    else:
        bolt.event("app_uninstalled")(acks.early(_single_token_revoked))
        bolt.event("tokens_revoked")(acks.early(_single_token_revoked))
    signing_secret = secrets.slack_signing_secret or ""
    return SlackBot(
        bolt,
        posts,
        distribution,
        signing_secret,
        app=app,
        delivery=delivery,
        admission=app.admission,
        sessions=sessions,
    )


async def _single_token_revoked(event: dict[str, Any], context: AsyncBoltContext) -> None:
    log.warning(
        "Slack says %s for workspace %s: SLACK_BOT_TOKEN no longer works; "
        "reinstall the app and set the new token",
        event.get("type"),
        context.team_id,
    )


class MalformedActions(AsyncMiddleware):
    """A block_actions payload bolt's matchers would crash on gets the stale-click reply.

    A class, not a middleware function: bolt builds a function's arguments (`action` among
    them) from the body before calling it, and that is what crashes.
    """

    def __init__(self, services: Services, intake: Intake, sessions: Sessions) -> None:
        self._services = services
        self._intake = intake
        self._sessions = sessions

    async def async_process(
        self,
        *,
        req: AsyncBoltRequest,
        resp: BoltResponse,
        next: Callable[[], Awaitable[BoltResponse]],
    ) -> BoltResponse | None:
        if actions.well_formed(req.body):
            return await next()
        to = self._sessions.reply_to(req.context.respond)

        async def reply(outcome: Outcome) -> None:
            await clicks.send(self._services, to, outcome)

        click = Click(actor_of(req.context), Stale(), clicks.arrival(req.context))
        handled = await self._intake.handle(click, reply)
        return BoltResponse(status=NOT_ACKED if handled is None else 200, body="")


def _register(
    bolt: AsyncApp,
    services: Services,
    posts: LivePosts,
    intake: Intake,
    admins: Admins,
    schedule: Handler,
    sessions: Sessions,
    acks: Acks,
) -> None:
    metrics = services.metrics
    commands = Commands(services, services.publishing, posts, schedule, services.games)

    async def on_command(
        ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext, respond: AsyncRespond
    ) -> None:
        await ack()
        cmd = parse(str(body.get("text") or ""))
        metrics.command("slack", commands.metric_name(cmd))
        actor = actor_of(context)
        channel = body.get("channel_id")

        async def work() -> None:
            if actor is None or not isinstance(channel, str) or not channel:
                raise QuizError("generic")
            who = await admins.check(context.client, actor) if cmd.needs_admin_check else actor
            name = str(body.get("channel_name") or "")
            trigger = str(body.get("trigger_id") or "")
            await commands.run(Request(who, channel, context.client, to, name, trigger), cmd)

        to = sessions.reply_to(respond)
        if await guarded(services, to, actor, work) == BUG:
            metrics.error("slack", "command")

    async def on_home(event: dict[str, Any], context: AsyncBoltContext) -> None:
        actor = actor_of(context)
        if actor is None or event.get("tab", "home") != "home":
            return
        try:
            await publish_home(services, context.client, actor)
        except Exception:
            log.exception("App Home for %s failed", actor.user_id)

    bolt.middleware(
        SeenEvents(
            shared=services.state.first_seen if services.config.file.slack.shared_seen else None
        )
    )
    bolt.middleware(MalformedActions(services, intake, sessions))
    early = acks.early
    # Bolt tries its listeners in the order they were added, building each one's arguments
    # to match it: the answer buttons, a burst's every click, come first.
    buttons = clicks.Buttons(services, intake, sessions, admins)
    _register_clicks(bolt, buttons, ReportListeners(services, sessions, intake), acks)
    bolt.command(COMMAND)(early(on_command))
    bolt.event("app_home_opened")(early(on_home))
    approvers = services.config.file.suggestions.approvers
    SuggestionListeners(services, sessions, admins, approvers).register(bolt, commands, acks)
    # last: whatever no listener above took
    bolt.action(actions.ANY)(early(buttons.listener(clicks.unknown)))


def _register_clicks(
    bolt: AsyncApp, buttons: clicks.Buttons, reports: ReportListeners, acks: Acks
) -> None:
    """The buttons' and the form's listeners, each through the intake
    (`bot.service.intake`), the answer buttons first."""
    early, on = acks.early, buttons.listener
    for action_id, listener in (
        (actions.ANSWER_IDS, on(clicks.answer)),
        (actions.LOCALE, on(clicks.switch_locale)),
        (actions.RUN_IDS, on(clicks.run_answer)),
        (actions.REVIEW_IDS, on(clicks.review_answer)),
        (actions.RESET_YES, on(clicks.reset, admin=True)),
        (actions.RESET_NO, on(clicks.cancel_reset)),
        (actions.FORGET_YES, on(clicks.forget)),
        (actions.FORGET_NO, on(clicks.keep)),
        (actions.HIDE, on(clicks.hide)),
        (actions.SHOW, on(clicks.show)),
        (actions.REVIEW_START, reports.review_start),
        (actions.REPORT, reports.report_button),
    ):
        bolt.action(action_id)(early(listener))
    bolt.view(actions.REPORT_FORM)(early(reports.report_form))
