"""The App Home tab: this week's leaderboard and the viewer's stats, with what is due for
review and a button to start it, via views.publish."""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from bot.domain.actor import Actor
from bot.domain.leaderboard import Period
from bot.presentation import messages
from bot.service.quiz import Quiz
from bot.slack import blocks, review_blocks
from bot.slack.mrkdwn import placeholder


async def publish_home(quiz: Quiz, client: AsyncWebClient, actor: Actor) -> None:
    board = await quiz.leaderboard(actor, Period.WEEK)
    stats = await quiz.stats(actor)
    decks = {d.id: d for d in quiz.decks}
    view = blocks.home_view(
        messages.leaderboard_message(board, placeholder, decks),
        messages.stats_message(stats, placeholder),
        board.locale,
        review_blocks.review_start_button(board.locale, stats.due),
    )
    await client.views_publish(user_id=actor.user_id, view=view.to_dict())
