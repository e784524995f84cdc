"""Local stand-ins for Slack and Discord, for the tests and the benchmarks (never the bot).

The real slack-bolt and discord.py run against them over loopback: `fake_slack.FakeSlack`
(the Web API, `response_url`s and Socket Mode) and `fake_discord.FakeDiscord` (REST and the
gateway, with RESUME), each with a fault plan (`faults.py`); `slack_requests.SlackTester`
sends signed requests as Slack does. They live in the package, not in tests/, so that
bench/ can use them without importing the test suite.
"""
