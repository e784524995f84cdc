"""What a live game says: its announcement, the standings after each question, the results,
and the private "locked in" reply to a click (right or wrong waits for the reveal)."""

from __future__ import annotations

from collections.abc import Callable

from bot.decks.model import pick
from bot.domain.answer import AnswerResult
from bot.domain.game import GIVE_UP, STANDINGS_SHOWN, EndCause, GameNews, NewsKind, podium
from bot.domain.records import AnswerStatus
from bot.presentation.locales import text

Mention = Callable[[str], str]
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
WHEN = "\x1d"
"""Stands for the question's deadline in `game.closes`: each platform draws the time its own
way (Discord `<t:...:R>`, Slack `<!date^...>`), after escaping the rest."""


def news_message(news: GameNews, mention: Mention) -> tuple[str, list[str]]:
    """The title and lines of a game's public message."""
    game = news.game
    loc = game.locale
    deck = pick(news.deck_title, loc)
    if news.kind is NewsKind.STARTED:
        return text(loc, "game.started", deck=deck), [
            text(loc, "game.rules", questions=game.rounds, seconds=game.seconds),
            text(loc, "game.started_by", user=mention(game.starter_id)),
        ]
    if news.kind is NewsKind.STANDINGS:
        title = text(loc, "game.standings", n=news.asked, total=game.rounds)
        lines = [
            text(loc, "game.row", place=p.place, user=mention(p.user_id), points=p.points)
            for p in news.board[:STANDINGS_SHOWN]
        ]
        return title, [*lines, text(loc, "game.playing", count=news.players)]
    key = "game.stopped" if news.stopped else "game.results"
    winners = podium(news.board)
    lines = [
        text(loc, "game.podium", medal=MEDALS[p.place], user=mention(p.user_id), points=p.points)
        for p in winners
    ] or [text(loc, "game.nobody_scored")]
    lines.append(text(loc, "game.played", count=news.players))
    if news.cause in ENDED:
        lines.append(text(loc, ENDED[news.cause], minutes=_minutes()))
    return text(loc, key, deck=deck), lines


ENDED = {
    EndCause.DECK_GONE: "game.ended_deck_gone",
    EndCause.FAILING: "game.ended_failing",
}
"""The line the results give when a game ended early (never for a channel that refused
the bot: nothing can be posted there)."""


def _minutes() -> int:
    return round(GIVE_UP.total_seconds() / 60)


def game_end_text(news: GameNews, locale: str, channel: Callable[[str], str]) -> str:
    """What a game's starter is told privately when it ended early, and why; `channel` names
    its channel as the platform links one."""
    game = news.game
    cause = news.cause or EndCause.FAILING
    return text(
        locale,
        f"game.notice_{cause.value}",
        channel=channel(game.channel_id),
        asked=news.asked,
        total=game.rounds,
        deck=game.deck_id,
        reason=news.reason or "",
        minutes=_minutes(),
    )


def locked_text(result: AnswerResult) -> str:
    """The private reply to a click on a game's question: what is locked in, not whether it
    is right, so nobody can pass the answer on before the reveal."""
    loc = result.locale
    if result.status is AnswerStatus.CLOSED or result.picked is None:
        return text(loc, "game.too_late")
    choice = pick(result.picked.text, loc)
    key = "game.locked" if result.status is AnswerStatus.NEW else "game.locked_before"
    return text(loc, key, letter=result.letter, choice=choice)
