"""The Slack adapter: slack-bolt's AsyncApp in, Block Kit out.

`bot.slack.runner.run_slack(app)` serves it (Socket Mode or HTTP, by `[slack] mode`);
`bot.slack.app.build_slack(app)` builds it for tests.
"""
