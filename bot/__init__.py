"""quizbot: a quiz bot for team channels on Discord and Slack, and in a terminal."""

__version__ = "0.1.0"
