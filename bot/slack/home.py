"""The App Home tab: this week's leaderboard and the viewer's stats, with what is due for
review and a button to start it, via views.publish."""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from bot.domain.actor import Actor
from bot.domain.leaderboard import Period
from bot.presentation import messages
from bot.service.services import Services
from bot.slack import blocks, review_blocks
from bot.slack.mrkdwn import placeholder


async def publish_home(services: Services, client: AsyncWebClient, actor: Actor) -> None:
    board = await services.boards.leaderboard(actor, Period.WEEK)
    stats = await services.boards.stats(actor)
    decks = {d.id: d for d in services.catalog.decks}
    view = blocks.home_view(
        messages.leaderboard_message(board, placeholder, decks),
        messages.stats_message(stats, placeholder),
        board.locale,
        review_blocks.review_start_button(board.locale, stats.due),
    )
    await client.views_publish(user_id=actor.user_id, view=view.to_dict())
