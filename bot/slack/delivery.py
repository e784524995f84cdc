"""The scheduler's and the game loop's way onto Slack: a question posted and revealed, a
game's messages, a failure told.

No request brings a token here, so each call takes the bot token of the schedule's own
workspace: SLACK_BOT_TOKEN, or with OAuth the installation stored for that team (or org).
What an admin must fix (the bot removed from the channel, the channel archived, the app
uninstalled: `REFUSED`) is a `ChannelRefused`; anything else Slack said or failed to say
(`internal_error`, a 5xx, a timeout, a post that may have landed) a plain `DeliveryError`;
either's reason is what `schedule show` and the DMs repeat. Rate limits and dropped
connections are retried by the client first.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.domain.actor import Actor
from bot.domain.errors import QuizError
from bot.domain.game import GameNews
from bot.domain.post import PostView, Reveal
from bot.domain.schedule import Schedule
from bot.presentation.game_messages import game_end_text
from bot.presentation.locales import text
from bot.presentation.schedule_messages import delivery_failure_text
from bot.service.catalog import Catalog
from bot.service.delivery import ChannelRefused, DeliveryError
from bot.service.live_posts import LivePosts
from bot.slack import blocks
from bot.slack.client import web_client
from bot.slack.identity import Admins
from bot.slack.mrkdwn import channel_placeholder, placeholder, with_mentions
from bot.slack.oauth import OAuth
from bot.slack.posts import SENDING_FAILED, UNCONFIRMED, CannotPost, Editor, error_code, send

log = logging.getLogger("quizbot.slack")

MEANINGS = {
    "not_in_channel": "the bot is not in the channel; invite it with /invite @quizbot",
    "post_unconfirmed": "Slack failed or did not answer in time, and may have posted it; "
    "it was not sent again, so look in the channel",
    "channel_not_found": "the channel is gone, or it is private and the bot is not in it",
    "is_archived": "the channel is archived",
    "restricted_action": "a workspace setting does not let the bot post there",
    "ekm_access_denied": "the workspace's administrators have stopped the bot from posting",
    "not_installed": "the app is no longer installed in this workspace",
    "account_inactive": "the bot's token no longer works (was the app uninstalled?)",
    "invalid_auth": "the bot's token no longer works (was the app uninstalled?)",
    "token_revoked": "the bot's token no longer works (was the app uninstalled?)",
    "not_authed": "the bot's token no longer works (was the app uninstalled?)",
    "missing_scope": "the app lacks a permission; reinstall it from slack-manifest.yaml",
    "team_access_not_granted": "the app has no access to this workspace",
}
"""What Slack's refusals usually mean (kept in English, like the codes themselves)."""
REFUSED = frozenset(MEANINGS) - {UNCONFIRMED}
"""Codes that refuse the channel or the workspace itself: no retry helps (`ChannelRefused`)."""


def refusal(code: str) -> str:
    """`Slack answered not_in_channel (the bot is not in the channel; ...)`."""
    meaning = MEANINGS.get(code)
    return f"Slack answered {code} ({meaning})" if meaning else f"Slack answered {code}"


def refused(code: str) -> DeliveryError:
    """The error for a Slack code: `ChannelRefused` when no retry helps."""
    kind = ChannelRefused if code in REFUSED else DeliveryError
    return kind(refusal(code))


def _failed(error: BaseException) -> DeliveryError:
    if isinstance(error, SlackApiError):
        return refused(error_code(error))
    return DeliveryError(f"Slack could not be reached ({error_code(error)})")


class Workspaces:
    """A Web API client with the bot token of a server, for work that no request brings."""

    def __init__(self, api_url: str, token: str | None, oauth: OAuth | None) -> None:
        self._api_url = api_url
        self._single = web_client(api_url, token) if token and oauth is None else None
        self._oauth = oauth

    async def client(self, server_id: str) -> AsyncWebClient:
        if self._single is not None:
            return self._single
        token = await self._oauth.bot_token(server_id) if self._oauth is not None else None
        if token is None:
            raise refused("not_installed")
        return web_client(self._api_url, token)


