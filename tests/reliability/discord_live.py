"""The Discord side for the reliability tests: tests/platform/discord's fake Discord, its
harness and its fixtures (`fake`, `make_bot`, `bot`), which import each other by plain name.

Import this module before `discord_harness`: it puts tests/platform/discord on the path, as
pytest does for the tests in that folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

DISCORD_TESTS = Path(__file__).resolve().parents[1] / "platform" / "discord"
if str(DISCORD_TESTS) not in sys.path:
    sys.path.insert(0, str(DISCORD_TESTS))

from tests.platform.discord.conftest import bot, fake, make_bot  # noqa: E402

__all__ = ["bot", "fake", "make_bot"]
