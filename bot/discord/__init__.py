"""The Discord adapter (discord.py 2.x): slash commands and buttons in, embeds out.

Entry points: `runner.run_discord(app)` for `quizbot run` (it registers
`delivery.DiscordDelivery`, through which the core scheduler posts the daily question), and
`runner.sync_commands`, `sync.invite_url`, `sync.application_id_from_token` for
`quizbot discord sync|invite`.
"""
