"""The requests from Slack being handled (HTTP requests to /slack/events, Socket Mode
envelopes), so stopping can let them finish: each is acknowledged, and its clicks admitted and
answered, before the bot admits no more clicks.

Not the clicks' admission (`bot.service.admission`): a request is nobody's, has no deadline
and takes no turn; it is only counted.
"""

from __future__ import annotations

from bot.service.admission import InFlight


class RequestGate(InFlight):
    """The requests let in and not yet finished (`enter`, `pending`)."""

    async def quiesce(self, seconds: float) -> bool:
        """Lets no more requests in and waits, up to `seconds`, for those let in to finish."""
        self.close()
        return await self.finished(seconds)
