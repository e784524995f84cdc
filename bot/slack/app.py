"""Builds the slack-bolt AsyncApp and registers its listeners.

A click is admitted (`bot.service.admission`): its core call commits before the ack (Slack
is answered, over HTTP or the socket, as soon as `ack()` is called: `bot.slack.acks`; Slack
wants it within 3 s), and its private reply is sent right after the ack. A slash command
acks first and then works, since posting a question waits on Slack's Web API. Each click is
recorded (App.metrics and a log line), timed from its request's arrival.
"""

from __future__ import annotations

import logging
import time
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

from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.observability.metrics import Metrics
from bot.service.admission import Admission, Closing
from bot.service.live_posts import LivePosts
from bot.service.services import Services
from bot.slack import actions
from bot.slack.acks import Acks
from bot.slack.blocks import text_reply
from bot.slack.clicks import Click, Clicks, Said, record
from bot.slack.client import configure
from bot.slack.commands import Commands, Handler, Request, parse
from bot.slack.dedup import SeenEvents
from bot.slack.delivery import SlackDelivery, Workspaces
from bot.slack.home import publish_home
from bot.slack.identity import Admins, actor_of
from bot.slack.oauth import OAuth, oauth
from bot.slack.replies import BUG, Sessions, failure, guarded
from bot.slack.reports import ReportListeners
from bot.slack.schedules import ScheduleCommands
from bot.slack.setup import SlackSetupError

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
    requests: Admission = field(default_factory=Admission)
    """HTTP requests to /slack/events being handled: stopping lets them finish (and be
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
    # The token goes in as `token`, not inside a `client`: bolt reads SLACK_BOT_TOKEN from
    # os.environ whenever `token` is None, and warns that it is unused if a client came too.
    bolt = AsyncApp(
        # Bolt sets the level and handlers of the logger named after the app from `logger`
        # on every request: named "quizbot", our own top-level logger would be reset.
        name=BOLT_LOGGER,
        logger=logging.getLogger(BOLT_LOGGER),
        # Slack is answered when a listener returns; `Acks.early` returns at its ack.
        process_before_response=True,
        signing_secret=secrets.slack_signing_secret or "",
        token=None if distribution else secrets.slack_bot_token,
        oauth_settings=distribution.settings if distribution else None,
        # bolt takes an AsyncAuthorize instance here too (its annotation says callable only)
        authorize=distribution.authorize if distribution else None,  # type: ignore[arg-type]
    )
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
    _register(bolt, app, posts, admins, schedule, sessions, acks)
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


ClickHandler = Callable[[Click], Awaitable[Said]]


def arrival(context: AsyncBoltContext) -> float:
    """When the request arrived (`time.monotonic()`): HTTP mode notes it in the context as it
    comes in; otherwise (Socket Mode) it is now."""
    arrived = context.get("arrived")
    return arrived if isinstance(arrived, float) else time.monotonic()


class MalformedActions(AsyncMiddleware):
    """A block_actions payload bolt's matchers would crash on gets the stale-click reply.

    A class, not a middleware function: bolt builds a function's arguments (`action` among
    them) from the body before calling it, and that is what crashes.
    """

    def __init__(self, services: Services, metrics: Metrics, sessions: Sessions) -> None:
        self._services = services
        self._metrics = metrics
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

        async def refuse() -> None:
            raise QuizError("stale_click")

        arrived, actor = arrival(req.context), actor_of(req.context)
        to = self._sessions.reply_to(req.context.respond)
        failure = await guarded(self._services, to, actor, refuse)
        record(self._metrics, actor, None, failure or BUG, arrived)
        return BoltResponse(status=200, body="")


def _register(
    bolt: AsyncApp,
    services: Services,
    posts: LivePosts,
    admins: Admins,
    schedule: Handler,
    sessions: Sessions,
    acks: Acks,
) -> None:
    metrics, admission = services.metrics, services.admission
    commands = Commands(services, services.publishing, posts, schedule, services.games)
    clicks = Clicks(services, posts)

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
            await commands.run(Request(who, channel, context.client, to, name), cmd)

        to = sessions.reply_to(respond)
        if await guarded(services, to, actor, work) == BUG:
            metrics.error("slack", "command")

    def on_click(handle: ClickHandler, *, admin: bool = False) -> Callable[..., Awaitable[None]]:
        async def listener(
            ack: AsyncAck,
            action: dict[str, Any],
            context: AsyncBoltContext,
            respond: AsyncRespond,
        ) -> None:
            arrived, actor = arrival(context), actor_of(context)
            value = action.get("value")
            who = None if actor is None else (actor.server_id, actor.user_id)
            try:
                async with admission.admit(who, arrived) as ticket:
                    said = await decide(handle, admin, actor, value, context, ticket.deadline)
                    await ack()  # the answer is stored: now Slack may be told
                    try:
                        await said.send(sessions.reply_to(respond))
                    except Exception:
                        log.exception("the reply to a click could not be sent")
                        said = Said(said.reply, BUG)
                    record(metrics, actor, value, said.handled, arrived)
            except Closing:  # unacknowledged: Slack tells the clicker it failed
                log.info("a click arrived while stopping; not acknowledged")

        return listener

    async def decide(
        handle: ClickHandler,
        admin: bool,
        actor: Actor | None,
        value: object,
        context: AsyncBoltContext,
        deadline: float,
    ) -> Said:
        """The click's work, up to its commit; a refusal or a failure becomes what to say."""
        try:
            if actor is None:
                raise QuizError("stale_click")
            who = await admins.check(context.client, actor) if admin else actor
            return await handle(Click(who, value, context.client, deadline))
        except Exception as error:
            key, message = await failure(services, actor, error)
            return Said(text_reply(message), key)

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
    bolt.middleware(MalformedActions(services, metrics, sessions))
    early = acks.early
    bolt.command(COMMAND)(early(on_command))
    bolt.action(actions.ANSWER_IDS)(early(on_click(clicks.answer)))
    bolt.action(actions.LOCALE)(early(on_click(clicks.switch_locale)))
    bolt.action(actions.RUN_IDS)(early(on_click(clicks.run_answer)))
    bolt.action(actions.REVIEW_IDS)(early(on_click(clicks.review_answer)))
    reports = ReportListeners(services, sessions)
    bolt.action(actions.REVIEW_START)(early(reports.review_start))
    bolt.action(actions.REPORT)(early(reports.report_button))
    bolt.view(actions.REPORT_FORM)(early(reports.report_form))
    bolt.action(actions.RESET_YES)(early(on_click(clicks.reset, admin=True)))
    bolt.action(actions.RESET_NO)(early(on_click(clicks.cancel_reset)))
    bolt.action(actions.FORGET_YES)(early(on_click(clicks.forget)))
    bolt.action(actions.FORGET_NO)(early(on_click(clicks.keep)))
    bolt.action(actions.HIDE)(early(on_click(clicks.hide)))
    bolt.action(actions.SHOW)(early(on_click(clicks.show)))
    # last: whatever no listener above took
    bolt.action(actions.ANY)(early(on_click(clicks.unknown)))
    bolt.event("app_home_opened")(early(on_home))
