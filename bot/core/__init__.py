"""The platform-neutral quiz: decks, posts, answers, runs, scoring, leaderboards, schedules.

Nothing under `bot.core` imports discord, slack_bolt or slack_sdk; adapters translate
platform events into calls on `bot.core.quiz.Quiz` and render its results.
"""