class SlackDelivery:
    """`bot.service.delivery.Delivery` for Slack, drawing through the same `Posts` as the
    commands (so a scheduled post's count redraw and its reveal take turns too)."""

    def __init__(
        self, posts: LivePosts, workspaces: Workspaces, catalog: Catalog, admins: Admins
    ) -> None:
        self._posts = posts
        self._workspaces = workspaces
        self._catalog = catalog
        self._admins = admins

    async def post(self, view: PostView) -> str:
        """The question message, as /quiz post sends it; its `channel:ts` ref."""
        client = await self._workspaces.client(view.post.server_id)
        try:
            return await send(client, view)
        except CannotPost as error:
            raise refused(error.code) from error
        except SENDING_FAILED as error:
            log.warning("scheduled post %s: %r", view.post.id, error)
            raise _failed(error) from error

    async def reveal(self, reveal: Reveal) -> None:
        """The question message becomes its reveal; if it cannot be edited (deleted), the
        reveal is posted in the channel instead. Raises DeliveryError if neither worked."""
        client = await self._workspaces.client(reveal.view.post.server_id)

        async def post_it(reveal: Reveal) -> bool:
            channel = reveal.view.post.channel_id
            await client.chat_postMessage(channel=channel, **blocks.reveal_post(reveal).payload())
            return True

        failure = await self._posts.reveal(reveal, Editor(client), post_it)
        if failure is not None:
            raise refused(failure)

    async def announce(self, news: GameNews) -> None:
        """A game's public message in its channel."""
        client = await self._workspaces.client(news.game.server_id)
        try:
            await client.chat_postMessage(
                channel=news.game.channel_id, **blocks.game_news(news).payload()
            )
        except SENDING_FAILED as error:
            raise _failed(error) from error

    async def notify_game_end(self, news: GameNews) -> None:
        """A DM to the game's starter, in their language, saying why it ended early. Best
        effort: a failure is logged."""
        starter = Actor(news.game.server_id, news.game.starter_id)
        try:
            locale = await self._catalog.ui_locale(starter)
            said = game_end_text(news, locale, channel_placeholder)
            client = await self._workspaces.client(starter.server_id)
            await client.chat_postMessage(
                channel=starter.user_id, **blocks.notice_reply(said).payload()
            )
        except (DeliveryError, QuizError, *SENDING_FAILED) as error:
            log.info("could not DM %s about game %s: %r", starter.user_id, news.game.id, error)

    async def notify_failure(self, schedule: Schedule, reason: str) -> None:
        """A DM from the bot to the admin who set the schedule (chat.postMessage to a user id
        opens it), in their language. Best effort: a failure is logged."""
        admin = Actor(schedule.server_id, schedule.created_by)
        try:
            locale = await self._catalog.ui_locale(admin)
            said = delivery_failure_text(schedule, reason, locale, channel_placeholder)
            client = await self._workspaces.client(schedule.server_id)
            await client.chat_postMessage(
                channel=schedule.created_by, **blocks.notice_reply(said).payload()
            )
        except (DeliveryError, *SENDING_FAILED) as error:
            log.info("could not DM %s about schedule %s: %r", admin.user_id, schedule.id, error)

    async def admins(self, server_id: str) -> Sequence[str]:
        """`[slack] admins`; Slack's own workspace admins cannot be listed with a bot token
        (users.list would read every member), so they get the summary by setting a daily
        question, like any admin the bot has seen at work."""
        return sorted(self._admins.configured)

    async def is_admin(self, server_id: str, user_id: str) -> bool:
        """users.info's admin and owner flags (or `[slack] admins`), as commands check them."""
        client = await self._workspaces.client(server_id)
        return await self._admins.is_admin(client, server_id, user_id)

    def mention(self, user_id: str) -> str:
        return placeholder(user_id)

    def fits(self, message: str) -> bool:
        return len(with_mentions(message)) <= blocks.SECTION_LIMIT

    async def tell(self, server_id: str, user_id: str, message: str) -> bool:
        """A DM (chat.postMessage to a user id opens it); best effort."""
        try:
            client = await self._workspaces.client(server_id)
            reply = blocks.mention_reply(message)
            await client.chat_postMessage(channel=user_id, **reply.payload())
            return True
        except (DeliveryError, *SENDING_FAILED) as error:
            log.info("could not DM %s in %s: %r", user_id, server_id, error)
            return False


def now_failed_text(locale: str, channel_id: str, reason: str) -> str:
    return text(
        locale, "slack.schedule_now_failed", channel=channel_placeholder(channel_id), reason=reason
    )
